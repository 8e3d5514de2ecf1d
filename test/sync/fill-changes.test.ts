/**
 * Issue 46: a fill writes each record once. Its change rows (op insert, one per record) carry no
 * `after`; every reader still gives the record: the events and the webhook payloads of a fill with
 * EVENTS_ON_BACKFILL, the console's history, and `change_after(c)` in SQL, also after the record
 * later changed or was deleted upstream (its next change row's `before` holds it).
 */
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KEY_FIELDS, type EntityName } from '../../src/catalog/index.js';
import { createConsoleApp } from '../../src/console/index.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/index.js';
import { definitionOf } from '../../src/sync/entities.js';
import { runSync } from '../../src/sync/index.js';
import { Deliverer } from '../../src/webhooks/deliver.js';
import { addSubscription } from '../../src/webhooks/subscriptions.js';
import { pullerFor, useSandbox } from '../support/sandbox.js';
import { testSession, useTestDatabase } from '../support/test-database.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

const MASTER = 'a test master secret of more than 32 characters';
const database = useTestDatabase();
const env = useSandbox({ records: 30, sentInvoices: 40, now: '2026-11-01' }, { pageSize: 50 });
const db = () => database.current.handle.db;
const pull = pullerFor(database, env);
let receiver: Receiver;
/** A second handle on the schema whose sessions write events for a fill too (EVENTS_ON_BACKFILL). */
let filling: DatabaseHandle;
let fillRun: number;
/** The mirror's raw records right after the fill, by entity and key. */
const filled = new Map<string, Map<string, Record<string, unknown>>>();

beforeAll(async () => {
  receiver = await startReceiver();
  const { url, schema } = database.current;
  filling = await openDatabase({ databaseUrl: url, embeddedDbDir: '', schema, poolSize: 2, eventsOnBackfill: true });
});
afterAll(async () => {
  await filling?.close();
  await receiver?.close();
});

const keyOf = (entity: string) => definitionOf(entity as EntityName).key;

async function mirrorRaws(entity: string): Promise<Map<string, Record<string, unknown>>> {
  const { rows } = await sql<{ key: string; raw: Record<string, unknown> }>`
    select ${sql.ref(keyOf(entity))}::text as key, raw from ${sql.table(entity)}`.execute(db());
  return new Map(rows.map((row) => [row.key, row.raw]));
}

/** The console's history page of one record, as HTML. */
async function historyPage(entity: string, id: string): Promise<string> {
  const app = createConsoleApp({
    db: db(),
    settings: { inDaemon: false, user: 'admin', password: undefined, token: undefined },
    maxAttempts: 1,
    worker: true,
  });
  const answer = await app.request(`/changes/${entity}/${id}?account=default`);
  expect(answer.status).toBe(200);
  return answer.text();
}

