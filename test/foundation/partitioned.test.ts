/**
 * The mirror on tables hash-partitioned by account (scripts/partition-by-account.mjs, see
 * docs/scaling.md) works as on plain tables. Two schemas, each with a sandbox of its own (the same
 * seed, so the same data): one stays plain, the other is partitioned once its backfill is in (so
 * the script copies rows and the sequences must carry on). Then the same churn upstream, a second
 * sync and the same jobs go to both, and every mirror table, the changes and every report view
 * come out the same per account. The partitioned schema keeps every column, constraint, index,
 * comment, trigger, policy, grant and view of the plain one.
 */
import { resolveAccounts } from '../../src/accounts/resolve.js';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forEachAccount, pullAccount } from '../../src/accounts/pull.js';
import { purgeAccount } from '../../src/accounts/purge.js';
import { sealKey } from '../../src/accounts/secret.js';
import type { App } from '../../src/app.js';
import { ENTITY_NAMES, REPORTS } from '../../src/catalog/index.js';
import { loadConfig } from '../../src/config.js';
import { migrate } from '../../src/db/index.js';
import { addJob, createAccountRunner } from '../../src/jobs/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createApiClient } from '../../src/service-client.js';
import type { SyncOptions } from '../../src/sync/index.js';
import { useTestDatabase, type TestDatabase } from '../support/test-database.js';

const SECRET = 'a test master secret of more than 32 characters';
const SCRIPT = fileURLToPath(new URL('../../scripts/partition-by-account.mjs', import.meta.url));
const NAMES = ['client-1', 'client-2', 'client-3'];
/** Tables with account_id that stay plain: shared by the accounts, or (jobs) with a trigger that sets account_id. */
const NOT_PARTITIONED = ['accounts', 'account_roles', 'jobs', 'webhook_subscriptions'];

interface Mirror {
  database: { current: TestDatabase };
  sandbox: Sandbox;
  app: App;
}

const databases = { plain: useTestDatabase(), partitioned: useTestDatabase() };
const mirrors = {} as Record<keyof typeof databases, Mirror>;
const both = () => [mirrors.plain, mirrors.partitioned];
const db = (mirror: Mirror) => mirror.database.current.handle.db;
let scriptOutput = '';
let sequencesBefore: unknown[] = [];

beforeAll(async () => {
  for (const [key, database] of Object.entries(databases)) {
    mirrors[key as keyof typeof databases] = await mirrorOf(database);
    // A grant on a table and on a column, which the partitioned table must keep.
    await sql`grant select on clients to public`.execute(database.current.handle.db);
    await sql`grant select (code) on products to public`.execute(database.current.handle.db);
  }
  for (const mirror of both()) await pullEvery(mirror, { kind: 'backfill' });
  sequencesBefore = await sequences(mirrors.partitioned);
  scriptOutput = await partition(mirrors.partitioned.database.current);
}, 120_000);

afterAll(async () => {
  for (const mirror of both()) await mirror?.sandbox.close();
});

/** A sandbox of three accounts, each added to the mirror with its key sealed. */
async function mirrorOf(database: { current: TestDatabase }): Promise<Mirror> {
  const sandbox = await startSandbox({
    accounts: 3,
    seed: 31,
    perEntity: { clients: 12, products: 8, quotations: 10, saved_invoices: 10, repeating_invoices: 5 },
  });
  const config = loadConfig({
    INVOICING_API_URL: sandbox.url,
    ACCOUNTS_SECRET: SECRET,
    MAX_RETRIES: '1',
    PAGE_SIZE: '10',
    JOB_POLL_INTERVAL_MS: '60000',
  });
  const { handle, schema } = database.current;
  for (const [i, slot] of sandbox.accounts.entries()) {
    const values = {
      name: NAMES[i]!,
      api_url: sandbox.url,
      api_user: slot.user,
      api_key: sealKey(slot.apiKey, SECRET),
    };
    await handle.db.insertInto('accounts').values(values).execute();
  }
  return { database, sandbox, app: { config: { ...config, schema }, database: handle, close: async () => {} } };
}

async function pullEvery(mirror: Mirror, options: SyncOptions): Promise<void> {
  const accounts = await Promise.all(NAMES.map((name) => resolveAccounts(db(mirror), name, { one: true })));
  const results = await forEachAccount(accounts, 3, async (account) => {
    const client = createApiClient(mirror.app, account);
    try {
      return await pullAccount(mirror.app, { account, client, options });
    } finally {
      await client.close();
    }
  });
  for (const result of results) {
    if (result.status === 'rejected') throw result.reason;
    expect(result.value.status).toBe('succeeded');
  }
}

async function partition(database: TestDatabase, ...args: string[]): Promise<string> {
  const env = { ...process.env, DATABASE_URL: database.url, MIRROR_SCHEMA: database.schema };
  const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT, ...args], { env });
  return stdout;
}

