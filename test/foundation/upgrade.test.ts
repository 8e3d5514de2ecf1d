/**
 * Upgrading in place: a schema as the release before the catalogue built it (test/fixtures/
 * release-0009.sql, dumped from that release), with a record in it and a view of the user's own on
 * top of a report view, migrated by this version, equals a schema this version builds fresh; the
 * record and the user's view survive. Then the report views change the way a later release may
 * change them (a column appended; a column removed) and the user's view is kept or named.
 *
 * And a schema of the release before accounts (test/fixtures/release-0011.sql, dumped with rows in
 * every table) upgrades in place: its rows become the account `default`, the schema equals a fresh
 * one, and a second account holds rows with the same keys.
 */
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTS, type Report } from '../../src/catalog/index.js';
import { migrations } from '../../migrations/index.js';
import { migrate, openDatabase, type DatabaseHandle } from '../../src/db/index.js';
import { REPEATABLES, reportViewsOf, staleRepeatables } from '../../src/db/repeatable.js';
import { schemaShape } from '../support/schema-shape.js';
import { databaseUrl, dropSchema, uniqueSchema } from '../support/test-database.js';

const upgraded = uniqueSchema('upgraded');
const fresh = uniqueSchema('fresh');
let upgradedDb: DatabaseHandle;
let freshDb: DatabaseHandle;

const open = (schema: string) => openDatabase({ databaseUrl: databaseUrl(), embeddedDbDir: '', schema, poolSize: 2 });

/** Loads a release's dump under another schema name. */
async function loadDump(file: string, releaseSchema: string, schema: string): Promise<void> {
  const dump = readFileSync(new URL(`../fixtures/${file}`, import.meta.url), 'utf8');
  // The dump sets its own search_path for the session, so it runs on a connection of its own.
  const loader = postgres(databaseUrl(), { max: 1, onnotice: () => undefined });
  try {
    await loader.unsafe(dump.replaceAll(releaseSchema, schema));
  } finally {
    await loader.end();
  }
}

beforeAll(async () => {
  await loadDump('release-0009.sql', 'release_0009', upgraded);
  upgradedDb = await open(upgraded);
  freshDb = await open(fresh);
  await sql`insert into clients (clientnr, company, raw) values (7, 'Old BV', '{"clientnr": 7}')`.execute(
    upgradedDb.db,
  );
  await sql`create view my_clients as select client_number, client_name from client_overview`.execute(upgradedDb.db);
});

afterAll(async () => {
  await upgradedDb?.close();
  await freshDb?.close();
  await dropSchema(databaseUrl(), upgraded);
  await dropSchema(databaseUrl(), fresh);
});