/** The cells of the history's diff rows for one field, in page order (newest version first). */
function diffCells(html: string, field: string): { before: string; after: string }[] {
  const pattern = new RegExp(
    `<tr><td>${field}</td><td class="before">([^<]*)</td><td class="after">([^<]*)</td></tr>`,
    'g',
  );
  const decoded = (cell: string) =>
    cell.replace(
      /&(amp|lt|gt|quot|#39);/g,
      (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!,
    );
  return [...html.matchAll(pattern)].map((m) => ({ before: decoded(m[1]!), after: decoded(m[2]!) }));
}

describe('a fill writes each record once', () => {
  it('its change rows, one per record, carry no after; events and webhooks still carry the record', async () => {
    const { id: subscription } = await addSubscription(
      filling.db,
      { url: receiver.url, eventTypes: ['client.created', 'invoice.paid'], accountId: null },
      MASTER,
    );
    const outcome = await runSync(
      testSession({
        db: filling.db,
        client: env.client,
        accountId: database.current.accountId,
        schema: database.current.schema,
      }),
      {},
      { kind: 'backfill' },
    );
    expect(outcome.status).toBe('succeeded');
    fillRun = outcome.runId;

    const { rows: changes } = await sql<{ entity: string; n: number; records: number; ops: string[]; afters: number }>`
      select entity, count(*)::int as n, count(distinct entity_id)::int as records, array_agg(distinct op) as ops,
             count(after)::int as afters
        from changes where sync_run_id = ${fillRun} group by entity order by entity`.execute(db());
    expect(changes.length).toBeGreaterThanOrEqual(6);
    for (const change of changes) {
      const raws = await mirrorRaws(change.entity);
      filled.set(change.entity, raws);
      expect(change, change.entity).toEqual({
        entity: change.entity,
        n: raws.size,
        records: raws.size,
        ops: ['insert'],
        afters: 0,
      });
    }

    // The events read the record from the mirror row: key fields, and the conditions on `after`.
    const { rows: events } = await sql<{ type: string; record_id: string; body: { record: Record<string, unknown> } }>`
      select type, record_id, body from events where type in ('client.created', 'invoice.paid') order by id`.execute(
      db(),
    );
    const clients = env.sandbox.store.list('clients');
    const created = events.filter((e) => e.type === 'client.created');
    expect(created).toHaveLength(clients.length);
    for (const event of created) {
      const raw = filled.get('clients')!.get(event.record_id)!;
      const fields = EVENT_KEY_FIELDS.clients!.filter((f) => raw[f] !== undefined && raw[f] !== null);
      expect(event.body).toEqual({
        record: { id: event.record_id, ...Object.fromEntries(fields.map((f) => [f, raw[f]])) },
      });
      expect(event.body.record.company).toBe(raw.company);
    }
    const paidAtFill = env.sandbox.store
      .sentInvoices()
      .filter((i) => Number(i.open) <= 0 && Number(i.totalintax) > 0)
      .map((i) => String(i.id))
      .sort();
    expect(paidAtFill.length).toBeGreaterThan(0);
    expect(
      events
        .filter((e) => e.type === 'invoice.paid')
        .map((e) => e.record_id)
        .sort(),
    ).toEqual(paidAtFill);

    // And the webhook payloads carry it.
    const sender = new Deliverer(
      db(),
      { allowPrivate: true, timeoutMs: 2000, retryDelaysMs: [20], concurrency: 8, masterSecret: MASTER },
      pino({ level: 'silent' }),
    );
    for (let i = 0; i < 20 && (await sender.deliverAllDue()).sent > 0; i++);
    await sender.close();
    const payloads = receiver.received.map(
      (r) => JSON.parse(r.body) as { type: string; data: { record_id: string; record: Record<string, unknown> } },
    );
    const first = clients[0]!;
    const hook = payloads.find((p) => p.type === 'client.created' && p.data.record_id === String(first.clientnr));
    expect(hook?.data.record).toMatchObject({ id: String(first.clientnr), company: first.company });
    expect(payloads.filter((p) => p.type === 'client.created')).toHaveLength(clients.length);
    await sql`update webhook_subscriptions set state = 'paused' where id = ${subscription}`.execute(db());
  });

  it("the history page shows the fill's insert whole, before and after the record changes upstream", async () => {
    const client = env.sandbox.store.list('clients').find((c) => String(c.company ?? '') !== '')!;
    const id = String(client.clientnr);
    const original = String(filled.get('clients')!.get(id)!.company);
    expect(diffCells(await historyPage('clients', id), 'company')).toEqual([{ before: '—', after: original }]);

    env.sandbox.store.update('clients', Number(id), { company: 'Renamed After Fill BV' });
    expect((await pull({ kind: 'sync' })).status).toBe('succeeded');
    // Newest first: the update, then the fill's insert, still with the company it inserted.
    expect(diffCells(await historyPage('clients', id), 'company')).toEqual([
      { before: original, after: 'Renamed After Fill BV' },
      { before: '—', after: original },
    ]);
  });

  it('change_after(c) gives every fill change the record as inserted, also once changed or deleted', async () => {
    const products = env.sandbox.store.list('products');
    const [changed, gone] = [Number(products[0]!.id), Number(products[1]!.id)];
    env.sandbox.store.update('products', changed, { name: 'Renamed product after the fill' });
    env.sandbox.store.delete('products', gone);
    expect((await pull({ kind: 'sync' })).status).toBe('succeeded');
    const { rows: later } = await sql<{ entity_id: string; op: string }>`
      select entity_id, op from changes where entity = 'products' and sync_run_id > ${fillRun} order by entity_id`.execute(
      db(),
    );
    expect(later).toEqual(
      [
        { entity_id: String(changed), op: 'update' },
        { entity_id: String(gone), op: 'delete' },
      ].sort((a, b) => a.entity_id.localeCompare(b.entity_id)),
    );
    // The mirror rows hold something else now; the fill's changes still say what was inserted.
    expect((await mirrorRaws('products')).get(String(changed))!.name).toBe('Renamed product after the fill');
    const { rows } = await sql<{ entity: string; entity_id: string; after: Record<string, unknown> | null }>`
      select entity, entity_id, change_after(c) as after from changes c where sync_run_id = ${fillRun}`.execute(db());
    expect(rows.length).toBe([...filled.values()].reduce((n, raws) => n + raws.size, 0));
    for (const row of rows)
      expect(row.after, `${row.entity} ${row.entity_id}`).toEqual(filled.get(row.entity)!.get(row.entity_id));
    // Every other change row's after is its own column.
    const { rows: others } = await sql<{ same: boolean }>`
      select bool_and(change_after(c) is not distinct from c.after) as same from changes c where sync_run_id > ${fillRun}`.execute(
      db(),
    );
    expect(others[0]!.same).toBe(true);
  });
});
