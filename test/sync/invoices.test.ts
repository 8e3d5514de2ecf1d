/**
 * Sent invoices are pulled incrementally between full, reconciling pulls (src/sync/incremental.ts):
 * a sync lists only the invoices sent since the last pull and the open ones, and reads one by one
 * the ones the mirror holds as open that left the open list. Each test checks the requests made,
 * and that the mirror then equals the sandbox field by field.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { pullerFor, useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({ records: 100, sentInvoices: 400, now: '2026-11-01' }, { pageSize: 50, rateLimitPauseMs: 100 });

const db = () => database.current.handle.db;
const pull = pullerFor(database, env, { entities: ['invoices'] });

/** The requests of the last pull to the invoices endpoints, as paths. */
function invoiceRequests(): string[] {
  return env.sandbox.calls
    .map((c) => c.path.replace('/api/v1', '') + (c.query ? `?${c.query.replace(/^\?/, '')}` : ''))
    .filter((p) => p.startsWith('/invoices'));
}

/** Requests to read a list of n records in pages of 50: the pages with records, and the empty one that ends it. */
const pagesFor = (n: number): number => Math.ceil(n / 50) + 1;

const money = (value: unknown): number | null => (value === '' || value == null ? null : Number(value));
const day = (value: unknown): string | null => (value === '' || value == null ? null : String(value));

/** The mirror equals the sandbox: the same live invoices, each with its record as sent and its typed fields. */
async function expectMirrorEqualsSandbox(): Promise<void> {
  const upstream = env.sandbox.store.sentInvoices();
  const { rows } = await sql<{
    id: number;
    invoicenr: string;
    raw: unknown;
    open: string | null;
    totalintax: string | null;
    sent: string | null;
    paiddate: string | null;
    lastreminder: string | null;
    history: unknown;
  }>`select id, invoicenr, raw, open, totalintax, sent, paiddate, lastreminder, history
       from invoices where deleted_at is null order by id`.execute(db());
  expect(rows.map((r) => r.id)).toEqual(upstream.map((i) => Number(i.id)));
  for (const [i, row] of rows.entries()) {
    const wire = upstream[i]!;
    expect(row.raw, `invoice ${row.id}`).toEqual(wire);
    expect(
      {
        invoicenr: row.invoicenr,
        open: money(row.open),
        totalintax: money(row.totalintax),
        sent: row.sent,
        paiddate: row.paiddate,
        lastreminder: row.lastreminder,
        history: row.history,
      },
      `invoice ${row.id}`,
    ).toEqual({
      invoicenr: wire.invoicenr,
      open: money(wire.open),
      totalintax: money(wire.totalintax),
      sent: day(wire.sent),
      paiddate: day(wire.paiddate),
      lastreminder: day(wire.lastreminder),
      history: wire.history,
    });
  }
}

