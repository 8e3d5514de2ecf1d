/**
 * docs/schema.md against a freshly migrated database: every table and view with every column and
 * its type, nothing that does not exist; the views' meanings equal the comments stored in the
 * database; and every example query runs.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENTITIES, entityColumns, LINE_COLUMNS, REPORTS } from '../../src/catalog/index.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';
import { loadAccount, type AccountRecords } from './load.js';

const database = useTestDatabase();
const env = useSandbox({
  perEntity: { clients: 20, products: 20, quotations: 30, saved_invoices: 30, repeating_invoices: 30 },
  now: new Date(),
});

const DOC = readFileSync(new URL('../../docs/schema.md', import.meta.url), 'utf8');

interface DocumentedColumn {
  column: string;
  type: string;
  meaning: string;
}

interface DocumentedRelation {
  /** The paragraph under the heading. */
  description: string;
  columns: DocumentedColumn[];
}

/** Sections headed "### `name`", each with a "| column | type | meaning |" table. */
function parseSchemaDoc(text: string): Map<string, DocumentedRelation> {
  const out = new Map<string, DocumentedRelation>();
  let current: DocumentedRelation | undefined;
  let inCode = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    if (inCode) continue;
    const heading = /^#+\s+(.*)$/.exec(line);
    if (heading) {
      const name = /^###\s+`(\w+)`\s*$/.exec(line)?.[1];
      current = name ? { description: '', columns: [] } : undefined;
      if (name) out.set(name, current!);
      continue;
    }
    if (!current) continue;
    const row = /^\|\s*`(\w+)`\s*\|\s*([^|]+?)\s*\|\s*(.*?)\s*\|\s*$/.exec(line);
    if (row) current.columns.push({ column: row[1]!, type: row[2]!, meaning: row[3]!.replace(/\\\|/g, '|') });
    else if (!line.startsWith('|') && line.trim() !== '' && current.columns.length === 0) {
      current.description = `${current.description} ${line.trim()}`.trim();
    }
  }
  return out;
}

/** The short type names the document uses: `timestamptz`, `text[]`, otherwise Postgres' own. */
function typeName(dataType: string, udtName: string): string {
  if (dataType === 'ARRAY') return `${udtName.replace(/^_/, '')}[]`;
  if (dataType === 'timestamp with time zone') return 'timestamptz';
  return dataType;
}

async function databaseColumns(): Promise<Map<string, { column: string; type: string }[]>> {
  const { rows } = await sql<{ table_name: string; column_name: string; data_type: string; udt_name: string }>`
    select table_name, column_name, data_type, udt_name
      from information_schema.columns
     where table_schema = ${database.current.schema}
     order by table_name, ordinal_position`.execute(database.current.handle.db);
  const out = new Map<string, { column: string; type: string }[]>();
  for (const row of rows)
    out.set(row.table_name, [
      ...(out.get(row.table_name) ?? []),
      { column: row.column_name, type: typeName(row.data_type, row.udt_name) },
    ]);
  return out;
}

/** The SQL blocks after the "Example queries" heading. */
function exampleQueries(text: string): string[] {
  const section = text.slice(text.indexOf('## Example queries'));
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1]!.trim());
}

