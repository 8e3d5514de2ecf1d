/**
 * The two ways a page is written: plain inserts into a table that was empty when the pull began
 * (a first backfill), and the general merge. A page written as inserts that meets a stored key
 * must be merged instead, losing nothing and logging nothing twice.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { definitionOf, toStagedRow, type ReadEntityRecord } from '../../src/sync/entities.js';
import { runSync } from '../../src/sync/index.js';
import { mergePage } from '../../src/sync/merge.js';
import { useSandbox } from '../support/sandbox.js';
import { testSession, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox(
  { perEntity: { clients: 60, products: 10, quotations: 40, saved_invoices: 10, repeating_invoices: 10 } },
  { pageSize: 20 },
);

const db = () => database.current.handle.db;

async function stagedPage(entity: 'clients' | 'quotations') {
  const definition = definitionOf(entity);
  const rows = [];
  for await (const page of env.client.list(entity))
    rows.push(...page.records.map((record) => toStagedRow(definition, record as unknown as ReadEntityRecord)));
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

    const first = await mergePage(db(), database.current.accountId, definition, firstHalf, null, 'insert');
    expect(first).toMatchObject({ mode: 'insert', inserted: 20, updated: 0, unchanged: 0 });

    const second = await mergePage(db(), database.current.accountId, definition, rows, null, 'insert');
    expect(second).toMatchObject({ mode: 'merge', inserted: rows.length - 20, updated: 0, unchanged: 20 });

    const { rows: stored } = await sql<{ n: number }>`select count(*)::int as n from quotations`.execute(db());
    expect(stored[0]!.n).toBe(rows.length);
    const counts = await changeCounts('quotations');
    expect(counts).toHaveLength(rows.length);
    expect(counts.every((c) => c.n === 1)).toBe(true);

    const { rows: lines } = await sql<{ document_id: number; n: number }>`
      select document_id, count(*)::int as n from document_lines where document_type = 'quotation' group by document_id`.execute(
      db(),
    );
    const expectedLines = new Map(rows.map((row) => [row.key, row.lines!.length]));
    expect(new Map(lines.map((l) => [l.document_id, l.n]))).toEqual(
      new Map([...expectedLines].filter(([, n]) => n > 0)),
    );
  });

  it('a backfill into an empty table survives a record written meanwhile (by a job, say)', async () => {
    const { definition, rows } = await stagedPage('clients');
    const late = rows[rows.length - 1]!; // on the last page
    let written = false;
    const outcome = await runSync(
      testSession({
        db: db(),
        client: env.client,
        accountId: database.current.accountId,
        schema: database.current.schema,
      }),
      { writeConcurrency: 2 },
      {
        kind: 'backfill',
        entities: ['clients'],
        onProgress: (progress) => {
          if (written || progress.entity !== 'clients') return;
          written = true;
          // The later pages are held back until the record is stored, so the last page meets it.
          env.sandbox.knobs.latencyMs = 500;
          void mergePage(db(), database.current.accountId, definition, [late], null).finally(
            () => (env.sandbox.knobs.latencyMs = 0),
          );
        },
      },
    );
    expect(written).toBe(true);
    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.clients).toMatchObject({
      fetched: rows.length,
      inserted: rows.length - 1,
      updated: 0,
      unchanged: 1,
      complete: true,
    });
    const { rows: stored } = await sql<{ n: number }>`select count(*)::int as n from clients`.execute(db());
    expect(stored[0]!.n).toBe(rows.length);
    const counts = await changeCounts('clients');
    expect(counts).toHaveLength(rows.length);
    expect(counts.every((c) => c.n === 1)).toBe(true);
  });

  it('control characters, the page separators among them, survive both write modes', async () => {
    // A page travels as text split on U+001E and U+001F (see pageText): text that holds them must
    // reach the mirror unchanged, whether it is read from the raw record, sent as a parsed
    // override (a lower-cased enum) or sent with the lines.
    const store = env.sandbox.store;
    const awkward = (n: number) => `a\u001eb\u001fc\td\ne\u0001f ${n}`;
    const [quotation] = store.list('quotations').map((q) => Number(q.id));
    const [clientnr] = store.list('clients').map((c) => Number(c.clientnr));
    const check = async (n: number) => {
      const { rows: clients } = await sql<{ company: string; sendmethod: string }>`
        select company, sendmethod from clients where clientnr = ${clientnr!}`.execute(db());
      expect(clients[0]).toEqual({ company: awkward(n), sendmethod: `email${awkward(n)}`.toLowerCase() });
      const { rows: lines } = await sql<{ description: string }>`
        select description from document_lines where document_type = 'quotation' and document_id = ${quotation!} order by position`.execute(
        db(),
      );
      expect(lines).toEqual([{ description: awkward(n) }]);
    };
    const dirty = (n: number) => {
      store.update('clients', clientnr!, { company: awkward(n), sendmethod: `EMAIL${awkward(n)}` });
      store.update('quotations', quotation!, {
        lines: [{ amount: 1, description: awkward(n), tax_rate: 21, price: 2, discount_pct: 0 }],
      });
    };
    const deps = {
      db: db(),
      client: env.client,
      accountId: database.current.accountId,
      schema: database.current.schema,
    };

    dirty(1);
    // Empty tables: the backfill writes its pages as plain inserts, the sync after it merges.
    await sql`truncate clients, quotations, document_lines`.execute(db());
    const backfill = await runSync(
      testSession(deps),
      { writeConcurrency: 2 },
      { kind: 'backfill', entities: ['clients', 'quotations'] },
    );
    expect(backfill.status).toBe('succeeded');
    expect(backfill.entities.clients).toMatchObject({ inserted: store.list('clients').length });
    await check(1);

    dirty(2);
    const sync = await runSync(
      testSession(deps),
      { writeConcurrency: 2 },
      { kind: 'sync', entities: ['clients', 'quotations'] },
    );
    expect(sync.status).toBe('succeeded');
    expect(sync.entities.clients).toMatchObject({ updated: 1 });
    await check(2);
  });
});