describe('invoices: incremental pulls', () => {
  it('a first sync pulls them in full; the mirror equals the sandbox, lines included', async () => {
    env.sandbox.clearCalls();
    const outcome = await pull();
    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.invoices).toMatchObject({ fetched: 400, inserted: 400, complete: true });
    expect(outcome.entities.invoices!.incremental).toBeUndefined();
    // 400 records in pages of 50, and the empty page that ends the list.
    expect(invoiceRequests()).toHaveLength(9);
    await expectMirrorEqualsSandbox();
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from document_lines where document_type = 'invoice'`.execute(db());
    const expectedLines = env.sandbox.store
      .sentInvoices()
      .reduce((sum, i) => sum + (Array.isArray(i.lines) ? i.lines.length : Object.keys(i.lines as object).length), 0);
    expect(rows[0]!.n).toBe(expectedLines);
  });

  it('a sync with nothing new lists only the recent and the open invoices, and writes nothing', async () => {
    env.sandbox.clearCalls();
    const { rows: before } = await sql<{ n: number }>`select count(*)::int as n from changes`.execute(db());
    const outcome = await pull();
    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.invoices).toMatchObject({ incremental: true, inserted: 0, updated: 0, complete: true });
    const requests = invoiceRequests();
    const open = env.sandbox.store.sentInvoices().filter((i) => Number(i.open) > 0 && i.uncollectible === '');
    // since=<the latest send date, less 3 days>, then filter=open in pages of 50.
    const latest = env.sandbox.store
      .sentInvoices()
      .map((i) => String(i.sent))
      .filter((d) => d !== '')
      .sort()
      .at(-1)!;
    const since = new Date(Date.parse(`${latest}T00:00:00Z`) - 3 * 86_400_000).toISOString().slice(0, 10);
    expect(requests[0]).toBe(`/invoices?since=${since}&count=50&start=0`);
    const recent = env.sandbox.store.sentInvoices().filter((i) => String(i.sent) >= since);
    expect(requests.filter((p) => p.includes('since='))).toHaveLength(pagesFor(recent.length));
    expect(requests.filter((p) => p.includes('filter=open'))).toHaveLength(pagesFor(open.length));
    expect(requests.every((p) => p.includes('since=') || p.includes('filter=open'))).toBe(true);
    expect(requests.length).toBeLessThan(9);
    const { rows: after } = await sql<{ n: number }>`select count(*)::int as n from changes`.execute(db());
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('a payment made upstream, an invoice paid in full and a new invoice show up at the next sync', async () => {
    const invoices = env.sandbox.store.sentInvoices();
    const partly = invoices.find((i) => Number(i.open) > 20 && i.uncollectible === '')!;
    const paidOff = invoices.find((i) => Number(i.open) > 0 && i.uncollectible === '' && i.id !== partly.id)!;
    await env.client.registerPayment(Number(partly.id), { amount: 10, date: '2026-11-01', method: 'bank' });
    await env.client.registerPayment(Number(paidOff.id), { amount: 'full', date: '2026-11-01', method: 'bank' });
    const saved = env.sandbox.store.list('saved_invoices').find((s) => s.clientnr !== '0')!;
    await env.client.sendSavedInvoices([Number(saved.id)], { delete: false });
    const made = env.sandbox.store.sendLog().at(-1)!;
    env.sandbox.clearCalls();

    const outcome = await pull();
    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.invoices).toMatchObject({ incremental: true, inserted: 1, updated: 2 });
    // The one paid in full left the open list: it is read on its own.
    expect(invoiceRequests()).toContain(`/invoices/${paidOff.id}`);
    expect(invoiceRequests().filter((p) => /^\/invoices\/\d+$/.test(p))).toEqual([`/invoices/${paidOff.id}`]);
    await expectMirrorEqualsSandbox();
    const { rows } = await sql<{ entity_id: string; op: string; changed_fields: string[] | null }>`
      select entity_id, op, changed_fields from changes where sync_run_id = ${outcome.runId} order by entity_id`.execute(
      db(),
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        { entity_id: String(made.invoiceId), op: 'insert', changed_fields: null },
        {
          entity_id: paidOff.id,
          op: 'update',
          changed_fields: expect.arrayContaining(['open', 'paiddate', 'history']),
        },
        { entity_id: partly.id, op: 'update', changed_fields: expect.arrayContaining(['open', 'history']) },
      ]),
    );
  });

  it('an invoice deleted upstream is swept only by a full, reconciling pull', async () => {
    const closed = env.sandbox.store.sentInvoices().find((i) => i.open === '0' && i.paiddate !== '')!;
    env.sandbox.store.deleteInvoice(Number(closed.id));
    const incremental = await pull();
    expect(incremental.status).toBe('succeeded');
    expect(incremental.entities.invoices).toMatchObject({ incremental: true, deleted: 0 });
    const live = await sql<{
      deleted_at: Date | null;
    }>`select deleted_at from invoices where id = ${Number(closed.id)}`.execute(db());
    expect(live.rows[0]!.deleted_at).toBeNull();

    env.sandbox.clearCalls();
    const full = await pull({ full: true });
    expect(full.status).toBe('succeeded');
    expect(full.entities.invoices!.incremental).toBeUndefined();
    expect(full.entities.invoices).toMatchObject({ deleted: 1, complete: true });
    expect(invoiceRequests().every((p) => !p.includes('since=') && !p.includes('filter='))).toBe(true);
    await expectMirrorEqualsSandbox();
  });

  it('an open invoice that cannot be found is held, the run says so, and the next pull reconciles it', async () => {
    const open = env.sandbox.store.sentInvoices().find((i) => Number(i.open) > 0 && i.uncollectible === '')!;
    env.sandbox.store.deleteInvoice(Number(open.id));
    const held = await pull();
    expect(held.status).not.toBe('succeeded');
    expect(held.error).toContain('1 record(s) the mirror holds as open were not found upstream');
    const { rows } = await sql<{
      deleted_at: Date | null;
    }>`select deleted_at from invoices where id = ${Number(open.id)}`.execute(db());
    expect(rows[0]!.deleted_at).toBeNull();

    const next = await pull();
    expect(next.status).toBe('succeeded');
    expect(next.entities.invoices!.incremental).toBeUndefined();
    expect(next.entities.invoices).toMatchObject({ deleted: 1 });
    await expectMirrorEqualsSandbox();
  });

  it('a sync pulls in full again once the last full pull is older than the reconcile interval', async () => {
    expect((await pull()).entities.invoices!.incremental).toBe(true);
    await sql`update entity_pulls set last_complete_at = now() - interval '25 hours' where entity = 'invoices'`.execute(
      db(),
    );
    const outcome = await pull();
    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.invoices!.incremental).toBeUndefined();
    expect((await pull()).entities.invoices!.incremental).toBe(true);
  });

  it('while deletes are held the next pull of invoices is a full one, which keeps them held until a person releases them', async () => {
    const paid = env.sandbox.store.sentInvoices().filter((i) => i.open === '0' && i.paiddate !== '');
    for (const invoice of paid.slice(0, 60)) env.sandbox.store.deleteInvoice(Number(invoice.id));
    const holding = await pull({ full: true });
    expect(holding.status).not.toBe('succeeded');
    expect(holding.entities.invoices).toMatchObject({ held: 60, deleted: 0 });
    // An incremental pull could not judge them and would say it succeeded: the next one is full,
    // and still holds them: only a person releases held deletes (issue 30).
    const still = await pull();
    expect(still.entities.invoices!.incremental).toBeUndefined();
    expect(still.status).not.toBe('succeeded');
    expect(still.entities.invoices).toMatchObject({ held: 60, deleted: 0 });
    const confirming = await pull({ allowDeletes: ['invoices'] });
    expect(confirming.entities.invoices!.incremental).toBeUndefined();
    expect(confirming.status).toBe('succeeded');
    expect(confirming.entities.invoices).toMatchObject({ deleted: 60, held: 0 });
    await expectMirrorEqualsSandbox();
    const after = await pull();
    expect(after.entities.invoices!.incremental).toBe(true);
    expect(after.status).toBe('succeeded');
  });

  it('a value stored other than as sent keeps incremental pulls from saying they succeeded until a full pull reads it again', async () => {
    const closed = env.sandbox.store.sentInvoices().find((i) => i.open === '0' && i.paiddate !== '')!;
    env.sandbox.store.setInvoiceWire(Number(closed.id), { paiddate: '2026-02-30' });
    const full = await pull({ full: true });
    expect(full.status).not.toBe('succeeded');
    expect(full.entities.invoices!.rejected).toBe(1);
    const incremental = await pull();
    expect(incremental.entities.invoices!.incremental).toBe(true);
    expect(incremental.status).not.toBe('succeeded');
    expect(incremental.error).toContain('1 value(s) stored other than as sent by an earlier pull');

    env.sandbox.store.setInvoiceWire(Number(closed.id), { paiddate: '2026-02-27' });
    expect((await pull()).status).not.toBe('succeeded'); // the invoice is closed: only a full pull reads it
    expect((await pull({ full: true })).status).toBe('succeeded');
    await expectMirrorEqualsSandbox();
    const clean = await pull();
    expect(clean.entities.invoices!.incremental).toBe(true);
    expect(clean.status).toBe('succeeded');
  });

  it('an error object answered with 200 fails the pull with the service message, is stored nowhere, and the next sync succeeds', async () => {
    const SERVICE_MESSAGE = 'Er is een fout opgetreden bij het ophalen van de gegevens (code 500)';
    const rejectedRows = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from rejected_values`.execute(db())).rows[0]!.n;
    const deletes = async (runId: number) =>
      (
        await sql<{ n: number }>`
          select count(*)::int as n from changes where sync_run_id = ${runId} and op = 'delete'`.execute(db())
      ).rows[0]!.n;
    expect(await rejectedRows()).toBe(0);

    // Instead of a list: the list fails, and no record without an id is reported.
    env.sandbox.failNext('error200', 1, { pathPrefix: '/invoices' });
    const listFailed = await pull();
    expect(listFailed.entities.invoices).toMatchObject({ incremental: true, complete: false, rejected: 0 });
    expect(listFailed.status).toBe('failed');
    expect(listFailed.error).toMatch(
      /^invoices: GET \/invoices\?since=[\d-]+&count=50&start=0: 200 answer was an error, not a list: /,
    );
    expect(listFailed.error!.endsWith(SERVICE_MESSAGE)).toBe(true);
    expect(await rejectedRows()).toBe(0);
    expect(await deletes(listFailed.runId)).toBe(0);

    // Instead of an invoice read on its own (one paid in full): the pull fails; it is not "not found".
    const paidOff = env.sandbox.store.sentInvoices().find((i) => Number(i.open) > 0 && i.uncollectible === '')!;
    await env.client.registerPayment(Number(paidOff.id), { amount: 'full', date: '2026-11-01', method: 'bank' });
    env.sandbox.failNext('error200', 1, { pathPrefix: `/invoices/${paidOff.id}` });
    const readFailed = await pull();
    expect(readFailed.status).not.toBe('succeeded');
    expect(readFailed.error).toBe(
      `invoices: GET /invoices/${paidOff.id}: 200 answer was an error, not a record: ${SERVICE_MESSAGE}`,
    );
    expect(await rejectedRows()).toBe(0);
    expect(await deletes(readFailed.runId)).toBe(0);

    // Without the fault, the next incremental sync succeeds: nothing of the error lingers.
    const next = await pull();
    expect(next.entities.invoices!.incremental).toBe(true);
    expect(next.status).toBe('succeeded');
    await expectMirrorEqualsSandbox();
  });

  it('a failed incremental pull does not move the cursor on', async () => {
    const before = await sql<{ since: string }>`
      select since_cursor::text as since from entity_pulls where entity = 'invoices'`.execute(db());
    env.sandbox.clock.advanceDays(5);
    env.sandbox.failNext('html500', 10, { pathPrefix: '/invoices' });
    const failed = await pull();
    expect(failed.status).not.toBe('succeeded');
    const after = await sql<{ since: string }>`
      select since_cursor::text as since from entity_pulls where entity = 'invoices'`.execute(db());
    expect(after.rows[0]!.since).toBe(before.rows[0]!.since);
  });
});
