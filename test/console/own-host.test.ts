/**
 * DNS rebinding, refused: the console on loopback answers only requests whose Host names the
 * address it listens on (127.0.0.1, localhost, [::1] with its port) or a name of
 * CONSOLE_PUBLIC_HOSTS, else 421; and takes a POST only with an Origin (or, without one, a
 * Referer) naming the same, else 403; each refusal is one line in the log. A rebinding GET reads
 * nothing and a rebinding POST queues nothing; the same requests with the console's own names
 * work (the browser tests in this folder use it as a browser does).
 */
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureDefaultAccount } from '../../src/accounts/store.js';
import { createConsoleApp } from '../../src/console/index.js';
import { CLI_PATH } from '../support/cli.js';
import { freePort, waitFor } from '../support/daemon.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const COMPANY = 'Rebinding Target BV';
const JOB_FORM = 'kind=set_product_stock&payload=%7B%22id%22%3A1%2C%22stock%22%3A5%7D';

beforeAll(async () => {
  const db = database.current.handle.db;
  await ensureDefaultAccount(db);
  await sql`insert into clients (account_id, clientnr, company, raw) select id, 1, ${COMPANY}, '{}' from accounts`.execute(
    db,
  );
  await sql`insert into products (account_id, id, name, raw) select id, 1, 'Anvil', '{}' from accounts`.execute(db);
});

interface Answer {
  status: number;
  body: string;
}

/** A request to 127.0.0.1:port with exactly these headers (Host among them). */
function send(port: number, method: string, path: string, headers: Record<string, string>, body = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const post = (port: number, headers: Record<string, string>) =>
  send(port, 'POST', '/jobs', { 'content-type': 'application/x-www-form-urlencoded', ...headers }, JOB_FORM);

async function jobsQueued(): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from jobs`.execute(database.current.handle.db);
  return rows[0]!.n;
}

describe('the console against DNS rebinding', () => {
  it('on loopback, refuses a foreign Host (421) and a foreign Origin or Referer (403), queuing nothing; its own names work', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [CLI_PATH, 'console', '--port', String(port)], {
      env: { ...process.env, ...database.current.env, LOG_LEVEL: 'info', CONSOLE_PUBLIC_HOSTS: 'books.example.com' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await waitFor('the console to listen', async () => stderr.includes('invoice-mirror console: http://'));
      const own = `127.0.0.1:${port}`;
      const evil = `rebind.example:${port}`;

      // A rebinding page reads nothing…
      const read = await send(port, 'GET', '/records/clients', { host: evil });
      expect(read.status).toBe(421);
      expect(read.body).not.toContain(COMPANY);
      expect(read.body).toMatch(
        /^421 the console answers only for 127\.0\.0\.1:\d+, localhost:\d+, \[::1\]:\d+, books\.example\.com; this request names Host rebind\.example:\d+/,
      );
      // …and queues nothing, Host and Origin both its own name.
      expect((await post(port, { host: evil, origin: `http://${evil}`, 'sec-fetch-site': 'same-origin' })).status).toBe(
        421,
      );
      expect(await jobsQueued()).toBe(0);
      // The console's own name with another site's Origin, or (without Origin) Referer: refused.
      expect((await post(port, { host: own, origin: `http://${evil}`, 'sec-fetch-site': 'same-origin' })).status).toBe(
        403,
      );
      expect(
        (await post(port, { host: own, referer: `http://${evil}/jobs/new`, 'sec-fetch-site': 'same-origin' })).status,
      ).toBe(403);
      expect((await post(port, { host: own, origin: 'null', 'sec-fetch-site': 'same-origin' })).status).toBe(403);
      expect(await jobsQueued()).toBe(0);
      // Each refusal is one line of the log.
      await waitFor('the refusals in the log', async () => (stderr.match(/console: refused: /g) ?? []).length === 5);

      // Its own names, and the public one, work: reading, and queuing (Origin, or Referer without it).
      for (const host of [own, `localhost:${port}`, `[::1]:${port}`, 'books.example.com'])
        expect((await send(port, 'GET', '/records/clients', { host })).body, host).toContain(COMPANY);
      expect((await post(port, { host: own, origin: `http://${own}` })).status).toBe(303);
      expect(
        (await post(port, { host: own, referer: `http://localhost:${port}/jobs/new`, 'sec-fetch-site': 'same-origin' }))
          .status,
      ).toBe(303);
      expect(
        (
          await post(port, {
            host: 'books.example.com',
            origin: 'https://books.example.com',
            'sec-fetch-site': 'same-origin',
          })
        ).status,
      ).toBe(303);
      expect(await jobsQueued()).toBe(3);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('close', resolve));
    }
  });

  it('a bad CONSOLE_PUBLIC_HOSTS is refused at start with one line naming it', async () => {
    const child = spawn(process.execPath, [CLI_PATH, 'console', '--port', '0'], {
      env: { ...process.env, ...database.current.env, CONSOLE_PUBLIC_HOSTS: 'books.example.com,http://x/' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^invoice-mirror: CONSOLE_PUBLIC_HOSTS: 'http:\/\/x\/' is not a host\[:port\]; give host\[:port\] names/,
    );
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('called in process (no socket), it answers the loopback names without a port, as Hono’s app.request makes them', async () => {
    const settings = { inDaemon: false, user: 'admin', password: undefined, token: undefined };
    const app = createConsoleApp({ db: database.current.handle.db, settings, maxAttempts: 1, worker: true });
    expect((await app.request('/records/clients')).status).toBe(200);
    expect((await app.request('http://rebind.example/records/clients')).status).toBe(421);
  });
});
