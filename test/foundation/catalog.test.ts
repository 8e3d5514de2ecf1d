/**
 * The catalogue (src/catalog/) against a database built by the migrations: every mirror table has
 * exactly the catalogue's columns, in order, with its types and key; `document_lines` allows
 * exactly the catalogue's document types; every report view has the catalogue's columns. So the
 * frozen migrations and the live description cannot drift apart.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_COLUMN,
  BOOKKEEPING_COLUMNS,
  derivedColumns,
  ENTITIES,
  entityColumns,
  LINE_COLUMNS,
  primaryKeyOf as keyOf,
  REPORTS,
  type DocumentType,
} from '../../src/catalog/index.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();

/** `name type` of each column of a relation, in order, as the catalogue spells types. */
async function columnsOf(relation: string): Promise<string[]> {
  const { rows } = await sql<{ line: string }>`
    select a.attname || ' ' || case format_type(a.atttypid, a.atttypmod)
             when 'timestamp with time zone' then 'timestamptz' else format_type(a.atttypid, a.atttypmod) end as line
      from pg_attribute a
     where a.attrelid = ${`${database.current.schema}.${relation}`}::regclass and a.attnum > 0 and not a.attisdropped
     order by a.attnum`.execute(database.current.handle.db);
  return rows.map((row) => row.line);
}

async function primaryKeyOf(table: string): Promise<string | undefined> {
  const { rows } = await sql<{ definition: string }>`
    select pg_get_constraintdef(oid) as definition from pg_constraint
     where conrelid = ${`${database.current.schema}.${table}`}::regclass and contype = 'p'`.execute(
    database.current.handle.db,
  );
  return rows[0]?.definition;
}

describe('the catalogue equals the database the migrations build', () => {
  it.each(ENTITIES.map((entity) => [entity.name, entity] as const))('%s', async (name, entity) => {
    expect(await columnsOf(name)).toEqual(
      [...entityColumns(name), ...BOOKKEEPING_COLUMNS, ACCOUNT_COLUMN, ...derivedColumns(name)].map(
        (column) => `${column.name} ${column.type}`,
      ),
    );
    expect(await primaryKeyOf(name)).toBe(`PRIMARY KEY (${keyOf(entity).join(', ')})`);
  });

  it('document_lines: the place of a line, then the catalogue line columns; exactly its document types', async () => {
    expect(await columnsOf('document_lines')).toEqual([
      'document_type text',
      'document_id integer',
      'position integer',
      ...LINE_COLUMNS.map((column) => `${column.name} ${column.type}`),
      'account_id integer',
    ]);
    expect(await primaryKeyOf('document_lines')).toBe(
      'PRIMARY KEY (account_id, document_type, document_id, "position")',
    );
    const { rows } = await sql<{ definition: string }>`
      select pg_get_constraintdef(oid) as definition from pg_constraint
       where conrelid = ${`${database.current.schema}.document_lines`}::regclass and contype = 'c'`.execute(
      database.current.handle.db,
    );
    const allowed = [...rows[0]!.definition.matchAll(/'(\w+)'::text/g)].map((m) => m[1]);
    const documentTypes: DocumentType[] = ENTITIES.flatMap((entity) =>
      'documentType' in entity ? [entity.documentType] : [],
    );
    expect(allowed.sort()).toEqual([...documentTypes].sort());
  });

  it.each(REPORTS.map((report) => [report.name, report] as const))('report view %s', async (name, report) => {
    const columns = (await columnsOf(name)).map((line) => line.split(' ')[0]);
    expect(columns).toEqual(Object.keys(report.columns));
  });
});
