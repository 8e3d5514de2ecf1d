/**
 * Upgrading in place: a schema as the release before the catalogue built it (test/fixtures/
 * release-0009.sql, dumped from that release), with a record in it and a view of the user's own on
 * top of a report view, migrated by this version, equals a schema this version builds fresh; the
 * record and the user's view survive. Then the report views change the way a later release may
 * change them (a column appended; a column removed) and the user's view is kept or named.
 */
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTS, type Report } from '../../src/catalog/index.js';
import { migrations } from '../../migrations/index.js';
import { migrate, openDatabase, type DatabaseHandle } from '../../src/db/index.js';
import { REPEATABLES, reportViewsOf } from '../../src/db/repeatable.js';
import { schemaShape } from '../support/schema-shape.js';
import { databaseUrl, dropSchema, uniqueSchema } from '../support/test-database.js';

const FIXTURE = readFileSync(new URL('../fixtures/release-0009.sql', import.meta.url), 'utf8');
const upgraded = uniqueSchema('upgraded');
const fresh = uniqueSchema('fresh');
let upgradedDb: DatabaseHandle;
let freshDb: DatabaseHandle;

beforeAll(async () => {
  // The dump sets its own search_path for the session, so it runs on a connection of its own.
  const loader = postgres(databaseUrl(), { max: 1, onnotice: () => undefined });
  try {
    await loader.unsafe(FIXTURE.replaceAll('release_0009', upgraded));
  } finally {
    await loader.end();
  }
  const open = (schema: string) => openDatabase({ databaseUrl: databaseUrl(), embeddedDbDir: '', schema, poolSize: 2 });
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
