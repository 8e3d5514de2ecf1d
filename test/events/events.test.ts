/**
 * Events are written with the change that causes them (src/db/event-triggers.ts): a backfill into an
 * empty mirror writes none, a payment pulled by a sync writes exactly one invoice.paid, a change
 * rolled back writes nothing, and jobs, failed runs and held deletes write theirs.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPE_NAMES } from '../../src/catalog/index.js';
import { markOverdueInvoices } from '../../src/events/overdue.js';
import { readEvents } from '../../src/events/store.js';
import { eventsSettled } from '../support/events.js';
import { openDatabase } from '../../src/db/index.js';
import { pullerFor, useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({ records: 40, sentInvoices: 60, now: '2026-11-01' }, { pageSize: 50 });

const db = () => database.current.handle.db;
const pull = pullerFor(database, env);

async function eventsAfter(after: string | null) {
  await eventsSettled(db());
  return readEvents(db(), { after, scope: 'all', limit: 10_000 });
}

describe('events from the change log', () => {
  let cursor: string | null = null;

  it('a backfill into an empty mirror writes no events', async () => {
    const outcome = await pull({ kind: 'backfill' });
    expect(outcome.status).toBe('succeeded');
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from changes`.execute(db());
    expect(rows[0]!.n).toBeGreaterThan(100);
    expect(await eventsAfter(null)).toEqual([]);
  });

  it('a payment in full pulled by a sync writes exactly one invoice.paid', async () => {
    const invoice = env.sandbox.store.sentInvoices().find((i) => Number(i.open) > 0 && i.uncollectible === '')!;
    await env.client.registerPayment(Number(invoice.id), { amount: 'full', date: '2026-11-01', method: 'bank' });
    expect((await pull()).status).toBe('succeeded');
    const events = await eventsAfter(null);
    expect(events.map((e) => [e.type, e.record_id])).toEqual([['invoice.paid', String(invoice.id)]]);
    const [paid] = events;
    expect(paid!.entity).toBe('invoices');
    expect(paid!.body).toMatchObject({
      record: { id: String(invoice.id), invoicenr: invoice.invoicenr },
      before: { open: invoice.open },
    });
    expect(Number((paid!.body.after as { open: string }).open)).toBe(0);
    expect(paid!.body.changed).toContain('open');
    // Nothing more at the next sync: nothing changed.
    cursor = paid!.id;
    expect((await pull()).status).toBe('succeeded');
    expect(await eventsAfter(cursor)).toEqual([]);
  });

  it('part payments, reminders, new clients, stock and quotations each write theirs', async () => {
    const invoice = env.sandbox.store.sentInvoices().find((i) => Number(i.open) > 20 && i.uncollectible === '')!;
    await env.client.registerPayment(Number(invoice.id), { amount: 10, date: '2026-11-01', method: 'bank' });
    await env.client.sendReminder(String(invoice.invoicenr), false);
    const product = env.sandbox.store.list('products').find((p) => p.stock_use === 'true' || p.stock_use === true);
    if (product) await env.client.updateProduct(Number(product.id), { stock: Number(product.stock ?? 0) + 5 });
    expect((await pull()).status).toBe('succeeded');
    const types = (await eventsAfter(cursor)).map((e) => e.type);
    expect(types).toContain('invoice.partly_paid');
    expect(types).toContain('invoice.reminder_sent');
    if (product) expect(types).toContain('product.stock_changed');
    for (const type of types) expect(EVENT_TYPE_NAMES).toContain(type);
  });

  it('a change rolled back writes no event', async () => {
    const before = await eventsAfter(null);
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await sql`
            insert into changes (account_id, entity, entity_id, op, after)
            values (${database.current.accountId}, 'clients', '999999', 'insert', '{"clientnr": 999999}'::jsonb)`.execute(
            trx,
          );
          const { rows } = await sql<{ n: number }>`select count(*)::int as n from events`.execute(trx);
          expect(rows[0]!.n).toBe(before.length + 1);
          throw new Error('rolled back');
        }),
    ).rejects.toThrow('rolled back');
    expect(await eventsAfter(null)).toEqual(before);
  });

  it('jobs that end, failed runs and held deletes write theirs', async () => {
    const account = database.current.accountId;
    const { rows } = await sql<{ id: number }>`
      insert into jobs (account_id, kind, payload, status) values (${account}, 'send_reminder', '{"id": 1}', 'running')
      returning id`.execute(db());
    const job = rows[0]!.id;
    await sql`update jobs set status = 'failed', last_error = 'nothing open' where id = ${job}`.execute(db());
    const { rows: runs } = await sql<{ id: number }>`
      insert into sync_runs (account_id, kind) values (${account}, 'sync') returning id`.execute(db());
    await sql`update sync_runs set status = 'failed', error = 'the service answered 503' where id = ${runs[0]!.id}`.execute(
      db(),
    );
    await sql`
      insert into held_deletes (account_id, entity, entity_id, run_id)
      select ${account}, 'clients', g::text, ${runs[0]!.id} from generate_series(1, 3) g`.execute(db());
    const events = (await eventsAfter(null)).slice(-3);
    expect(events.map((e) => e.type)).toEqual(['job.failed', 'sync.failed', 'deletes.held']);
    expect(events[0]!.body).toEqual({ job: { id: job, kind: 'send_reminder', attempts: 0, error: 'nothing open' } });
    expect(events[2]!.body).toMatchObject({ entity: 'clients', held: 3, ids: ['1', '2', '3'] });
  });

  it('invoice.overdue: once per open invoice that passed its due date while mirrored', async () => {
    const { rows } = await sql<{ id: number }>`
      select id from invoices where deleted_at is null and open > 0 and coalesce(uncollectible, '') = '' order by id limit 2`.execute(
      db(),
    );
    const [late, early] = rows.map((row) => row.id);
    // Seen ten days ago, due yesterday: it passed its due date here. Already overdue when first seen: it did not.
    await sql`update invoices set first_seen_at = now() - interval '10 days', duedate = current_date - 1 where id = ${late!}`.execute(
      db(),
    );
    await sql`update invoices set first_seen_at = now(), duedate = current_date - 30 where id = ${early!}`.execute(
      db(),
    );
    const marked = await markOverdueInvoices(db());
    expect(marked).toBeGreaterThanOrEqual(1);
    expect(await markOverdueInvoices(db())).toBe(0);
    const overdue = (await eventsAfter(null)).filter((e) => e.type === 'invoice.overdue');
    expect(overdue.map((e) => e.record_id)).toContain(String(late));
    expect(overdue.map((e) => e.record_id)).not.toContain(String(early));
    expect(new Set(overdue.map((e) => e.record_id)).size).toBe(overdue.length);
  });

  it('with EVENTS_ON_BACKFILL a pull that fills an empty mirror writes created events', async () => {
    const { url, schema } = database.current;
    const filling = await openDatabase({
      databaseUrl: url,
      embeddedDbDir: '',
      schema,
      poolSize: 2,
      eventsOnBackfill: true,
    });
    try {
      const account = database.current.accountId;
      const { rows: runs } = await sql<{ id: number }>`
        insert into sync_runs (account_id, kind) values (${account}, 'backfill') returning id`.execute(filling.db);
      // An entity no pull has written counts for yet: an empty mirror of it.
      const insert = sql`
        insert into changes (account_id, sync_run_id, entity, entity_id, op, after)
        values (${account}, ${runs[0]!.id}, 'repeating_invoices', '777777', 'insert', '{"id": 777777, "name": "Hosting"}'::jsonb)`;
      await sql`delete from sync_runs where account_id = ${account} and id < ${runs[0]!.id} and counts ? 'repeating_invoices'`.execute(
        db(),
      );
      await insert.execute(db());
      expect((await eventsAfter(null)).filter((e) => e.record_id === '777777')).toEqual([]);
      await insert.execute(filling.db);
      const created = (await eventsAfter(null)).filter((e) => e.record_id === '777777');
      expect(created.map((e) => e.type)).toEqual(['repeating_invoice.created']);
      expect(created[0]!.body).toEqual({ record: { id: '777777', name: 'Hosting' } });
    } finally {
      await filling.close();
    }
  });
});