describe('docs/schema.md', () => {
  it('lists every table and view of the database, and nothing else', async () => {
    const documented = parseSchemaDoc(DOC);
    const actual = await databaseColumns();
    expect([...documented.keys()].sort()).toEqual([...actual.keys()].sort());
  });

  it('lists every column with its type, in the order of the database', async () => {
    const documented = parseSchemaDoc(DOC);
    for (const [name, columns] of await databaseColumns()) {
      expect(
        documented.get(name)?.columns.map(({ column, type }) => ({ column, type })),
        name,
      ).toEqual(columns);
    }
  });

  it('gives every column a meaning', () => {
    for (const [name, relation] of parseSchemaDoc(DOC)) {
      for (const column of relation.columns) expect(column.meaning, `${name}.${column.column}`).not.toBe('');
    }
  });

  it('describes each view as its comment in the database does', async () => {
    const documented = parseSchemaDoc(DOC);
    const { db } = database.current.handle;
    for (const view of REPORTS) {
      const { rows } = await sql<{
        comment: string | null;
      }>`select obj_description(${`${database.current.schema}.${view.name}`}::regclass, 'pg_class') as comment`.execute(
        db,
      );
      expect(rows[0]!.comment, view.name).toBe(view.comment);
      expect(documented.get(view.name)?.description, view.name).toBe(view.comment);
      const { rows: columns } = await sql<{ column_name: string; comment: string | null }>`
        select a.attname as column_name, col_description(a.attrelid, a.attnum) as comment
          from pg_attribute a
         where a.attrelid = ${`${database.current.schema}.${view.name}`}::regclass and a.attnum > 0 and not a.attisdropped
         order by a.attnum`.execute(db);
      expect(
        columns.map((c) => c.comment),
        view.name,
      ).not.toContain(null);
      expect(
        columns.map((c) => [c.column_name, c.comment]),
        view.name,
      ).toEqual(documented.get(view.name)!.columns.map((c) => [c.column, c.meaning]));
    }
  });

  it('describes each mirror column as the catalogue does, and so does its comment in the database', async () => {
    const documented = parseSchemaDoc(DOC);
    const { db } = database.current.handle;
    const tables = [
      ...ENTITIES.map((entity) => ({ table: entity.name as string, columns: entityColumns(entity.name) })),
      { table: 'document_lines', columns: LINE_COLUMNS },
    ];
    for (const { table, columns } of tables) {
      const meanings = new Map(documented.get(table)!.columns.map((c) => [c.column, c.meaning]));
      const { rows } = await sql<{ column_name: string; comment: string | null }>`
        select a.attname as column_name, col_description(a.attrelid, a.attnum) as comment
          from pg_attribute a
         where a.attrelid = ${`${database.current.schema}.${table}`}::regclass and a.attnum > 0 and not a.attisdropped`.execute(
        db,
      );
      const comments = new Map(rows.map((row) => [row.column_name, row.comment]));
      for (const column of columns) {
        expect(meanings.get(column.name), `${table}.${column.name} in docs/schema.md`).toBe(column.doc);
        expect(comments.get(column.name), `${table}.${column.name} in the database`).toBe(column.doc);
      }
    }
  });

  describe('example queries', () => {
    beforeAll(async () => {
      const { db } = database.current.handle;
      const store = env.sandbox.store;
      await loadAccount(db, database.current.accountId, {
        clients: store.list('clients'),
        products: store.list('products'),
        quotations: store.list('quotations'),
        saved_invoices: store.list('saved_invoices'),
        repeating_invoices: store.list('repeating_invoices'),
        invoices: store.sentInvoices(),
        countries: [{ id: '146', name: 'Nederland' }],
      } as AccountRecords);
    });

    it('has a handful of them', () => {
      expect(exampleQueries(DOC).length).toBeGreaterThanOrEqual(8);
    });

    it.each(exampleQueries(DOC).map((query) => [query.split('\n')[0]!, query]))('runs: %s', async (_title, query) => {
      const result = await database.current.handle.db
        .transaction()
        .setAccessMode('read only')
        .execute((trx) => sql.raw<Record<string, unknown>>(query).execute(trx));
      expect(Array.isArray(result.rows)).toBe(true);
    });

    it('answers "revenue expected next month" with the sends that fall in it', async () => {
      const [query] = exampleQueries(DOC);
      expect(query).toContain('upcoming_repeating_sends');
      const { rows } = await sql
        .raw<{ invoices: number; expected_incl_tax: string | null }>(query!)
        .execute(database.current.handle.db);
      expect(rows[0]!.invoices).toBeGreaterThan(0);
    });
  });
});
