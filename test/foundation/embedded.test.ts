/**
 * The default database, with no DATABASE_URL: the embedded PostgreSQL server of EMBEDDED_DB_DIR,
 * shared by every process that uses the directory, started by the first and stopped by the last.
 */
import { resolveAccounts } from '../../src/accounts/resolve.js';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { jsonb, migrate, openDatabase } from '../../src/db/index.js';
import { DEFAULT_ACCOUNT, ensureDefaultAccount } from '../../src/accounts/store.js';
import { runCli } from '../support/cli.js';
import { useDaemons, waitFor } from '../support/daemon.js';
import { useSandbox } from '../support/sandbox.js';
import { embeddedDbParent } from '../support/test-database.js';

const dir = embeddedDbParent('im-embedded-');
const dbDir = join(dir, 'db');
const box = useSandbox({
  perEntity: { clients: 300, products: 120, quotations: 60, saved_invoices: 60, repeating_invoices: 10 },
});
/** A command on the embedded database of this file, as a user without DATABASE_URL runs it. */
const embeddedEnv = () => ({
  DATABASE_URL: undefined,
  EMBEDDED_DB_DIR: dbDir,
  INVOICING_API_URL: box.sandbox.url,
  PAGE_SIZE: '25',
  LOG_LEVEL: 'warn',
});
const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
  runCli(args, { env: { ...embeddedEnv(), ...extra } });
const startDaemon = useDaemons(embeddedEnv);