describe('upgrading a schema the previous release built', () => {
  it('applies only what is new, and ends equal to a fresh schema, keeping records and the user’s views', async () => {
    const sinceRelease = migrations.slice(migrations.findIndex((m) => m.name === '0009_interrupted_runs') + 1);
    expect(await migrate(upgradedDb.db, upgraded)).toEqual([
      ...sinceRelease.map((m) => m.name),
      ...REPEATABLES.map((r) => r.name),
    ]);
    await migrate(freshDb.db, fresh);
    expect(await schemaShape(upgradedDb.db, upgraded, ['my_clients'])).toEqual(await schemaShape(freshDb.db, fresh));
    const { rows } = await sql<{ company: string }>`select company from clients where clientnr = 7`.execute(
      upgradedDb.db,
    );
    expect(rows).toEqual([{ company: 'Old BV' }]);
    const mine = await sql<{ client_name: string }>`select client_name from my_clients`.execute(upgradedDb.db);
    expect(mine.rows).toEqual([{ client_name: 'Old BV' }]);
    expect(await migrate(upgradedDb.db, upgraded)).toEqual([]);
  });

  it('a report view that gains a column is replaced in place: the user’s view on it survives', async () => {
    const appended = REPORTS.map(
      (report): Report =>
        report.name === 'client_overview'
          ? {
              ...report,
              select: `select *, 1 as added_column from (${report.select}) before`,
              columns: { ...report.columns, added_column: 'a column a later release appends' },
            }
          : report,
    );
    expect(await migrate(upgradedDb.db, upgraded, { repeatables: [reportViewsOf(appended)] })).toEqual([
      'report_views',
    ]);
    const { rows } = await sql<{ added_column: number }>`select added_column from client_overview`.execute(
      upgradedDb.db,
    );
    expect(rows).toEqual([{ added_column: 1 }]);
    const mine = await sql<{ client_name: string }>`select client_name from my_clients`.execute(upgradedDb.db);
    expect(mine.rows).toEqual([{ client_name: 'Old BV' }]);
  });

  it('a report view that loses a column names the user’s views in the way, and changes nothing', async () => {
    const removed = REPORTS.map((report): Report => {
      if (report.name !== 'client_overview') return report;
      const { monthly_recurring_amount: _, ...columns } = report.columns;
      return { ...report, select: `select ${Object.keys(columns).join(', ')} from (${report.select}) before`, columns };
    });
    const attempt = migrate(upgradedDb.db, upgraded, { repeatables: [reportViewsOf(removed)] });
    await expect(attempt).rejects.toThrow(
      new RegExp(`report view client_overview changed its columns and ${upgraded}\\.my_clients depends on it`),
    );
    const mine = await sql<{ client_name: string }>`select client_name from my_clients`.execute(upgradedDb.db);
    expect(mine.rows).toEqual([{ client_name: 'Old BV' }]);
    // With the user's view out of the way it goes through; our own view on it is created again.
    await sql`drop view my_clients`.execute(upgradedDb.db);
    await migrate(upgradedDb.db, upgraded, { repeatables: [reportViewsOf(removed)] });
    const columns = await sql<{ name: string }>`
      select column_name as name from information_schema.columns
       where table_schema = ${upgraded} and table_name = 'client_overview' order by ordinal_position`.execute(
      upgradedDb.db,
    );
    expect(columns.rows.map((row) => row.name)).not.toContain('monthly_recurring_amount');
    const dependent = await sql`select * from inactive_clients_with_open_documents`.execute(upgradedDb.db);
    expect(dependent.rows).toEqual([]);
  });
});

