/**
 * Every report against figures computed independently from the sandbox's records (wire form), on
 * a backfilled mirror; then records are deleted upstream, a sync runs, and the reports must match
 * the smaller account and no longer show the deleted records.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPORTS, findReport, runReport } from '../../src/reports/index.js';
import { runSync } from '../../src/sync/index.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';
import * as expected from './expected.js';
import type { Account, Row, Wire } from './expected.js';

const database = useTestDatabase();
// The sandbox's calendar starts today, so its dates sit around the database's current_date.
const env = useSandbox({
  perEntity: { clients: 60, products: 60, quotations: 120, saved_invoices: 90, repeating_invoices: 80 },
  sentInvoices: 300,
  now: new Date(),
});

const deps = () => ({ db: database.current.handle.db, client: env.client, schema: database.current.schema });
const SANDBOX_ENTITIES = ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'] as const;

function account(): Account {
  const store = env.sandbox.store;
  return {
    clients: store.list('clients'),
    products: store.list('products'),
    quotations: store.list('quotations'),
    saved_invoices: store.list('saved_invoices'),
    repeating_invoices: store.list('repeating_invoices'),
    invoices: store.sentInvoices(),
  };
}

/** The reference date the views use. */
async function databaseToday(): Promise<string> {
  const { rows } = await sql<{ today: string }>`select current_date::text as today`.execute(database.current.handle.db);
  return rows[0]!.today;
}

async function report(name: string): Promise<Row[]> {
  const { rows } = await runReport(database.current.handle.db, database.current.schema, findReport(name)!);
  return rows.map(expected.normaliseRow);
}

/** Each report and how to compute it from the account. */
const COMPUTED: Record<string, (account: Account, today: string) => Row[]> = {
  open_quotations: expected.openQuotations,
  quotation_pipeline: expected.quotationPipeline,
  saved_invoices_by_client: expected.savedInvoicesByClient,
  recurring_revenue: expected.recurringRevenue,
  recurring_revenue_by_frequency: expected.recurringRevenueByFrequency,
  upcoming_repeating_sends: expected.upcomingRepeatingSends,
  ending_repeating_invoices: expected.endingRepeatingInvoices,
  product_stock: expected.productStock,
  low_stock_products: expected.lowStockProducts,
  client_overview: expected.clientOverview,
  inactive_clients_with_open_documents: expected.inactiveClientsWithOpenDocuments,
  invoice_revenue_per_month: expected.invoiceRevenuePerMonth,
  open_receivables: expected.openReceivables,
  receivables_aging: expected.receivablesAging,
  client_payment_behaviour: expected.clientPaymentBehaviour,
  repeating_invoice_sends: expected.repeatingInvoiceSends,
};

async function expectReportsMatchAccount(): Promise<void> {
  const today = await databaseToday();
  const data = account();
  for (const [name, compute] of Object.entries(COMPUTED)) {
    expect(await report(name), name).toEqual(compute(data, today));
  }
}

/** Today's row of recent_changes per table. */
async function changesToday(): Promise<Map<string, Row>> {
  const today = await databaseToday();
  return new Map(
    (await report('recent_changes')).filter((row) => row.day === today).map((row) => [row.entity as string, row]),
  );
}

