/**
 * A sync parses only what changed: a record whose text is byte for byte the stored one is not
 * parsed (the client's count of parsed list elements says so), one whose text changed in a
 * single field is parsed and stored; a record with stored issues is read again and keeps them.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSync } from '../../src/sync/index.js';
import { useSandbox } from '../support/sandbox.js';
import { pullOf, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox(
  { perEntity: { clients: 40, products: 30, quotations: 20, saved_invoices: 20, repeating_invoices: 10 } },
  { pageSize: 15 },
);

const deps = () => pullOf(database, env.client);

/** A sync, and how many list elements the client parsed during it. */
async function syncCountingParses() {
  const before = env.client.elementsParsed;
  const outcome = await runSync(...deps(), { kind: 'sync' });
  return { outcome, parsed: env.client.elementsParsed - before };
}

beforeAll(async () => {
  const backfill = await runSync(...deps(), { kind: 'backfill' });
  expect(backfill.status).toBe('succeeded');
});

describe('a sync parses only what changed', () => {
  it('nothing changed: no element is parsed, every record counts as unchanged and seen', async () => {
    const { outcome, parsed } = await syncCountingParses();
    expect(outcome.status).toBe('succeeded');
    expect(parsed).toBe(0);
    expect(outcome.entities.clients).toMatchObject({ fetched: 40, unchanged: 40, updated: 0, deleted: 0 });
    expect(outcome.entities.products).toMatchObject({ fetched: 30, unchanged: 30, updated: 0, deleted: 0 });
  });

  it('a record changed in one field is parsed and stored; the byte-identical ones are not parsed', async () => {
    const store = env.sandbox.store;
    const client = store.list('clients')[7]!;
    const clientnr = Number(client.clientnr);
    store.update('clients', clientnr, { city: 'Kampen' });

    const { outcome, parsed } = await syncCountingParses();
    expect(outcome.status).toBe('succeeded');
    expect(parsed).toBe(1);
    expect(outcome.entities.clients).toMatchObject({ fetched: 40, updated: 1, unchanged: 39, deleted: 0 });
    const { db } = database.current.handle;
    const { rows: stored } = await sql<{ city: string; raw_city: string }>`
      select city, raw ->> 'city' as raw_city from clients where clientnr = ${clientnr}`.execute(db);
    expect(stored).toEqual([{ city: 'Kampen', raw_city: 'Kampen' }]);
    const { rows: changes } = await sql<{ entity_id: string; op: string; changed_fields: string[] }>`
      select entity_id, op, changed_fields from changes where sync_run_id = ${outcome.runId}`.execute(db);
    expect(changes).toEqual([{ entity_id: String(clientnr), op: 'update', changed_fields: ['city'] }]);
  });

  it('an unchanged record with a rejected value is read again and keeps its rejected_values row', async () => {
    const store = env.sandbox.store;
    const productId = Number(store.list('products')[4]!.id);
    store.setWire('products', productId, { priceintax: 'twelve' });
    const first = await syncCountingParses();
    expect(first.parsed).toBe(1);
    expect(first.outcome.entities.products).toMatchObject({ updated: 1, rejected: 1, complete: false });

    const again = await syncCountingParses();
    expect(again.parsed).toBe(1); // only the product with the issue
    expect(again.outcome.entities.products).toMatchObject({ updated: 0, unchanged: 30, rejected: 1, complete: false });
    const { rows } = await sql<{ entity_id: string; field: string; first_run_id: number; last_run_id: number }>`
      select entity_id, field, first_run_id, last_run_id from rejected_values where entity = 'products'`.execute(
      database.current.handle.db,
    );
    expect(rows).toEqual([
      {
        entity_id: String(productId),
        field: 'priceintax',
        first_run_id: first.outcome.runId,
        last_run_id: again.outcome.runId,
      },
    ]);
  });

  it('rows fingerprinted as an earlier release did (md5) are fingerprinted again once: raw_hash only, no change, no event', async () => {
    const { db } = database.current.handle;
    // md5 of the raw text, as the mirror stored it before raw_hash held the text's length and SHA-256.
    await sql`update clients set raw_hash = encode(md5(raw::text)::bytea, 'base64')`.execute(db);
    const before = await sql<{ raws: string; changes: number; events: number }>`
      select (select string_agg(raw::text, '' order by clientnr) from clients) as raws,
        (select count(*)::int from changes) as changes, (select count(*)::int from events) as events`.execute(db);

    const rehash = await syncCountingParses();
    // (The run is partial: the product with the rejected value above is still rejected.)
    expect(rehash.parsed).toBe(40 + 1); // every client, and that product, read at every pull
    expect(rehash.outcome.entities.clients).toMatchObject({
      fetched: 40,
      inserted: 0,
      updated: 0,
      deleted: 0,
      complete: true,
    });
    const after = await sql<{ raws: string; changes: number; events: number; md5: number }>`
      select (select string_agg(raw::text, '' order by clientnr) from clients) as raws,
        (select count(*)::int from changes) as changes, (select count(*)::int from events) as events,
        (select count(*)::int from clients where raw_hash not like '%:%') as md5`.execute(db);
    expect(after.rows[0]).toEqual({ ...before.rows[0], md5: 0 });

    const again = await syncCountingParses();
    expect(again.parsed).toBe(1);
    expect(again.outcome.entities.clients).toMatchObject({ fetched: 40, unchanged: 40 });
  });
});