describe('upgrading a schema of the release before accounts, with rows in every table', () => {
  const before = uniqueSchema('release11');
  const scratch = uniqueSchema('fresh11');
  let beforeDb: DatabaseHandle;
  let scratchDb: DatabaseHandle;

  /** The tables with `account_id`, and their columns in order. */
  async function accountTables(): Promise<Map<string, string[]>> {
    const { rows } = await sql<{ table: string; columns: string[] }>`
      select c.table_name as table, array_agg(c.column_name::text order by c.ordinal_position) as columns
        from information_schema.columns c
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
       where c.table_schema = ${before} and t.table_type = 'BASE TABLE'
       group by c.table_name
      having bool_or(c.column_name = 'account_id')`.execute(beforeDb.db);
    return new Map(rows.map((row) => [row.table, row.columns]));
  }

  async function accountsOfRows(table: string): Promise<{ account_id: number; n: number }[]> {
    const { rows } = await sql<{ account_id: number; n: number }>`
      select account_id, count(*)::int as n from ${sql.table(table)} group by account_id order by account_id`.execute(
      beforeDb.db,
    );
    return rows;
  }

  beforeAll(async () => {
    await loadDump('release-0011.sql', 'release_0011', before);
    beforeDb = await open(before);
    scratchDb = await open(scratch);
    await migrate(scratchDb.db, scratch);
  });

  afterAll(async () => {
    await beforeDb?.close();
    await scratchDb?.close();
    await dropSchema(databaseUrl(), before);
    await dropSchema(databaseUrl(), scratch);
  });

  it('migrates in place: every row becomes account 1, default, the only account', async () => {
    const since = migrations.slice(migrations.findIndex((m) => m.name === '0011_invoice_pdfs') + 1);
    // What the release applied and this version changed (job_kinds, say, may be as it was).
    const stale = await staleRepeatables(beforeDb.db, before, REPEATABLES);
    expect(stale.map((r) => r.name)).toEqual(expect.arrayContaining(['report_views', 'row_security']));
    expect(await migrate(beforeDb.db, before)).toEqual([...since.map((m) => m.name), ...stale.map((r) => r.name)]);
    const accounts = await sql`select id, name, state from accounts`.execute(beforeDb.db);
    expect(accounts.rows).toEqual([{ id: 1, name: 'default', state: 'active' }]);
    const tables = await accountTables();
    // Every table the release had holds its rows still, all of them the default account's.
    expect([...tables.keys()].sort()).toEqual(
      [
        'account_leases',
        'account_roles',
        'categories',
        'changes',
        'clients',
        'coordination_locks',
        'countries',
        'document_lines',
        'entity_pulls',
        'events',
        'held_deletes',
        'invoice_pdfs',
        'invoices',
        'jobs',
        'list_caps',
        'payments',
        'products',
        'pull_cursors',
        'quotations',
        'rejected_values',
        'repeating_invoices',
        'saved_invoices',
        'sync_runs',
        'taxes',
        'webhook_attempts',
        'webhook_deliveries',
        'webhook_subscriptions',
      ].sort(),
    );
    for (const table of tables.keys()) {
      // New since, hence empty.
      if (
        [
          'account_roles',
          'categories',
          'coordination_locks',
          'events',
          'payments',
          'pull_cursors',
          'taxes',
          'webhook_attempts',
          'webhook_deliveries',
          'webhook_subscriptions',
        ].includes(table)
      )
        continue;
      const rows = await accountsOfRows(table);
      expect(
        rows.map((row) => row.account_id),
        table,
      ).toEqual([1]);
    }
    expect(await accountsOfRows('clients')).toEqual([{ account_id: 1, n: 3 }]);
    expect(await accountsOfRows('document_lines')).toEqual([{ account_id: 1, n: 2 }]);
  });

  it('then equals a schema this version builds fresh', async () => {
    expect(await schemaShape(beforeDb.db, before)).toEqual(await schemaShape(scratchDb.db, scratch));
    expect(await migrate(beforeDb.db, before)).toEqual([]);
  });

  it('the reports show the old rows as the default account’s', async () => {
    const { rows } = await sql`
      select client_number, client_name, account_id, account_name from client_overview order by client_number`.execute(
      beforeDb.db,
    );
    expect(rows).toEqual([
      { client_number: 1, client_name: 'Oud & Zonen', account_id: 1, account_name: 'default' },
      { client_number: 2, client_name: 'Bakkerij De Molen', account_id: 1, account_name: 'default' },
      { client_number: 3, client_name: 'Piet de Vries', account_id: 1, account_name: 'default' },
    ]);
    const overview = await sql`
      select account_name, records, queued_jobs, held_deletes, rejected_values from accounts_overview`.execute(
      beforeDb.db,
    );
    expect(overview.rows).toEqual([
      { account_name: 'default', records: 9, queued_jobs: 1, held_deletes: 1, rejected_values: 1 },
    ]);
  });

  it('a second account holds rows with the same keys as the first, in every table', async () => {
    const { id } = await beforeDb.db
      .insertInto('accounts')
      .values({ name: 'second' })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(id).toBe(2);
    const tables = await accountTables();
    for (const [table, columns] of tables) {
      if (table === 'account_leases') continue; // made with the account, by a trigger
      // Every column but account_id: the same row, keys and all, for account 2.
      const own = columns.filter((column) => column !== 'account_id').map((column) => sql.ref(column));
      await sql`
        insert into ${sql.table(table)} (${sql.join(own)}, account_id)
        select ${sql.join(own)}, ${id}::integer from ${sql.table(table)} where account_id = 1`.execute(beforeDb.db);
    }
    for (const table of tables.keys()) {
      // Written by triggers: the changes copied for account 2 made events of its own.
      if (table === 'events') continue;
      const rows = await accountsOfRows(table);
      const first = rows.find((row) => row.account_id === 1)?.n ?? 0;
      expect(rows.find((row) => row.account_id === 2)?.n ?? 0, table).toBe(first);
    }
    const { rows } = await sql<{ account_name: string; clients: number }>`
      select account_name, count(*)::int as clients from client_overview group by account_name order by 1`.execute(
      beforeDb.db,
    );
    expect(rows).toEqual([
      { account_name: 'default', clients: 3 },
      { account_name: 'second', clients: 3 },
    ]);
  });
});
