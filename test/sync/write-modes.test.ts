/**
 * The two ways a page is written: plain inserts into a table that was empty when the pull began
 * (a first backfill), and the general merge. A page written as inserts that meets a stored key
 * must be merged instead, losing nothing and logging nothing twice.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { entityNamed, toStagedRow } from '../../src/sync/entities.js';
import { runSync } from '../../src/sync/index.js';
import { mergePage } from '../../src/sync/merge.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({ perEntity: { clients: 60, products: 10, quotations: 40, saved_invoices: 10, repeating_invoices: 10 } }, { pageSize: 20 });

const db = () => database.current.handle.db;

async function stagedPage(entity: 'clients' | 'quotations') {
  const definition = entityNamed(entity);
  const rows = [];
  for await (const page of env.client.list(entity)) rows.push(...page.records.map((record) => toStagedRow(definition, record as unknown as Record<string, unknown>)));
  return { definition, rows };
}

async function changeCounts(entity: string) {
  const { rows } = await sql<{ entity_id: string; n: number }>`
    select entity_id, count(*)::int as n from changes where entity = ${entity} group by entity_id`.execute(db());
  return rows;
}

describe('write modes', () => {
  it('an insert-mode page that meets stored keys is merged instead: nothing lost, nothing logged twice', async () => {
    const { definition, rows } = await stagedPage('quotations');
    const firstHalf = rows.slice(0, 20);

    const first = await mergePage(db(), definition, firstHalf, null, 'insert');
    expect(first).toMatchObject({ mode: 'insert', inserted: 20, updated: 0, unchanged: 0 });

    const second = await mergePage(db(), definition, rows, null, 'insert');
    expect(second).toMatchObject({ mode: 'merge', inserted: rows.length - 20, updated: 0, unchanged: 20 });

    const { rows: stored } = await sql<{ n: number }>`select count(*)::int as n from quotations`.execute(db());
    expect(stored[0]!.n).toBe(rows.length);
    const counts = await changeCounts('quotations');
    expect(counts).toHaveLength(rows.length);
    expect(counts.every((c) => c.n === 1)).toBe(true);

    const { rows: lines } = await sql<{ document_id: number; n: number }>`
      select document_id, count(*)::int as n from document_lines where document_type = 'quotation' group by document_id`.execute(db());
    const expectedLines = new Map(rows.map((row) => [row.key, row.lines!.length]));
    expect(new Map(lines.map((l) => [l.document_id, l.n]))).toEqual(new Map([...expectedLines].filter(([, n]) => n > 0)));
  });

  it('a backfill into an empty table survives a record written meanwhile (by a job, say)', async () => {
    const { definition, rows } = await stagedPage('clients');
    const late = rows[rows.length - 1]!; // on the last page
    let written = false;
    const outcome = await runSync(
      { db: db(), client: env.client, schema: database.current.schema, writeConcurrency: 2 },
      {
        kind: 'backfill',
        entities: ['clients'],
        onProgress: (progress) => {
          if (written || progress.entity !== 'clients') return;
          written = true;
          // The later pages are held back until the record is stored, so the last page meets it.
          env.sandbox.knobs.latencyMs = 500;
          void mergePage(db(), definition, [late], null).finally(() => (env.sandbox.knobs.latencyMs = 0));
        },
      },
    );
    expect(written).toBe(true);
    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.clients).toMatchObject({ fetched: rows.length, inserted: rows.length - 1, updated: 0, unchanged: 1, complete: true });
    const { rows: stored } = await sql<{ n: number }>`select count(*)::int as n from clients`.execute(db());
    expect(stored[0]!.n).toBe(rows.length);
    const counts = await changeCounts('clients');
    expect(counts).toHaveLength(rows.length);
    expect(counts.every((c) => c.n === 1)).toBe(true);
  });
});
