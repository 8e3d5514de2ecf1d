/**
 * An account is bound to the service its rows and jobs come from (issue 41's trap: a mirror
 * filled from the sandbox, then run with INVOICING_API_URL no longer exported, sent the sandbox's
 * queued sends to the real service's URL). Here: `default` is bound by its first pull that the
 * service answered; jobs carry their service from insert (plain SQL too); a process whose settings
 * point the account elsewhere refuses, in one line naming both, and sends nothing (a second
 * sandbox at another address stands for "elsewhere" and counts its calls); a job queued for
 * another service fails unsent; `accounts rebind` moves the account on purpose; an account added
 * with `--api-url` is bound to it.
 */
import { resolveAccounts } from '../../src/accounts/resolve.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullAccount } from '../../src/accounts/pull.js';
import type { App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createApiClient } from '../../src/service-client.js';
import { runCli } from '../support/cli.js';
import { useDaemons } from '../support/daemon.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const REAL = 'https://www.factuursturen.nl/api/v1';
const SECRET = 'a service test master secret, long enough';
let sandbox: Sandbox;
let elsewhere: Sandbox;
const db = () => database.current.handle.db;
const startDaemon = useDaemons(() => ({ ...database.current.env, ACCOUNTS_SECRET: SECRET, LOG_LEVEL: 'info' }));

beforeAll(async () => {
  const data = { perEntity: { clients: 8, products: 6, quotations: 4, saved_invoices: 8, repeating_invoices: 2 } };
  sandbox = await startSandbox({ seed: 3, ...data, sendMsPerInvoice: 10 });
  // The same data at another address: what arrives there shows what would have been sent.
  elsewhere = await startSandbox({ seed: 3, ...data, sendMsPerInvoice: 10 });
});

afterAll(async () => {
  await sandbox?.close();
  await elsewhere?.close();
});

/** A command with only the settings given (the INVOICING_API_* ones unset unless given). */
const cli = (args: string[], settings: Record<string, string | undefined> = {}) =>
  runCli(args, {
    env: {
      ...database.current.env,
      INVOICING_API_URL: undefined,
      INVOICING_API_USER: undefined,
      INVOICING_API_KEY: undefined,
      ACCOUNTS_SECRET: SECRET,
      LOG_LEVEL: 'silent',
      ...settings,
    },
  });
const atSandbox = () => ({ INVOICING_API_URL: sandbox.url });
/** Real-looking credentials, so that only the address stands in the way. */
const atReal = { INVOICING_API_USER: 'someone', INVOICING_API_KEY: 'a-key-that-is-never-sent' };

const defaultAccount = () => resolveAccounts(db(), 'default', { one: true });
const jobs = () =>
  db()
    .selectFrom('jobs')
    .select(['id', 'status', 'attempts', 'service_url', 'last_error', 'errors'])
    .orderBy('id')
    .execute();
const writes = (box: Sandbox) => box.calls.filter((call) => call.method !== 'GET');

/** The line a process prints when its settings point `default` at `current` instead of the sandbox. */
const mismatchLine = (current: string) =>
  `invoice-mirror: account default: its rows and jobs are from the service at ${sandbox.url}, but INVOICING_API_URL points it at ${current}; nothing is sent there: set INVOICING_API_URL=${sandbox.url} again, or bind the account to ${current} on purpose with 'invoice-mirror accounts rebind default' (its jobs queued for ${sandbox.url} then fail unsent)\n`;