async function sequences(mirror: Mirror): Promise<unknown[]> {
  const { rows } = await sql`
    select sequencename, last_value from pg_sequences where schemaname = current_schema() order by 1`.execute(
    db(mirror),
  );
  return rows;
}

/** Runs one job of each kind given, queued for the account, through that account's runner. */
async function runJob(mirror: Mirror, name: string, job: Parameters<typeof addJob>[2]): Promise<void> {
  const account = await resolveAccounts(db(mirror), name, { one: true });
  await addJob(db(mirror), account.id, job);
  const open = await createAccountRunner(mirror.app, account, { backoff: { baseMs: 50, maxMs: 100 } });
  try {
    expect(await open.runner.runUntilEmpty()).toEqual({ ran: 1, failed: 0 });
  } finally {
    await open.close();
  }
}

/** The same work after the backfill: churn upstream, a sync, a job in two accounts. */
async function sameWork(mirror: Mirror): Promise<void> {
  for (const slot of mirror.sandbox.accounts) slot.store.churn(8);
  await pullEvery(mirror, { kind: 'sync' });
  const [client] = mirror.sandbox.accounts[0]!.store.list('clients');
  await runJob(mirror, 'client-1', {
    kind: 'update_client',
    payload: { clientnr: Number(client!.clientnr), changes: { city: 'Zwolle' } },
  });
  const [product] = mirror.sandbox.accounts[1]!.store.list('products');
  await runJob(mirror, 'client-2', { kind: 'set_product_stock', payload: { id: Number(product!.id), stock: 42 } });
}

/**
 * The relation's rows, by account name, without the columns that differ by when they were written
 * or by the order of the accounts' runs, which are pulled side by side (times and run ids).
 */
async function rowsOf(mirror: Mirror, relation: string, leaveOut: readonly string[] = []): Promise<string[]> {
  const { rows: columns } = await sql<{ name: string }>`
    select column_name as name from information_schema.columns
     where table_schema = current_schema() and table_name = ${relation}
       and (data_type in ('timestamp with time zone', 'interval') or column_name like '%run\_id'
            or column_name = any(${leaveOut}::text[]))`.execute(db(mirror));
  const skipped = columns.map((column) => column.name);
  const { rows } = await sql<{ row: unknown }>`
    select to_jsonb(r) - ${skipped}::text[] - 'account_id' || jsonb_build_object('account', a.name) as row
      from ${sql.table(relation)} r left join accounts a on a.id = r.account_id`.execute(db(mirror));
  return rows.map((row) => JSON.stringify(row.row)).sort();
}

/**
 * What the schema holds of its tables and views, by name, with the schema's name taken out:
 * partitions are left out, and a partitioned table's index is printed `ON ONLY`.
 */
async function shapeOf(mirror: Mirror): Promise<unknown> {
  const { rows } = await sql<{ shape: unknown }>`
    select jsonb_object_agg(c.relname, jsonb_build_object(
      'kind', case when c.relkind = 'p' then 'r' else c.relkind end, 'owner', pg_get_userbyid(c.relowner),
      'comment', obj_description(c.oid, 'pg_class'), 'acl', c.relacl::text, 'options', c.reloptions,
      'rls', c.relrowsecurity, 'view', case when c.relkind = 'v' then pg_get_viewdef(c.oid) end,
      'columns', (select jsonb_agg(jsonb_build_array(a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
                                    pg_get_expr(d.adbin, d.adrelid), col_description(c.oid, a.attnum), a.attacl::text,
                                    a.attidentity, a.attgenerated, a.attstorage, a.attcompression) order by a.attnum)
                    from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
                   where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped),
      'constraints', (select jsonb_object_agg(co.conname, jsonb_build_array(pg_get_constraintdef(co.oid), co.convalidated,
                                              obj_description(co.oid, 'pg_constraint')))
                        from pg_constraint co where co.conrelid = c.oid and co.contype <> 'n'),
      'indexes', (select jsonb_object_agg(ic.relname, jsonb_build_array(replace(pg_get_indexdef(i.indexrelid), ' ON ONLY ', ' ON '),
                                          obj_description(i.indexrelid, 'pg_class')))
                    from pg_index i join pg_class ic on ic.oid = i.indexrelid where i.indrelid = c.oid),
      'triggers', (select jsonb_object_agg(t.tgname, jsonb_build_array(pg_get_triggerdef(t.oid), t.tgenabled))
                     from pg_trigger t where t.tgrelid = c.oid and not t.tgisinternal),
      'policies', (select jsonb_object_agg(p.polname, jsonb_build_array(p.polcmd, p.polroles::text,
                                           pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)))
                     from pg_policy p where p.polrelid = c.oid))) as shape
      from pg_class c
     where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p', 'v') and not c.relispartition`.execute(
    db(mirror),
  );
  return JSON.parse(JSON.stringify(rows[0]!.shape).replaceAll(`${mirror.database.current.schema}.`, 'SCHEMA.'));
}

