import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../support/cli.js';
import { useSandbox } from '../support/sandbox.js';
import { dropSchema, embeddedDbParent, lastSyncRun, uniqueSchema, useTestDatabase } from '../support/test-database.js';
import { ENTITY_NAMES } from '../../src/catalog/index.js';
import { ABANDONED_PULL } from '../../src/db/index.js';

const database = useTestDatabase();
const env = useSandbox({
  perEntity: { clients: 120, products: 120, quotations: 120, saved_invoices: 120, repeating_invoices: 120 },
});
const dirs: string[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const schema of schemas) await dropSchema(database.current.url, schema);
});

/**
 * A mirror of its own (a schema the command creates), for a pull from another address than the
 * sandbox: the file's mirror holds the sandbox's rows, and refuses to be pulled from elsewhere.
 */
function otherMirror(): Record<string, string> {
  const schema = uniqueSchema('other');
  schemas.push(schema);
  return { ...database.current.env, MIRROR_SCHEMA: schema };
}

const apiEnv = () => ({ INVOICING_API_URL: env.sandbox.url, PAGE_SIZE: '20' });

describe('backfill and sync commands', () => {
  it('backfill rejects an unknown entity with exit code 2', async () => {
    const result = await runCli(['backfill', '--only', 'clients,payments'], {
      env: { ...database.current.env, ...apiEnv() },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "invoice-mirror: --only: unknown entity 'payments' (known: countries, taxes, categories, clients, products, quotations, saved_invoices, repeating_invoices, invoices)",
    );
  });

  it('survives being killed mid-backfill: tables stay consistent and the next run completes the work', async () => {
    const { db } = database.current.handle;
    env.sandbox.knobs.latencyMs = 25;
    env.sandbox.clearCalls();
    const child = spawn(process.execPath, [CLI_PATH, 'backfill'], {
      env: { ...process.env, ...database.current.env, ...apiEnv(), LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    // Kill it without warning once it is well into the pull.
    while (env.sandbox.calls.length < 12) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('close', resolve));
    env.sandbox.knobs.latencyMs = 0;

    const running = await db.selectFrom('sync_runs').select(['id', 'status']).execute();
    expect(running.map((r) => r.status)).toEqual(['running']);
    // Whatever was written is whole: every row has its changes row, every document its lines.
    const orphans = await sql<{ n: number }>`
      select count(*)::int as n from clients c where not exists (select 1 from changes x where x.entity = 'clients' and x.entity_id = c.clientnr::text)`.execute(
      db,
    );
    expect(orphans.rows[0]!.n).toBe(0);

    const again = await runCli(['backfill'], { env: { ...database.current.env, ...apiEnv() } });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/run \d+: succeeded/);
    const runs = await db.selectFrom('sync_runs').select(['status', 'error']).orderBy('id').execute();
    expect(runs[0]).toEqual({ status: 'failed', error: ABANDONED_PULL });
    expect(runs[1]!.status).toBe('succeeded');
    for (const entity of ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'] as const) {
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from ${sql.table(entity)} where deleted_at is null`.execute(db);
      expect(rows[0]!.n, entity).toBe(env.sandbox.store.list(entity).length);
    }
    const inserts = await sql<{
      n: number;
      d: number;
    }>`select count(*)::int as n, count(distinct (entity, entity_id))::int as d from changes where op = 'insert'`.execute(
      db,
    );
    expect(inserts.rows[0]!.n).toBe(inserts.rows[0]!.d);
  });

  it('Ctrl-C stops after the page being written, marks the run interrupted at once and says so; the next run resumes', async () => {
    const { db } = database.current.handle;
    await sql`truncate clients, products, quotations, saved_invoices, repeating_invoices, document_lines cascade`.execute(
      db,
    );
    env.sandbox.knobs.latencyMs = 25;
    env.sandbox.clearCalls();
    const child = spawn(process.execPath, [CLI_PATH, 'backfill'], {
      env: { ...process.env, ...database.current.env, ...apiEnv(), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    while (env.sandbox.calls.length < 12) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill('SIGINT');
    // Marked at once, before the process has even finished.
    let marked: string | undefined;
    for (let i = 0; i < 100 && marked !== 'interrupted'; i++) {
      const [run] = await db.selectFrom('sync_runs').select('status').orderBy('id', 'desc').limit(1).execute();
      marked = run?.status;
      if (marked !== 'interrupted') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(marked).toBe('interrupted');
    expect(await exited).toBe(130);
    env.sandbox.knobs.latencyMs = 0;
    expect(stderr).toBe('invoice-mirror: SIGINT: stopping after the page being written (again to exit at once)\n');
    expect(stdout).toMatch(
      new RegExp(
        `run \\d+: interrupted, \\d+ requests \\(interrupted \\(SIGINT\\): stopped after the page being written; running the command again pulls again, keeping what was written; \\d of ${ENTITY_NAMES.length} entities were pulled completely \\([^)]*\\)\\)\n$`,
      ),
    );
    const last = await lastSyncRun(db);
    expect(last.status).toBe('interrupted');
    expect(last.error).toMatch(/^interrupted \(SIGINT\)/);

    const again = await runCli(['backfill'], { env: { ...database.current.env, ...apiEnv() } });
    expect(again.stdout).toMatch(/run \d+: succeeded/);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from clients where deleted_at is null`.execute(
      db,
    );
    expect(rows[0]!.n).toBe(env.sandbox.store.list('clients').length);
  });

  it('a sync and a jobs run in two processes never call the service at the same time', async () => {
    const { db } = database.current.handle;
    const products = env.sandbox.store
      .list('products')
      .slice(0, 5)
      .map((r) => Number(r.id));
    for (const [i, id] of products.entries()) {
      await sql`insert into jobs (kind, payload) values ('set_product_stock', ${JSON.stringify({ id, stock: 10 + i })}::text::jsonb)`.execute(
        db,
      );
    }
    env.sandbox.knobs.latencyMs = 15;
    env.sandbox.clearCalls();
    try {
      const cliEnv = { ...database.current.env, ...apiEnv(), PAGE_SIZE: '10' };
      const [sync, jobs] = await Promise.all([
        runCli(['sync'], { env: cliEnv }),
        runCli(['jobs', 'run'], { env: cliEnv }),
      ]);
      expect(sync.code).toBe(0);
      expect(jobs.code, jobs.stderr + jobs.stdout).toBe(0);
      expect(env.sandbox.calls.filter((c) => c.method === 'PUT')).toHaveLength(5);
      expect(env.sandbox.calls.filter((c) => c.method === 'GET').length).toBeGreaterThan(60);
      expect(env.sandbox.maxConcurrency()).toBe(1);
    } finally {
      env.sandbox.knobs.latencyMs = 0;
    }
  });

  it('sync exits 0 and prints the counts', async () => {
    const result = await runCli(['sync'], { env: { ...database.current.env, ...apiEnv() } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/clients\s+120\s+0\s+0\s+0\s+0\s+0\s+120\s+yes/);
  });

  it('an API URL that answers 404 to every list is named as the likely cause', async () => {
    const wrong = env.sandbox.url.replace(/\/api\/v1$/, '/wrong/api/v1');
    const result = await runCli(['sync'], { env: { ...otherMirror(), INVOICING_API_URL: wrong } });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `every list answered 404 Not found: check INVOICING_API_URL (the service's API, ending in /api/v1; now ${wrong})\n`,
    );
  });

  it('exits 1 when a pull fails, on Postgres and on the embedded database', async () => {
    const unreachable = { INVOICING_API_URL: 'http://127.0.0.1:1/api/v1', MAX_RETRIES: '0' };
    const onPostgres = await runCli(['sync'], { env: { ...otherMirror(), ...unreachable } });
    expect(onPostgres.code).toBe(1);
    expect(onPostgres.stdout).toMatch(/run \d+: failed/);
    const dir = embeddedDbParent('im-embedded-fail-');
    dirs.push(dir);
    const embedded = await runCli(['sync'], {
      env: { DATABASE_URL: undefined, EMBEDDED_DB_DIR: join(dir, 'db'), ...unreachable },
      cwd: dir,
      timeoutMs: 120_000,
    });
    expect(embedded.stdout).toMatch(/run \d+: failed/);
    expect(embedded.code).toBe(1);
  }, 150_000);

  it('backfills into the embedded database when DATABASE_URL is unset', async () => {
    const dir = embeddedDbParent('im-embedded-sync-');
    dirs.push(dir);
    const embedded = { DATABASE_URL: undefined, EMBEDDED_DB_DIR: join(dir, 'db'), ...apiEnv(), PAGE_SIZE: '50' };
    const result = await runCli(['backfill', '--only', 'clients,quotations'], {
      env: embedded,
      cwd: dir,
      timeoutMs: 120_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const counts = await runCli(
      [
        'sql',
        "select (select count(*) from clients)::int as clients, (select count(*) from quotations)::int as quotations, (select count(*) from document_lines where document_type = 'quotation')::int as lines",
        '--format',
        'json',
      ],
      { env: embedded, cwd: dir },
    );
    const [row] = JSON.parse(counts.stdout) as Array<{ clients: number; quotations: number; lines: number }>;
    expect(row!.clients).toBe(120);
    expect(row!.quotations).toBe(120);
    expect(row!.lines).toBeGreaterThan(0);
  }, 150_000);
});

describe('the exit code and the run tell the truth', () => {
  it('held deletes: sync exits 1 and says how to release them; --allow-deletes applies them and exits 0', async () => {
    const cliEnv = { ...database.current.env, ...apiEnv() };
    expect((await runCli(['sync'], { env: cliEnv })).code).toBe(0);
    const gone = env.sandbox.store
      .list('repeating_invoices')
      .slice(0, 40)
      .map((r) => Number(r.id));
    for (const id of gone) env.sandbox.store.delete('repeating_invoices', id);
    const held = await runCli(['sync'], { env: cliEnv });
    expect(held.code).toBe(1);
    expect(held.stdout).toMatch(/run \d+: partial/);
    expect(held.stdout).toMatch(/40 deletes held \(run invoice-mirror sync --allow-deletes repeating_invoices/);
    const status = await runCli(['status'], { env: cliEnv });
    expect(status.stdout).toMatch(/Held deletes/);
    expect(status.stdout).toMatch(/repeating_invoices\s+40\s.*invoice-mirror sync --allow-deletes repeating_invoices/);
    // Once the mirror holds another account (paused here), the hint names the account: without
    // --account the release would apply to every account's held deletes of the entity.
    const { db } = database.current.handle;
    await sql`insert into accounts (name, state) values ('other', 'paused')`.execute(db);
    const named = await runCli(['sync'], { env: cliEnv });
    expect(named.stdout).toMatch(
      /40 deletes held \(run invoice-mirror sync --account default --allow-deletes repeating_invoices if they are real\)/,
    );
    await sql`delete from accounts where name = 'other'`.execute(db);

    const released = await runCli(['sync', '--allow-deletes', 'repeating_invoices'], { env: cliEnv });
    expect(released.code).toBe(0);
    expect(released.stdout).toMatch(/repeating_invoices\s+\d+\s+0\s+0\s+40\s+0\s+0\s/);
    const bad = await runCli(['sync', '--allow-deletes', 'invoicez'], { env: cliEnv });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^invoice-mirror: --allow-deletes: unknown entity 'invoicez'/);
  });

  it('a page write that fails ends the run as failed with a one-line error, not a crash', async () => {
    const { db } = database.current.handle;
    await sql`create function refuse_products() returns trigger language plpgsql as $$
      begin raise exception 'products are read-only today'; end $$`.execute(db);
    await sql`truncate products cascade`.execute(db);
    await sql`create trigger refuse_products before insert or update on products for each row execute function refuse_products()`.execute(
      db,
    );
    try {
      const result = await runCli(['backfill', '--only', 'products'], {
        env: { ...database.current.env, ...apiEnv(), LOG_LEVEL: 'silent' },
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/run \d+: failed, \d+ requests? \(products: .*products are read-only today\)/);
      expect(result.stderr).toBe('');
      const run = await lastSyncRun(db);
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/^products: .*products are read-only today$/);
    } finally {
      await sql`drop trigger refuse_products on products`.execute(db);
      await sql`drop function refuse_products()`.execute(db);
    }
  });
});