describe('reports on a backfilled mirror', () => {
  beforeAll(async () => {
    // Two sent invoices that a repeating invoice made (same client and total, sent since its start).
    const repeating = env.sandbox.store.list('repeating_invoices').find((r) => r.clientnr !== '0')!;
    for (const invoice of env.sandbox.store.sentInvoices().slice(0, 2))
      env.sandbox.store.setInvoiceWire(Number(invoice.id), {
        clientnr: repeating.clientnr,
        totalintax: repeating.totalintax,
        sent: repeating.initialdate,
      });
    // Make sure some stock is low but not out (the generator rarely makes one).
    const tracked = env.sandbox.store.list('products').filter((p) => p.stock_use === 'true' && Number(p.stock) > 5);
    env.sandbox.store.update('products', Number(tracked[0]!.id), { stock: 2.25 });
    env.sandbox.store.update('products', Number(tracked[1]!.id), { stock: 4 });
    const outcome = await runSync(deps(), { kind: 'backfill' });
    expect(outcome.status).toBe('succeeded');
  });

  it('every report except recent_changes is computed here', () => {
    expect(Object.keys(COMPUTED).sort()).toEqual(
      REPORTS.map((r) => r.name)
        .filter((name) => name !== 'recent_changes')
        .sort(),
    );
  });

  it.each(Object.keys(COMPUTED))('%s matches the figures computed from the service records', async (name) => {
    const today = await databaseToday();
    expect(await report(name)).toEqual(COMPUTED[name]!(account(), today));
  });

  it('the dataset exercises every report and every branch worth testing', async () => {
    for (const { name } of REPORTS) expect((await report(name)).length, name).toBeGreaterThan(0);
    const stages = new Set((await report('quotation_pipeline')).map((row) => row.stage));
    expect([...stages].sort()).toEqual(['approved', 'declined', 'draft', 'open']);
    const statuses = new Set((await report('product_stock')).map((row) => row.stock_status));
    for (const status of ['negative', 'out of stock', 'low', 'in stock']) expect(statuses).toContain(status);
    const frequencies = (await report('recurring_revenue_by_frequency')).map((row) => row.frequency);
    expect(frequencies.length).toBeGreaterThan(5);
    const sends = await report('upcoming_repeating_sends');
    expect(sends.some((row) => row.frequency === 'weekly')).toBe(true);
    // Some next send dates are in the past (the service has not moved them on): no send before today.
    const today = await databaseToday();
    const stale = env.sandbox.store.list('repeating_invoices').filter((r) => String(r.nextsenddate) < today);
    expect(stale.length).toBeGreaterThan(0);
    expect(sends.every((row) => String(row.send_date) >= today)).toBe(true);
    expect((await report('saved_invoices_by_client')).some((row) => row.client_number === 0)).toBe(true);
    expect((await report('repeating_invoice_sends'))[0]!.matched_invoice_count).toBeGreaterThanOrEqual(2);
    const buckets = (await report('receivables_aging')).map((row) => row.aging_bucket);
    expect(buckets).toEqual(['0-30', '31-60', '61-90', '90+']);
    const late = (await report('client_payment_behaviour')).map((row) => row.average_days_late as number | null);
    expect(late.some((days) => days !== null && days < 0) && late.some((days) => days !== null && days > 0)).toBe(true);
  });

  it('recent_changes counts what the backfill inserted, per table', async () => {
    const rows = await changesToday();
    for (const entity of SANDBOX_ENTITIES) {
      expect(rows.get(entity), entity).toMatchObject({
        inserted: env.sandbox.store.list(entity).length,
        updated: 0,
        deleted: 0,
        restored: 0,
        total_changes: env.sandbox.store.list(entity).length,
      });
    }
    expect(rows.get('countries')?.inserted).toBeGreaterThan(200);
  });

  it('the monthly amount follows the frequency (weekly x52/12 … yearly x1/12)', async () => {
    const factors: Record<string, number> = {
      weekly: 52 / 12,
      biweekly: 26 / 12,
      fourweekly: 13 / 12,
      monthly: 1,
      bimonthly: 1 / 2,
      quarterly: 1 / 3,
      halfyearly: 1 / 6,
      yearly: 1 / 12,
    };
    for (const row of await report('recurring_revenue')) {
      const monthly = (row.amount_per_invoice as number) * factors[row.frequency as string]!;
      expect(Math.abs((row.monthly_amount as number) - monthly), String(row.repeating_invoice_id)).toBeLessThanOrEqual(
        0.5,
      );
    }
  });

  it('a capitalised frequency counts the same', async () => {
    // The sandbox stores what it is given; the views compare case-insensitively.
    const { db } = database.current.handle;
    await sql`update repeating_invoices set frequency = 'Quarterly' where id = 1`.execute(db);
    try {
      const [row] = (await report('recurring_revenue')).filter((r) => r.repeating_invoice_id === 1);
      expect(row!.frequency).toBe('quarterly');
      expect(row!.sends_per_year).toBe(4);
    } finally {
      await sql`update repeating_invoices set frequency = lower(frequency) where id = 1`.execute(db);
    }
  });

  describe('after records are deleted upstream and a sync', () => {
    const deleted: Record<(typeof SANDBOX_ENTITIES)[number], number[]> = {
      clients: [],
      products: [],
      quotations: [],
      saved_invoices: [],
      repeating_invoices: [],
    };
    let before: Account;

    beforeAll(async () => {
      before = account();
      const today = await databaseToday();
      const pick = (list: Wire[], where: (record: Wire) => boolean, key = 'id'): number => {
        const found = list.find(where);
        if (!found) throw new Error('the dataset has no record to delete for this case');
        return Number(found[key]);
      };
      const open = expected.openQuotations(before, today);
      const inactive = expected.inactiveClientsWithOpenDocuments(before, today);
      const savedClients = expected
        .savedInvoicesByClient(before)
        .filter((row) => (row.saved_invoice_count as number) >= 2 && row.client_number !== 0);
      deleted.quotations.push(
        open[0]!.quotation_id as number,
        pick(before.quotations, (q) => typeof q.approved === 'object' && !Array.isArray(q.approved)),
        pick(before.quotations, (q) => q.sent === 'false'),
      );
      deleted.saved_invoices.push(
        pick(before.saved_invoices, (s) => Number(s.clientnr) === savedClients[0]!.client_number),
      );
      deleted.repeating_invoices.push(
        pick(before.repeating_invoices, (r) => r.finalsenddate !== ''),
        pick(before.repeating_invoices, (r) => r.finalsenddate === ''),
      );
      deleted.products.push(
        ...expected
          .lowStockProducts(before)
          .slice(0, 2)
          .map((row) => row.product_id as number),
      );
      // An inactive client with open work, a client whose saved invoices stay, and one more.
      deleted.clients.push(
        inactive[0]!.client_number as number,
        savedClients[1]!.client_number as number,
        pick(before.clients, (c) => c.active === 'true', 'clientnr'),
      );
      for (const [entity, ids] of Object.entries(deleted))
        for (const id of ids) env.sandbox.store.delete(entity as keyof typeof deleted, id);
      const outcome = await runSync(deps(), { kind: 'sync' });
      expect(outcome.status).toBe('succeeded');
    });

    it('the mirror keeps the deleted records, marked deleted', async () => {
      for (const [entity, ids] of Object.entries(deleted)) {
        const key = entity === 'clients' ? 'clientnr' : 'id';
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from ${sql.table(entity)} where deleted_at is not null and ${sql.ref(key)} in (${sql.join(ids)})`.execute(
          database.current.handle.db,
        );
        expect(rows[0]!.n, entity).toBe(ids.length);
      }
    });

    it('every report matches the figures computed from what is left', async () => {
      await expectReportsMatchAccount();
    });

    it('deleted records are gone from every report', async () => {
      const idsIn = async (name: string, column: string) => new Set((await report(name)).map((row) => row[column]));
      for (const id of deleted.quotations) expect((await idsIn('open_quotations', 'quotation_id')).has(id)).toBe(false);
      for (const name of ['recurring_revenue', 'upcoming_repeating_sends', 'ending_repeating_invoices']) {
        for (const id of deleted.repeating_invoices)
          expect((await idsIn(name, 'repeating_invoice_id')).has(id), name).toBe(false);
      }
      for (const name of ['product_stock', 'low_stock_products']) {
        for (const id of deleted.products) expect((await idsIn(name, 'product_id')).has(id), name).toBe(false);
      }
      for (const name of ['client_overview', 'inactive_clients_with_open_documents']) {
        for (const id of deleted.clients) expect((await idsIn(name, 'client_number')).has(id), name).toBe(false);
      }
      // Pipeline and per-client totals shrink by exactly the deleted documents.
      const count = (rows: Row[], column: string) => rows.reduce((sum, row) => sum + (row[column] as number), 0);
      expect(count(await report('quotation_pipeline'), 'quotation_count')).toBe(
        before.quotations.length - deleted.quotations.length,
      );
      expect(count(await report('saved_invoices_by_client'), 'saved_invoice_count')).toBe(
        before.saved_invoices.length - deleted.saved_invoices.length,
      );
    });

    it('saved invoices of a deleted client still count, under the name on the invoice', async () => {
      const gone = deleted.clients[1]!;
      const [row] = (await report('saved_invoices_by_client')).filter((r) => r.client_number === gone);
      const invoice = before.saved_invoices.filter((s) => Number(s.clientnr) === gone).at(-1)!;
      expect(row!.client_name).toBe((invoice.company as string) || (invoice.contact as string));
    });

    it('recent_changes counts the deletes', async () => {
      const rows = await changesToday();
      for (const entity of SANDBOX_ENTITIES) {
        expect(rows.get(entity), entity).toMatchObject({ deleted: deleted[entity].length, updated: 0, restored: 0 });
      }
    });
  });
});