describe('an account bound to the service its rows come from', () => {
  it('a first pull the service did not answer binds nothing; the first it answered binds the account', async () => {
    const config = loadConfig({ INVOICING_API_URL: 'http://127.0.0.1:1/api/v1', MAX_RETRIES: '0' });
    const app: App = {
      config: { ...config, schema: database.current.schema },
      database: database.current.handle,
      close: async () => {},
    };
    const account = await defaultAccount();
    expect(account.service_url).toBeNull();
    const client = createApiClient(app, account);
    try {
      const outcome = await pullAccount(app, { account, client, options: { kind: 'backfill' } });
      expect(outcome.status).toBe('failed');
    } finally {
      await client.close();
    }
    expect((await defaultAccount()).service_url).toBeNull();

    const backfill = await cli(['backfill'], atSandbox());
    expect(backfill.code, backfill.stderr).toBe(0);
    expect((await defaultAccount()).service_url).toBe(sandbox.url);
  });

  it('jobs carry the service they were queued for, plain SQL inserts too', async () => {
    const added = await cli(['jobs', 'add', 'send_saved_invoices', '{"ids": [3, 4], "delete": true}']);
    expect(added.code, added.stderr).toBe(0);
    await sql`insert into jobs (kind, payload) values ('set_product_stock', '{"id": 2, "stock": 9}')`.execute(db());
    expect((await jobs()).map((job) => job.service_url)).toEqual([sandbox.url, sandbox.url]);
  });

  it('with INVOICING_API_URL unset, jobs run and sync refuse in one line naming both, and try nothing', async () => {
    const started = performance.now();
    const runs = await db().selectFrom('sync_runs').select('id').execute();
    for (const args of [['jobs', 'run'], ['sync'], ['backfill']]) {
      const result = await cli(args, atReal);
      expect({ code: result.code, stderr: result.stderr }, args.join(' ')).toEqual({
        code: 2,
        stderr: mismatchLine(REAL),
      });
    }
    // At once: no name was looked up, no connection tried (before, 12 attempts over 45 s).
    expect(performance.now() - started).toBeLessThan(15_000);
    for (const job of await jobs())
      expect(job).toMatchObject({ status: 'queued', attempts: 0, last_error: null, errors: [] });
    expect(await db().selectFrom('sync_runs').select('id').execute()).toEqual(runs);
  });

  it('pointed at another service that answers, nothing reaches it: not jobs, not pulls, not the daemon', async () => {
    const other = { INVOICING_API_URL: elsewhere.url };
    elsewhere.clearCalls();
    for (const args of [['jobs', 'run'], ['sync']])
      expect(await cli(args, other), args.join(' ')).toMatchObject({ code: 2, stderr: mismatchLine(elsewhere.url) });
    const daemon = await startDaemon(other).catch((error: unknown) => error as Error);
    expect(String(daemon)).toContain(mismatchLine(elsewhere.url).trim());
    expect(elsewhere.calls).toEqual([]);
    expect((await jobs()).every((job) => job.status === 'queued' && job.attempts === 0)).toBe(true);
  });

  it('a job queued for another service fails unsent, naming both; the others run where they were queued for', async () => {
    await sql`insert into jobs (kind, payload, service_url) values ('set_product_stock', '{"id": 3, "stock": 4}', ${elsewhere.url})`.execute(
      db(),
    );
    sandbox.clearCalls();
    elsewhere.clearCalls();
    const run = await cli(['jobs', 'run'], atSandbox());
    expect(run.code).toBe(1);
    const [send, stock, foreign] = await jobs();
    expect(send!.status).toBe('succeeded');
    expect(stock!.status).toBe('succeeded');
    expect(foreign).toMatchObject({
      status: 'failed',
      attempts: 0,
      last_error: `queued for the service at ${elsewhere.url}, but its account is bound to ${sandbox.url} now; nothing was sent: queue it again if it applies there`,
    });
    expect(run.stdout).toContain(
      `job ${foreign!.id} set_product_stock: failed (queued for the service at ${elsewhere.url}`,
    );
    // The send and the stock change were made; nothing for the foreign job (product 3).
    expect(writes(sandbox)).toHaveLength(2);
    expect(writes(sandbox).some((call) => call.path.includes('/products/3'))).toBe(false);
    expect(elsewhere.calls).toEqual([]);
    expect(sandbox.store.get('products', 3)?.stock).not.toBe(4);
  });

  it('accounts rebind moves the account on purpose: its queued jobs for the old service fail unsent, the new one serves it', async () => {
    await cli(['jobs', 'add', 'set_product_stock', '{"id": 5, "stock": 11}']);
    const rebind = await cli(['accounts', 'rebind', 'default'], { INVOICING_API_URL: elsewhere.url });
    expect(rebind.code, rebind.stderr).toBe(0);
    expect(rebind.stdout).toMatch(
      new RegExp(
        `^account default bound to ${elsewhere.url.replace(/[.]/g, '\\.')} \\(was ${sandbox.url.replace(/[.]/g, '\\.')}\\); 1 queued job for the old service failed unsent; its \\d+ records came from the old service: `,
      ),
    );
    const last = (await jobs()).at(-1)!;
    expect(last).toMatchObject({ status: 'failed', attempts: 0 });
    expect(last.last_error).toContain(`queued for the service at ${sandbox.url}`);
    expect((await cli(['accounts', 'rebind', 'default'], { INVOICING_API_URL: elsewhere.url })).stdout).toBe(
      `account default is bound to ${elsewhere.url} already\n`,
    );
    // Now the old address is the other service.
    expect(await cli(['sync'], atSandbox())).toMatchObject({ code: 2 });
    elsewhere.clearCalls();
    // Pulled from the new service (its rows differ from the old one's: the sandbox's jobs ran there only).
    const pulled = await cli(['sync'], { INVOICING_API_URL: elsewhere.url });
    expect(pulled.stdout).toMatch(/^run \d+: (succeeded|partial)/m);
    expect(elsewhere.calls.length).toBeGreaterThan(0);
    await cli(['jobs', 'add', 'set_product_stock', '{"id": 5, "stock": 12}'], { INVOICING_API_URL: elsewhere.url });
    expect((await cli(['jobs', 'run'], { INVOICING_API_URL: elsewhere.url })).code).toBe(0);
    expect(elsewhere.store.get('products', 5)?.stock).toBe(12);
    expect(sandbox.store.get('products', 5)?.stock).not.toBe(11);
    expect((await jobs()).at(-1)).toMatchObject({ status: 'succeeded', service_url: elsewhere.url });
  });

  it('an account added with --api-url is bound to it; given another address later, it waits for a rebind', async () => {
    const key = { A_KEY: 'sandbox' };
    const add = await cli(
      ['accounts', 'add', 'acme', '--api-user', 'sandbox', '--api-key-env', 'A_KEY', '--api-url', sandbox.url],
      key,
    );
    expect(add.code, add.stderr).toBe(0);
    expect((await resolveAccounts(db(), 'acme', { one: true })).service_url).toBe(sandbox.url);
    expect((await cli(['sync', '--account', 'acme'])).code).toBe(0);
    const moved = await cli(
      ['accounts', 'add', 'acme', '--api-user', 'sandbox', '--api-key-env', 'A_KEY', '--api-url', elsewhere.url],
      key,
    );
    expect(moved.stdout).toBe(`updated account acme (user sandbox at ${elsewhere.url}; key stored sealed)\n`);
    expect(moved.stderr).toContain(`account acme's rows and jobs are from the service at ${sandbox.url}`);
    elsewhere.clearCalls();
    const refused = await cli(['sync', '--account', 'acme']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `invoice-mirror: account acme: its rows and jobs are from the service at ${sandbox.url}, but its api_url is now ${elsewhere.url}; nothing is sent there: give it back its address with 'invoice-mirror accounts add acme --api-url ${sandbox.url} …', or bind the account to ${elsewhere.url} on purpose with 'invoice-mirror accounts rebind acme' (its jobs queued for ${sandbox.url} then fail unsent)\n`,
    );
    expect(elsewhere.calls).toEqual([]);
    // Of several accounts served at once, the one that cannot be is named and the others are pulled.
    const all = await cli(['sync'], { INVOICING_API_URL: elsewhere.url });
    expect(all.code).toBe(1);
    expect(all.stderr).toMatch(
      /^invoice-mirror: account acme: its rows and jobs are from the service at .*; it is not pulled\n$/,
    );
    expect(all.stdout).toMatch(/^run \d+: succeeded/m);
  });
});
