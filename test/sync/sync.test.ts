import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { entityColumns, type Column, type EntityName } from '../../src/catalog/index.js';
import { runSync, SyncBusyError } from '../../src/sync/index.js';
import { useSandbox } from '../support/sandbox.js';
import { pullOf, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox(
  { perEntity: { clients: 60, products: 70, quotations: 80, saved_invoices: 90, repeating_invoices: 50 } },
  { pageSize: 25, rateLimitPauseMs: 100 },
);

const SANDBOX_ENTITIES = ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'] as const;
const KEY: Record<string, string> = { clients: 'clientnr' };
const keyOf = (entity: string) => KEY[entity] ?? 'id';

const deps = () => pullOf(database, env.client);

/** What a typed column should hold for a wire value, worked out independently of the client's parser. */
function expectedValue(column: Column, wire: Record<string, unknown>): unknown {
  let value = wire[column.field ?? column.name];
  if (column.subfield)
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[column.subfield] : undefined;
  if (value === undefined || value === null) return null;
  switch (column.type) {
    case 'integer':
    case 'numeric':
      if (value === '' || value === false) return null;
      return Number(value);
    case 'boolean':
      if (value === '') return null;
      return value === true || value === 'true' || value === '1' || value === 1;
    case 'date':
      return value === '' ? null : value;
    case 'jsonb':
      return Array.isArray(value) || value === '' || value === false || value === 'false' ? null : value;
    default:
      return column.name.endsWith('method') ||
        ['frequency', 'repeattype', 'discounttype', 'customstatus', 'tax_type'].includes(column.name)
        ? String(value).toLowerCase()
        : column.name === 'collecttype'
          ? String(value).toUpperCase()
          : value;
  }
}

function normalise(column: Column, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.type === 'numeric' || column.type === 'integer') return Number(value);
  return value;
}

async function mirrorRows(entity: EntityName): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<
    Record<string, unknown>
  >`select * from ${sql.table(entity)} order by ${sql.ref(keyOf(entity))}`.execute(database.current.handle.db);
  return rows;
}

async function changeRows(runId: number) {
  const { rows } = await sql<{
    entity: string;
    entity_id: string;
    op: string;
    changed_fields: string[] | null;
    before: unknown;
    after: unknown;
  }>`
    select entity, entity_id, op, changed_fields, before, after from changes where sync_run_id = ${runId} order by entity, entity_id`.execute(
    database.current.handle.db,
  );
  return rows;
}