async function partitionedTables(mirror: Mirror): Promise<{ name: string; strategy: string; key: string }[]> {
  const { rows } = await sql<{ name: string; strategy: string; key: string }>`
    select c.relname as name, pt.partstrat as strategy, a.attname as key
      from pg_partitioned_table pt join pg_class c on c.oid = pt.partrelid
      join pg_attribute a on a.attrelid = pt.partrelid and a.attnum = pt.partattrs[0]
     where c.relnamespace = current_schema()::regnamespace order by c.relname`.execute(db(mirror));
  return rows;
}

async function tablesWithAccount(mirror: Mirror): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c
     where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and not c.relispartition
       and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id')
     order by 1`.execute(db(mirror));
  return rows.map((row) => row.name);
}

describe('the mirror hash-partitioned by account', () => {
  it('partitions every per-account table but the shared ones and jobs, keeping everything of them', async () => {
    const partitioned = await partitionedTables(mirrors.partitioned);
    const expected = (await tablesWithAccount(mirrors.partitioned)).filter((name) => !NOT_PARTITIONED.includes(name));
    expect(expected).toEqual(
      expect.arrayContaining([...ENTITY_NAMES, 'document_lines', 'changes', 'sync_runs', 'entity_pulls']),
    );
    expect(partitioned).toEqual(expected.map((name) => ({ name, strategy: 'h', key: 'account_id' })));
    expect(scriptOutput).toContain('clients: 8 partitions, ');
    expect(scriptOutput).toMatch(/^jobs: left as it is: its BEFORE ROW trigger \(jobs_account[,)]/m);
    // Every column, constraint, index, comment, trigger, policy, grant and view as in the plain schema.
    expect(await shapeOf(mirrors.partitioned)).toEqual(await shapeOf(mirrors.plain));
    // The sequences carry on from where they were, and the schema needs no migration.
    expect(await sequences(mirrors.partitioned)).toEqual(sequencesBefore);
    expect(await migrate(db(mirrors.partitioned), mirrors.partitioned.database.current.schema)).toEqual([]);
    // Run again, it finds every table partitioned already and changes nothing.
    expect(await partition(mirrors.partitioned.database.current, '--dry-run')).toMatch(
      /^clients: already partitioned, left as it is$/m,
    );
  });

  it('the same work gives the same rows in every mirror table, the same changes and the same reports', async () => {
    for (const mirror of both()) await sameWork(mirror);
    for (const table of [...ENTITY_NAMES, 'document_lines', 'entity_pulls', 'held_deletes', 'rejected_values']) {
      const [plain, partitioned] = await Promise.all(both().map((mirror) => rowsOf(mirror, table)));
      expect(partitioned, table).toEqual(plain);
    }
    expect(await rowsOf(mirrors.partitioned, 'document_lines')).not.toHaveLength(0);
    // Ids of changes come from a sequence shared by accounts pulled side by side: they differ.
    const changes = await Promise.all(both().map((m) => rowsOf(m, 'changes', ['id'])));
    expect(changes[1]).toEqual(changes[0]);
    expect(changes[0]!.some((row) => row.includes('"op":"update"'))).toBe(true);
    // service_url too: each mirror's sandbox has an address of its own.
    const jobs = await Promise.all(
      both().map((m) => rowsOf(m, 'jobs', ['id', 'result', 'errors', 'idempotency_key', 'last_error', 'service_url'])),
    );
    expect(jobs[1]).toEqual(jobs[0]);
    for (const report of REPORTS) {
      const [plain, partitioned] = await Promise.all(both().map((mirror) => rowsOf(mirror, report.name)));
      expect(partitioned, report.name).toEqual(plain);
    }
  });

  it("spreads the accounts over the partitions, each account's rows in one of them", async () => {
    const { rows } = await sql<{ account_id: number; partitions: number }>`
      select account_id, count(distinct tableoid)::int as partitions from clients group by account_id`.execute(
      db(mirrors.partitioned),
    );
    expect(rows).toHaveLength(NAMES.length);
    expect(rows.every((row) => row.partitions === 1)).toBe(true);
    const { rows: spread } = await sql<{ n: number }>`
      select count(distinct tableoid)::int as n from clients`.execute(db(mirrors.partitioned));
    expect(spread[0]!.n).toBeGreaterThan(1);
  });

  it('purges an account from the partitioned tables, each named once', async () => {
    const plan = await purgeAccount(db(mirrors.partitioned), 'client-3');
    const tables = plan.tables.map((table) => table.table);
    expect(tables).toEqual(expect.arrayContaining(['clients', 'changes', 'jobs']));
    expect(tables.filter((table) => /_p\d+$/.test(table))).toEqual([]);
    const { rows } = await sql<{ n: number }>`
      select (select count(*) from clients where account_id = ${plan.account.id})::int as n`.execute(
      db(mirrors.partitioned),
    );
    expect(rows[0]!.n).toBe(0);
    expect(plan.tables.find((table) => table.table === 'clients')!.rows).toBeGreaterThan(0);
  });
});
