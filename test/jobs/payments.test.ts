/**
 * The payments ledger (`payments`): a payment the mirror registers through a `register_payment`
 * job is one row, also once its refresh and the next pulls see the invoice's open amount drop; a
 * payment made elsewhere (the web application) is observed by the next pull, with the paid date
 * when it paid the invoice; a "full" payment gets its amount from what the drop shows; and two
 * payments seen in one drop are told apart from the registered one. Checked against the sandbox's
 * own log of what was paid.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { insertJob, jobRow, useJobsEnv } from './helpers.js';

const env = useJobsEnv();
const db = () => env.database.current.handle.db;

interface PaymentRow {
  invoice_id: number;
  source: string;
  paid_on: string | null;
  amount: string | null;
  method: string | null;
  job_id: number | null;
  change_id: number | null;
}

async function paymentsOf(invoice: number): Promise<PaymentRow[]> {
  const { rows } = await sql<PaymentRow>`
    select invoice_id, source, paid_on::text, amount::text, method, job_id::int, change_id::int
      from payments where invoice_id = ${invoice} order by id`.execute(db());
  return rows;
}

async function pay(payload: Record<string, unknown>): Promise<number> {
  const id = await insertJob(env.database.current.handle, 'register_payment', payload);
  expect(await env.runner().runUntilEmpty()).toEqual({ ran: 1, failed: 0 });
  expect((await jobRow(env.database.current.handle, id)).status).toBe('succeeded');
  return id;
}

/** Open invoices of the sandbox with more than `least` open, not yet touched by a test. */
const used = new Set<number>();
function openInvoice(least = 50): { id: number; open: number } {
  const invoice = env.box.sandbox.store
    .sentInvoices()
    .find((i) => Number(i.open) > least && !used.has(Number(i.id)) && i.uncollectible === '')!;
  used.add(Number(invoice.id));
  return { id: Number(invoice.id), open: Number(invoice.open) };
}

describe('the payments ledger', () => {
  it('a registered payment is one row, however often the pulls see its drop', async () => {
    const { id } = openInvoice();
    const job = await pay({ id, amount: 12.5, date: '2026-10-30', method: 'cash' });
    await env.sync({ kind: 'sync' });
    await env.sync({ kind: 'backfill' });
    const rows = await paymentsOf(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ source: 'registered', paid_on: '2026-10-30', amount: '12.50', method: 'cash' });
    expect(rows[0]!.job_id).toBe(job);
    expect(rows[0]!.change_id).not.toBeNull(); // the job's refresh saw the drop
  });

  it('"full" takes its amount from the drop; a payment made elsewhere is observed, with the paid date', async () => {
    const full = openInvoice();
    await pay({ id: full.id, amount: 'full', date: '2026-10-31' });
    const rows = await paymentsOf(full.id);
    expect(rows).toEqual([expect.objectContaining({ source: 'registered', amount: full.open.toFixed(2) })]);

    const elsewhere = openInvoice();
    env.box.sandbox.store.setInvoiceWire(elsewhere.id, { open: '0', paiddate: '2026-11-02' });
    await env.sync({ kind: 'sync' });
    expect(await paymentsOf(elsewhere.id)).toEqual([
      expect.objectContaining({
        source: 'observed',
        paid_on: '2026-11-02',
        amount: elsewhere.open.toFixed(2),
        method: null,
      }),
    ]);
  });

  it('a registered payment whose drop holds another payment too: the rest is observed, nothing counted twice', async () => {
    const { id, open } = openInvoice(100);
    const job = await pay({ id, amount: 20, date: '2026-11-03', method: 'bank' });
    // Paid 30 more in the web application before the next pull: the mirror sees the rest drop.
    env.box.sandbox.store.setInvoiceWire(id, { open: (open - 50).toFixed(2) });
    await env.sync({ kind: 'sync' });
    await env.sync({ kind: 'backfill' });
    const rows = await paymentsOf(id);
    expect(rows.map((r) => [r.source, r.amount, r.job_id])).toEqual([
      ['registered', '20.00', job],
      ['observed', '30.00', null],
    ]);
    const paid = env.box.sandbox.store.paymentLog().filter((p) => p.invoiceId === id);
    expect(paid.map((p) => p.body.amount)).toEqual([20]);
  });

  it('payments_received adds them up per month, method and source', async () => {
    const { rows } = await sql<{ month: string; method: string; source: string; amount: string }>`
      select month, method, source, amount::text from payments_received order by month, method, source`.execute(db());
    const { rows: all } = await sql<{ n: string }>`select coalesce(sum(amount), 0)::text as n from payments`.execute(
      db(),
    );
    const total = rows.reduce((sum, row) => sum + Math.round(Number(row.amount) * 100), 0);
    expect(total).toBe(Math.round(Number(all[0]!.n) * 100));
    expect(rows.some((row) => row.source === 'observed' && row.method === 'unknown')).toBe(true);
    expect(rows.some((row) => row.source === 'registered' && row.method === 'cash' && row.month === '2026-10')).toBe(
      true,
    );
  });
});