/** Whether a server is running on the directory (its pid file names a live process). */
function serverRunning(): boolean {
  try {
    const pid = Number(readFileSync(join(dbDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

afterAll(async () => {
  // Whatever a failed test left: stop the server before its directory goes.
  const handle = await openDatabase({
    databaseUrl: undefined,
    embeddedDbDir: dbDir,
    schema: 'invoicing',
    create: false,
  }).catch(() => undefined);
  await handle?.close();
  await waitFor('the embedded server to stop', async () => !serverRunning(), 30_000).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('the embedded database', () => {
  it('a read-only command where there is none says so and creates nothing', async () => {
    const missing = join(dir, 'elsewhere', 'db');
    for (const args of [['status'], ['sql', 'select 1'], ['report', 'open_quotations'], ['jobs', 'list']]) {
      const result = await cli(args, { EMBEDDED_DB_DIR: missing });
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `invoice-mirror: no embedded database in ${missing}; run 'invoice-mirror migrate' (or sync, backfill, daemon) to create one there, or run from the directory that holds it, or set EMBEDDED_DB_DIR or DATABASE_URL`,
      );
    }
    expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
  });

  it('a directory that cannot be made is one line naming the settings to change', async () => {
    const impossible = '/dev/null/invoice-mirror/db';
    const result = await cli(['migrate'], { EMBEDDED_DB_DIR: impossible });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `invoice-mirror: cannot create the embedded database in ${impossible} (ENOTDIR); set EMBEDDED_DB_DIR to a directory you can write, or DATABASE_URL to a PostgreSQL server\n`,
    );
  });

  it('a missing credential is reported before any database is created', async () => {
    const missing = join(dir, 'not-yet', 'db');
    const result = await cli(['sync'], {
      EMBEDDED_DB_DIR: missing,
      INVOICING_API_URL: 'https://invoicing.example/api/v1',
      INVOICING_API_USER: 'someone',
      INVOICING_API_KEY: undefined,
    });
    expect(result.code).toBe(2);
    // The line names the account that needs it: the `default` the first pull of a new mirror makes.
    expect(result.stderr).toBe(
      "invoice-mirror: account default: INVOICING_API_KEY: is required (the API key of the invoicing service), as the account has no credentials of its own; set INVOICING_API_USER and INVOICING_API_KEY, or store the account's own with 'invoice-mirror accounts add default --api-user … --api-key-stdin' (that needs ACCOUNTS_SECRET, under which the key is then stored sealed)\n",
    );
    expect(existsSync(join(dir, 'not-yet'))).toBe(false);
  });

  it('migrate creates it and prints where it is; the server stops when the last command is done', async () => {
    const result = await cli(['migrate']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`schema invoicing is up to date in the embedded database in ${dbDir}\n`);
    const status = await cli(['status']);
    expect(status.stdout.split('\n')[0]).toBe(`Mirror in the embedded database in ${dbDir}, schema invoicing`);
    await waitFor('the server to stop after the command', async () => !serverRunning(), 20_000);

    // In-process too: migrations, a row kept across a reopen.
    const options = { databaseUrl: undefined, embeddedDbDir: dbDir, schema: 'invoicing' };
    const first = await openDatabase(options);
    expect(first.kind).toBe('embedded');
    expect(await migrate(first.db, 'invoicing')).toEqual([]);
    await ensureDefaultAccount(first.db);
    const { id: accountId } = await resolveAccounts(first.db, DEFAULT_ACCOUNT, { one: true });
    const inserted = await first.db
      .insertInto('jobs')
      .values({
        account_id: accountId,
        kind: 'set_product_stock',
        payload: jsonb({ id: 7, stock: 2.5 }),
        status: 'cancelled',
      })
      .returning(['id'])
      .executeTakeFirstOrThrow();
    await first.close();
    const second = await openDatabase(options);
    const job = await second.db.selectFrom('jobs').selectAll().where('id', '=', inserted.id).executeTakeFirstOrThrow();
    expect(job.payload).toEqual({ id: 7, stock: 2.5 });
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from schema_migrations`.execute(second.db);
    expect(rows[0]!.n).toBe(migrations.length);
    await second.close();
  });

  it('two backfills at once: no duplicate key, and each ends succeeded or says why it did not run', async () => {
    box.sandbox.knobs.latencyMs = 5;
    try {
      const [a, b] = await Promise.all([cli(['backfill']), cli(['backfill'])]);
      for (const result of [a, b]) {
        expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
        if (result.code !== 0) expect(result.stderr).toMatch(/^invoice-mirror: .*(another|already|running)/m);
      }
      expect([a.code, b.code]).toContain(0);
    } finally {
      box.sandbox.knobs.latencyMs = 0;
    }
    const handle = await openDatabase({
      databaseUrl: undefined,
      embeddedDbDir: dbDir,
      schema: 'invoicing',
      create: false,
    });
    try {
      for (const table of ['clients', 'products', 'quotations'] as const) {
        const { rows } = await sql<{ rows: number; keys: number }>`
          select count(*)::int as rows, count(distinct ${sql.ref(table === 'clients' ? 'clientnr' : 'id')})::int as keys
          from ${sql.table(table)}`.execute(handle.db);
        expect(rows[0]).toEqual({
          rows: box.sandbox.store.list(table).length,
          keys: box.sandbox.store.list(table).length,
        });
      }
    } finally {
      await handle.close();
    }
  }, 120_000);

  it('sql refuses delete, create table and commit; delete, and changes nothing', async () => {
    const before = await cli(['sql', 'select count(*)::int as n from clients', '--format', 'json']);
    expect(before.code).toBe(0);
    for (const query of ['delete from clients', 'create table scratch (a int)', 'commit; delete from clients']) {
      const result = await cli(['sql', query]);
      expect(result.code, query).not.toBe(0);
      expect(result.stderr).toMatch(
        /^invoice-mirror: (query failed: cannot execute \w+( TABLE)? in a read-only transaction|sql: one statement only)/,
      );
    }
    const after = await cli([
      'sql',
      "select count(*)::int as n, to_regclass('scratch') as scratch from clients",
      '--format',
      'json',
    ]);
    expect(JSON.parse(after.stdout)).toEqual([{ ...JSON.parse(before.stdout)[0], scratch: null }]);
  });

  it('a job queued by another process while the daemon runs is picked up at once (NOTIFY)', async () => {
    const daemon = await startDaemon({ LOG_LEVEL: 'info' });
    const added = await cli(['jobs', 'add', 'set_product_stock', '{"id": 1, "stock": 11}']);
    expect(added.code).toBe(0);
    const id = Number(added.stdout.trim());
    await waitFor('the daemon to run the job', async () => {
      const shown = await cli(['jobs', 'show', String(id), '--format', 'json']);
      return JSON.parse(shown.stdout).status === 'succeeded';
    });
    expect(serverRunning()).toBe(true);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    await waitFor('the server to stop after the daemon', async () => !serverRunning(), 20_000);
  }, 60_000);
});
