/**
 * A database restart under a running daemon: readiness says so within a second while the database
 * is down (liveness does not: a restart of the daemon would not mend it), and once it is back the
 * runner listens again by itself, so a job queued afterwards runs within seconds. The database is a throwaway server this file starts and restarts (the
 * program's own embedded PostgreSQL, on a loopback port).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, migrate, openDatabase } from '../../src/db/index.js';
import { attachEmbeddedServer, type EmbeddedServer } from '../../src/db/embedded-server.js';
import { freePort, useDaemons, waitFor } from '../support/daemon.js';
import { insertJob, jobRow } from '../jobs/helpers.js';
import { useSandbox } from '../support/sandbox.js';
import { embeddedDbParent } from '../support/test-database.js';

const dir = embeddedDbParent('im-restart-');
const box = useSandbox({
  perEntity: { clients: 10, products: 10, quotations: 5, saved_invoices: 5, repeating_invoices: 2 },
});
let port: number;
let server: EmbeddedServer;
let url: string;

const startServer = () => attachEmbeddedServer(join(dir, 'db'), { create: true, tcpPort: port });
const startDaemon = useDaemons(() => ({ DATABASE_URL: url, INVOICING_API_URL: box.sandbox.url, LOG_LEVEL: 'info' }));

beforeAll(async () => {
  port = await freePort();
  server = await startServer();
  url = `postgres://postgres@127.0.0.1:${port}/postgres`;
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** GET /readyz (or another path): its status, its body, and how long it took to answer. */
async function health(base: string, path = '/readyz'): Promise<{ status: number; ms: number; body: string }> {
  const began = Date.now();
  const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5000) });
  const body = await response.text();
  return { status: response.status, ms: Date.now() - began, body };
}

describe('a database restart under a running daemon', () => {
  it('readiness is 503 within a second while it is down, liveness stays 200; afterwards a queued job runs within seconds', async () => {
    const daemon = await startDaemon();
    await waitFor('a ready daemon', async () => (await health(daemon.url)).status === 200, 20_000);

    await server.stop();
    const down = [];
    const alive = [];
    for (let i = 0; i < 5; i++) {
      down.push(await health(daemon.url));
      alive.push(await health(daemon.url, '/healthz'));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const answer of down) {
      expect(answer.status).toBe(503);
      expect(answer.ms).toBeLessThan(1000);
      expect(JSON.parse(answer.body).problems[0]).toMatch(/^the database does not answer: /);
    }
    for (const answer of alive) {
      expect(answer.status).toBe(200);
      expect(answer.ms).toBeLessThan(1000);
      expect(JSON.parse(answer.body).database).toMatch(/^error: /);
    }

    server = await startServer();
    let handle: DatabaseHandle | undefined;
    try {
      handle = await openDatabase({ databaseUrl: url, embeddedDbDir: '', schema: 'invoicing' });
      await migrate(handle.db, 'invoicing');
      const id = await insertJob(handle, 'set_product_stock', { id: 1, stock: 4 });
      const queuedAt = Date.now();
      await waitFor(
        'the job queued after the restart to run',
        async () => (await jobRow(handle!, id)).status === 'succeeded',
        20_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; the daemon said: ${daemon.stderr().slice(-3000)}`);
      });
      // Within seconds: the poll interval is ten minutes, so the runner heard the NOTIFY.
      expect(Date.now() - queuedAt).toBeLessThan(15_000);
      await waitFor('readiness to be OK again', async () => (await health(daemon.url)).status === 200, 20_000).catch(
        async (error: Error) => {
          const body = await (await fetch(`${daemon.url}/readyz`)).text();
          throw new Error(`${error.message}; /readyz: ${body}`);
        },
      );
      expect(JSON.parse((await health(daemon.url, '/healthz')).body)).toMatchObject({ status: 'ok', database: 'ok' });
    } finally {
      await handle?.close();
    }
    expect(daemon.stderr()).not.toMatch(/unexpected error|TypeError/);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited, daemon.stderr().slice(-3000)).toBe(0);
  }, 120_000);
});