describe('backfill', () => {
  it('fills the mirror with exactly what the service holds, field by field and raw', async () => {
    const outcome = await runSync(...deps(), { kind: 'backfill' });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.error).toBeNull();

    for (const entity of SANDBOX_ENTITIES) {
      const wire = env.sandbox.store.list(entity);
      const rows = await mirrorRows(entity);
      expect(rows.length, entity).toBe(wire.length);
      expect(outcome.entities[entity]).toMatchObject({
        fetched: wire.length,
        inserted: wire.length,
        updated: 0,
        deleted: 0,
        unchanged: 0,
        complete: true,
      });
      const byKey = new Map(rows.map((row) => [String(row[keyOf(entity)]), row]));
      for (const record of wire) {
        const row = byKey.get(String(record[keyOf(entity)]));
        expect(row, `${entity} ${record[keyOf(entity)]}`).toBeDefined();
        expect(row!.raw).toEqual(record);
        for (const column of entityColumns(entity)) {
          expect(normalise(column, row![column.name]), `${entity} ${record[keyOf(entity)]} ${column.name}`).toEqual(
            expectedValue(column, record),
          );
        }
        expect(row!.deleted_at).toBeNull();
      }
    }
    const countries = await mirrorRows('countries');
    expect(countries.length).toBeGreaterThan(200);
  });

  it('writes the document lines in order, one row per line', async () => {
    const { db } = database.current.handle;
    for (const [entity, type] of [
      ['quotations', 'quotation'],
      ['saved_invoices', 'saved_invoice'],
      ['repeating_invoices', 'repeating_invoice'],
    ] as const) {
      const { rows } = await sql<{
        document_id: number;
        position: number;
        description: string | null;
        amount: string | null;
        linetotal: string | null;
      }>`
        select document_id, position, description, amount, linetotal from document_lines where document_type = ${type} order by document_id, position`.execute(
        db,
      );
      const expected = env.sandbox.store.list(entity).flatMap((record) => {
        const lines = Array.isArray(record.lines) ? record.lines : Object.values(record.lines as object);
        return (lines as Record<string, unknown>[]).map((line, index) => ({
          document_id: Number(record.id),
          position: index + 1,
          description: (line.description as string | undefined) ?? null,
          amount: line.amount === undefined ? null : Number(line.amount),
          linetotal: line.linetotal === undefined ? null : Number(line.linetotal),
        }));
      });
      expected.sort((a, b) => a.document_id - b.document_id || a.position - b.position);
      expect(
        rows.map((r) => ({
          ...r,
          amount: r.amount === null ? null : Number(r.amount),
          linetotal: r.linetotal === null ? null : Number(r.linetotal),
        })),
        entity,
      ).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
    }
  });

  it('keeps awkward values exactly: quotes, unicode, long notes, slashes, legacy zero ids, empty dates', async () => {
    const { db } = database.current.handle;
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from saved_invoices where name like '%/%'`.execute(db);
    expect(rows[0]!.n).toBeGreaterThan(0);
    const unicode = await sql<{
      n: number;
    }>`select count(*)::int as n from clients where company ~ '[^\\x01-\\x7e]' or contact ~ '[^\\x01-\\x7e]'`.execute(
      db,
    );
    expect(unicode.rows[0]!.n).toBeGreaterThan(0);
    const longNotes = await sql<{ n: number }>`select max(length(notes))::int as n from quotations`.execute(db);
    expect(longNotes.rows[0]!.n).toBeGreaterThan(1000);
    const emptyDates = await sql<{
      n: number;
    }>`select count(*)::int as n from repeating_invoices where finalsenddate is null and raw->>'finalsenddate' = ''`.execute(
      db,
    );
    expect(emptyDates.rows[0]!.n).toBeGreaterThan(0);
  });
});

describe('sync', () => {
  it('writes nothing at all when nothing changed upstream', async () => {
    const { db } = database.current.handle;
    const before = await sql<{ t: string; xmins: string }>`
      select 'all' as t, string_agg(xmin::text, ',' order by tbl, k) as xmins from (
        select 'c' as tbl, clientnr as k, xmin from clients union all
        select 'p', id, xmin from products union all select 'q', id, xmin from quotations union all
        select 's', id, xmin from saved_invoices union all select 'r', id, xmin from repeating_invoices union all
        select 'n', id, xmin from countries union all select 'l', document_id * 1000 + position, xmin from document_lines) x`.execute(
      db,
    );
    const outcome = await runSync(...deps(), { kind: 'sync' });
    expect(outcome.status).toBe('succeeded');
    for (const entity of SANDBOX_ENTITIES) {
      expect(outcome.entities[entity]).toMatchObject({
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: env.sandbox.store.list(entity).length,
      });
    }
    expect(await changeRows(outcome.runId)).toEqual([]);
    const after = await sql<{ xmins: string }>`
      select string_agg(xmin::text, ',' order by tbl, k) as xmins from (
        select 'c' as tbl, clientnr as k, xmin from clients union all
        select 'p', id, xmin from products union all select 'q', id, xmin from quotations union all
        select 's', id, xmin from saved_invoices union all select 'r', id, xmin from repeating_invoices union all
        select 'n', id, xmin from countries union all select 'l', document_id * 1000 + position, xmin from document_lines) x`.execute(
      db,
    );
    expect(after.rows[0]!.xmins).toBe(before.rows[0]!.xmins);
  });

  it('records exactly the upstream updates, inserts, deletes and restores', async () => {
    const store = env.sandbox.store;
    const [product] = store.list('products');
    const productId = Number(product!.id);
    store.update('products', productId, { name: 'Renamed product', price: '99.5' });
    const [client] = store.list('clients');
    const clientnr = Number(client!.clientnr);
    store.update('clients', clientnr, { city: 'Zwolle' });
    const newQuotation = store.insert('quotations');
    const goneInvoice = Number(store.list('saved_invoices')[3]!.id);
    store.delete('saved_invoices', goneInvoice);

    const first = await runSync(...deps(), { kind: 'sync' });
    expect(first.status).toBe('succeeded');
    const changes = await changeRows(first.runId);
    const summary = changes.map((c) => [c.entity, c.entity_id, c.op]);
    expect(summary).toEqual(
      expect.arrayContaining([
        ['clients', String(clientnr), 'update'],
        ['products', String(productId), 'update'],
        ['quotations', String(newQuotation), 'insert'],
        ['saved_invoices', String(goneInvoice), 'delete'],
      ]),
    );
    expect(changes).toHaveLength(4);
    const productChange = changes.find((c) => c.entity === 'products')!;
    expect(productChange.changed_fields).toEqual(expect.arrayContaining(['name', 'price']));
    expect((productChange.before as Record<string, unknown>).name).toBe(product!.name);
    expect((productChange.after as Record<string, unknown>).name).toBe('Renamed product');
    expect(changes.find((c) => c.entity === 'clients')!.changed_fields).toEqual(['city']);

    const { db } = database.current.handle;
    const deleted = await db
      .selectFrom('saved_invoices')
      .select(['deleted_at'])
      .where('id', '=', goneInvoice)
      .executeTakeFirstOrThrow();
    expect(deleted.deleted_at).toBeInstanceOf(Date);
    const price = await db
      .selectFrom('products')
      .select(['price', 'name'])
      .where('id', '=', productId)
      .executeTakeFirstOrThrow();
    expect(price).toEqual({ price: '99.5', name: 'Renamed product' });

    store.restore('saved_invoices', goneInvoice);
    const second = await runSync(...deps(), { kind: 'sync' });
    expect((await changeRows(second.runId)).map((c) => [c.entity, c.entity_id, c.op])).toEqual([
      ['saved_invoices', String(goneInvoice), 'restore'],
    ]);
    const restored = await db
      .selectFrom('saved_invoices')
      .select(['deleted_at'])
      .where('id', '=', goneInvoice)
      .executeTakeFirstOrThrow();
    expect(restored.deleted_at).toBeNull();
  });

  it('rewrites the lines of a document whose lines changed, and no other', async () => {
    const { db } = database.current.handle;
    const store = env.sandbox.store;
    const quotations = store.list('quotations');
    const target = Number(quotations[0]!.id);
    const other = Number(quotations[1]!.id);
    const xminOf = async (id: number) =>
      (
        await sql<{
          x: string;
        }>`select string_agg(xmin::text, ',') as x from document_lines where document_type = 'quotation' and document_id = ${id}`.execute(
          db,
        )
      ).rows[0]!.x;
    const otherBefore = await xminOf(other);
    store.update('quotations', target, {
      lines: [
        { amount: 2, description: 'Nieuw “werk”', tax_rate: 21, price: 10.5, discount_pct: 0 },
        { description: 'tekstregel' },
      ],
    });
    const outcome = await runSync(...deps(), { kind: 'sync', entities: ['quotations'] });
    expect(outcome.entities.quotations).toMatchObject({ updated: 1, inserted: 0 });
    const lines = await db
      .selectFrom('document_lines')
      .select(['position', 'description', 'amount', 'price'])
      .where('document_type', '=', 'quotation')
      .where('document_id', '=', target)
      .orderBy('position')
      .execute();
    expect(lines).toEqual([
      { position: 1, description: 'Nieuw “werk”', amount: '2', price: '10.5' },
      { position: 2, description: 'tekstregel', amount: null, price: null },
    ]);
    expect(await xminOf(other)).toBe(otherBefore);
  });

  it('marks a run partial and deletes nothing when a pull is cut short by errors or the quota', async () => {
    const { db } = database.current.handle;
    const store = env.sandbox.store;
    const victim = Number(store.list('products')[5]!.id);
    store.delete('products', victim);

    // Server errors on every try (the client retries twice) of the first page of products.
    env.sandbox.failNext('500', 3, { method: 'GET', pathPrefix: '/products' });
    const faulty = await runSync(...deps(), { kind: 'sync', entities: ['products', 'clients'] });
    expect(faulty.status).toBe('partial');
    expect(faulty.entities.products!.complete).toBe(false);
    expect(faulty.entities.clients!.complete).toBe(true);
    expect(faulty.error).toMatch(/products/);
    const row = await db.selectFrom('products').select('deleted_at').where('id', '=', victim).executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeNull();
    env.sandbox.clearCalls();

    // A spent quota stops the whole run: the entities after products are not even tried.
    env.sandbox.failNext('quota', 1, { pathPrefix: '/products' });
    const limited = await runSync(...deps(), { kind: 'sync', entities: ['products', 'quotations'] });
    expect(limited.status).toBe('failed');
    expect(limited.error).toMatch(/rate|quota|limit/i);
    expect(limited.entities.quotations).toBeUndefined();
    const stillLive = await db
      .selectFrom('products')
      .select('deleted_at')
      .where('id', '=', victim)
      .executeTakeFirstOrThrow();
    expect(stillLive.deleted_at).toBeNull();
    const runs = await db
      .selectFrom('sync_runs')
      .select(['status'])
      .where('id', 'in', [faulty.runId, limited.runId])
      .orderBy('id')
      .execute();
    expect(runs.map((r) => r.status)).toEqual(['partial', 'failed']);
    env.sandbox.resetQuota();
    // The client paused the account's queue after the quota answer; let the pause run out.
    await new Promise((resolve) => setTimeout(resolve, 150));
  });

  it('lets one run at a time work on a mirror', async () => {
    env.sandbox.knobs.latencyMs = 30;
    try {
      const results = await Promise.allSettled([
        runSync(...deps(), { kind: 'sync', entities: ['clients'] }),
        runSync(...deps(), { kind: 'sync', entities: ['clients'] }),
      ]);
      const rejected = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(rejected).toHaveLength(1);
      expect(rejected[0]!.reason).toBeInstanceOf(SyncBusyError);
      const fulfilled = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<
        Awaited<ReturnType<typeof runSync>>
      >[];
      expect(fulfilled).toHaveLength(1);
      expect(fulfilled[0]!.value.status).toBe('succeeded');
    } finally {
      env.sandbox.knobs.latencyMs = 0;
    }
  });
});
