/**
 * Every report against figures computed independently from two sandbox accounts' records (wire
 * form), both in one mirror, with the same client numbers, ids and invoice numbers: each report
 * per account, and all accounts at once. Then records of one account are deleted, and the reports
 * must match the smaller account, no longer show the deleted records, and leave the other account
 * as it was.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AccountScope } from '../../src/db/scope.js';
import { REPORTS, findReport, runReport } from '../../src/reports/index.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';
import * as expected from './expected.js';
import * as vat from './expected-vat.js';
import type { Account, AccountRef, Row, Wire } from './expected.js';
import { addAccount, loadAccount, markDeleted, type AccountRecords } from './load.js';

const database = useTestDatabase();
// The sandbox's calendar starts today, so its dates sit around the database's current_date.
const alphaService = useSandbox({
  perEntity: { clients: 60, products: 60, quotations: 120, saved_invoices: 90, repeating_invoices: 80 },
  sentInvoices: 300,
  now: new Date(),
});
const betaService = useSandbox({
  perEntity: { clients: 40, products: 30, quotations: 70, saved_invoices: 50, repeating_invoices: 40 },
  sentInvoices: 150,
  now: new Date(),
  seed: 8,
});

const db = () => database.current.handle.db;
const SANDBOX_ENTITIES = ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'] as const;
type SandboxEntity = (typeof SANDBOX_ENTITIES)[number];
const COUNTRIES: Record<string, Wire[]> = {
  alpha: [
    // The sandbox's ids (it serves the service's own list).
    { id: '146', name: 'Nederland' },
    { id: '18', name: 'België' },
    { id: '50', name: 'Duitsland' },
  ],
  beta: [
    { id: '146', name: 'Netherlands' },
    { id: '21', name: 'Belgium' },
  ],
};

/** The codes the mirror should give the test's country names (the English ones it does not know). */
const CODES: Record<string, string> = { Nederland: 'NL', België: 'BE', Duitsland: 'DE' };
/** Beta files the Belgian return; alpha the Dutch one. */
const vatCountryOf = (name: string): 'NL' | 'BE' => (name === 'beta' ? 'BE' : 'NL');
/** What the VAT oracles need beside an account's records: its countries and VAT country. */
function vatAccount(data: Account): vat.VatAccount {
  const { account, countries } = accounts.find((a) => a.data === data)!;
  const vatCountry = vatCountryOf(account.name);
  return {
    invoices: data.invoices,
    vatCountry,
    countries: new Map(
      countries.map((c) => [String(c.id), { name: String(c.name), code: CODES[String(c.name)] ?? null }]),
    ),
  };
}
/** The payments the test registers for alpha through register_payment jobs. */
const PAYMENTS: vat.RegisteredPayment[] = [];

/** The accounts as loaded, and the records each still has (deletes take records out). */
const accounts: { account: AccountRef; data: Account; countries: Wire[] }[] = [];
const named = (name: string) => accounts.find((a) => a.account.name === name)!;

function recordsOf(service: typeof alphaService): Account {
  const store = service.sandbox.store;
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
  const { rows } = await sql<{ today: string }>`select current_date::text as today`.execute(db());
  return rows[0]!.today;
}

async function report(name: string, scope: AccountScope = 'all'): Promise<Row[]> {
  const { rows } = await runReport(db(), database.current.schema, findReport(name)!, { scope });
  return rows.map(expected.normaliseRow);
}

/** Each report of one account's figures and how to compute it from the account's records. */
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
  receivables_by_account: expected.receivablesByAccount,
  vat_entries: (data) => vat.vatEntries(vatAccount(data)),
  vat_problems: (data) => vat.vatProblems(vatAccount(data)),
  vat_return_nl: (data) => vat.vatReturnNl(vatAccount(data)),
  vat_return_be: (data) => vat.vatReturnBe(vatAccount(data)),
  icp_return: (data) => vat.icpReturn(vatAccount(data)),
  payments_received: (data) => (vatAccount(data).vatCountry === 'NL' ? vat.paymentsReceived(PAYMENTS) : []),
};

/** Reports over every account with oracles of their own (recent_changes is checked apart). */
const CROSS_ACCOUNT = ['revenue_per_account_month', 'accounts_overview'];

async function expectReportsMatchAccounts(): Promise<void> {
  const today = await databaseToday();
  for (const [name, compute] of Object.entries(COMPUTED)) {
    for (const { account, data } of accounts) {
      expect(await report(name, { ids: [account.id] }), `${name} of ${account.name}`).toEqual(
        expected.withAccount(compute(data, today), account),
      );
    }
    expect(await report(name), `${name} of all accounts`).toEqual(
      expected.perAccount(accounts, (data) => compute(data, today)),
    );
  }
  expect(await report('revenue_per_account_month')).toEqual(expected.revenuePerAccountMonth(accounts));
}

/** Today's row of recent_changes per table, of one account. */
async function changesToday(account: AccountRef): Promise<Map<string, Row>> {
  const today = await databaseToday();
  return new Map(
    (await report('recent_changes', { ids: [account.id] }))
      .filter((row) => row.day === today)
      .map((row) => [row.entity as string, row]),
  );
}

/** The bookkeeping accounts_overview counts: runs, jobs, held deletes and rejected values. */
async function addBookkeeping(account: AccountRef, runs: number, jobs: readonly string[]): Promise<void> {
  for (let i = 0; i < runs; i++) {
    await sql`
      insert into sync_runs (kind, status, finished_at, account_id)
      values ('sync', 'succeeded', now() - make_interval(hours => ${i + 1}), ${account.id}),
             ('refresh', 'succeeded', now(), ${account.id}),
             ('sync', 'failed', now(), ${account.id})`.execute(db());
  }
  for (const status of jobs)
    await sql`insert into jobs (kind, payload, status, account_id) values ('delete_client', '{"clientnr": 1}', ${status}, ${account.id})`.execute(
      db(),
    );
  await sql`insert into held_deletes (entity, entity_id, account_id) values ('clients', '1', ${account.id})`.execute(
    db(),
  );
  for (const field of ['lastinvoice', 'mandate_date'])
    await sql`
      insert into rejected_values (entity, entity_id, field, action, value, reason, account_id)
      values ('clients', '1', ${field}, 'rejected', '"2027-02-30"', 'not a date', ${account.id})`.execute(db());
}

/** Three payments alpha registered through jobs (one "full"), as the job runner ends them: its payments. */
async function addPayments(account: AccountRef, data: Account): Promise<void> {
  const open = data.invoices.filter((i) => Number(i.open) > 10).slice(0, 3);
  for (const [n, invoice] of open.entries()) {
    const payment: vat.RegisteredPayment = {
      id: Number(invoice.id),
      amount: n === 0 ? 'full' : n * 10,
      date: `2026-0${n + 1}-15`,
      method: n === 2 ? 'cash' : 'bank',
    };
    const { rows } = await sql<{ id: number }>`
      insert into jobs (kind, payload, status, account_id)
      values ('register_payment', ${JSON.stringify(payment)}::text::jsonb, 'running', ${account.id}) returning id`.execute(
      db(),
    );
    await sql`update jobs set status = 'succeeded', finished_at = now() where id = ${rows[0]!.id}`.execute(db());
    PAYMENTS.push(payment);
  }
}

async function expectOverviewMatches(): Promise<void> {
  const { rows: runs } = await sql<{ account_id: number; kind: string; status: string; finished_at: Date | null }>`
    select account_id, kind, status, finished_at from sync_runs`.execute(db());
  const { rows: jobs } = await sql<{ account_id: number; status: string }>`select account_id, status from jobs`.execute(
    db(),
  );
  const books: expected.AccountBook[] = accounts.map(({ account, data, countries }) => ({
    account,
    state: 'active',
    state_reason: null,
    records: { ...data, countries },
    runs: runs.filter((run) => run.account_id === account.id),
    jobStatuses: jobs.filter((job) => job.account_id === account.id).map((job) => job.status),
    held_deletes: 1,
    rejected_values: 2,
  }));
  // The test database's own account, `default`, with nothing in it.
  books.push({
    account: { id: database.current.accountId, name: 'default' },
    state: 'active',
    state_reason: null,
    records: {},
    runs: [],
    jobStatuses: [],
    held_deletes: 0,
    rejected_values: 0,
  });
  const rows = (await report('accounts_overview')).map(({ sync_age: _, ...row }) => row);
  expect(rows).toEqual(expected.accountsOverview(books));
  const { rows: ages } = await sql<{ right: boolean }>`
    select sync_age = date_trunc('second', now() - last_complete_sync_at) as right
      from accounts_overview where last_complete_sync_at is not null`.execute(db());
  expect(ages.map((age) => age.right)).toEqual([true, true]);
}

describe('reports on a mirror of two accounts', () => {
  beforeAll(async () => {
    // Two sent invoices that a repeating invoice made (same client and total, sent since its start).
    const store = alphaService.sandbox.store;
    const repeating = store.list('repeating_invoices').find((r) => r.clientnr !== '0')!;
    for (const invoice of store.sentInvoices().slice(0, 2))
      store.setInvoiceWire(Number(invoice.id), {
        clientnr: repeating.clientnr,
        totalintax: repeating.totalintax,
        sent: repeating.initialdate,
      });
    // And one of the other account that would match it too, were accounts not told apart.
    const [other] = betaService.sandbox.store.sentInvoices();
    betaService.sandbox.store.setInvoiceWire(Number(other!.id), {
      clientnr: repeating.clientnr,
      totalintax: repeating.totalintax,
      sent: repeating.initialdate,
    });
    // Make sure some stock is low but not out (the generator rarely makes one).
    const tracked = store.list('products').filter((p) => p.stock_use === 'true' && Number(p.stock) > 5);
    store.update('products', Number(tracked[0]!.id), { stock: 2.25 });
    store.update('products', Number(tracked[1]!.id), { stock: 4 });
    // Made in this order, beta has the smaller id: the reports list accounts by name.
    for (const [name, service] of [
      ['beta', betaService],
      ['alpha', alphaService],
    ] as const) {
      const account = { id: await addAccount(db(), name), name };
      const data = recordsOf(service);
      await sql`update accounts set vat_country = ${vatCountryOf(name)} where id = ${account.id}`.execute(db());
      await loadAccount(db(), account.id, { ...data, countries: COUNTRIES[name]! } as AccountRecords);
      accounts.push({ account, data, countries: COUNTRIES[name]! });
    }
    await addPayments(named('alpha').account, named('alpha').data);
    await addBookkeeping(named('alpha').account, 2, ['queued', 'queued', 'failed', 'succeeded', 'interrupted']);
    await addBookkeeping(named('beta').account, 1, ['running', 'cancelled']);
  });

  it('every report is computed here', () => {
    expect([...Object.keys(COMPUTED), ...CROSS_ACCOUNT, 'recent_changes'].sort()).toEqual(
      REPORTS.map((r) => r.name).sort(),
    );
  });

  it('every view ends with account_id and account_name, or begins with them', async () => {
    for (const view of REPORTS) {
      const { columns } = await runReport(db(), database.current.schema, view, { page: { limit: 0, offset: 0 } });
      const ends = columns.slice(-2).join();
      const begins = columns.slice(0, 2).join();
      expect([ends, begins], view.name).toContain('account_id,account_name');
    }
  });

  it('the accounts share client numbers, ids and invoice numbers', () => {
    const clients = (a: Account) => new Set(a.clients.map((c) => c.clientnr));
    const alpha = named('alpha').data;
    const beta = named('beta').data;
    expect([...clients(beta)].every((nr) => clients(alpha).has(nr))).toBe(true);
    expect(alpha.clients.find((c) => c.clientnr === '1')?.company).not.toBe(
      beta.clients.find((c) => c.clientnr === '1')?.company,
    );
    const numbers = new Set(alpha.invoices.map((i) => i.invoicenr));
    expect(beta.invoices.some((i) => numbers.has(i.invoicenr))).toBe(true);
  });

  it.each(Object.keys(COMPUTED))('%s matches the figures computed from each account’s records', async (name) => {
    const today = await databaseToday();
    for (const { account, data } of accounts) {
      expect(await report(name, { ids: [account.id] }), account.name).toEqual(
        expected.withAccount(COMPUTED[name]!(data, today), account),
      );
    }
  });

  it.each(Object.keys(COMPUTED))('%s of all accounts lists each account’s rows, by account name', async (name) => {
    const today = await databaseToday();
    expect(await report(name)).toEqual(expected.perAccount(accounts, (data) => COMPUTED[name]!(data, today)));
  });

  it('revenue_per_account_month puts the accounts side by side per month, with their shares', async () => {
    const rows = await report('revenue_per_account_month');
    expect(rows).toEqual(expected.revenuePerAccountMonth(accounts));
    const months = new Set(rows.map((row) => row.month));
    expect(rows.length).toBeGreaterThan(months.size); // some months have both accounts
    // Picking an account leaves its share of each month over every account the role may read.
    const alpha = named('alpha').account;
    expect(await report('revenue_per_account_month', { ids: [alpha.id] })).toEqual(
      rows.filter((row) => row.account_id === alpha.id),
    );
  });

  it('accounts_overview: state, last complete sync, records, jobs and what needs a person, per account', async () => {
    await expectOverviewMatches();
  });

  it('the dataset exercises every report and every branch worth testing', async () => {
    for (const { name } of REPORTS) expect((await report(name)).length, name).toBeGreaterThan(0);
    const alpha = { ids: [named('alpha').account.id] };
    const stages = new Set((await report('quotation_pipeline', alpha)).map((row) => row.stage));
    expect([...stages].sort()).toEqual(['approved', 'declined', 'draft', 'open']);
    const statuses = new Set((await report('product_stock', alpha)).map((row) => row.stock_status));
    for (const status of ['negative', 'out of stock', 'low', 'in stock']) expect(statuses).toContain(status);
    const frequencies = (await report('recurring_revenue_by_frequency', alpha)).map((row) => row.frequency);
    expect(frequencies.length).toBeGreaterThan(5);
    const totals = (await report('recurring_revenue_by_frequency')).filter((r) => r.frequency === 'all frequencies');
    expect(totals.map((row) => row.account_name)).toEqual(['alpha', 'beta']);
    const sends = await report('upcoming_repeating_sends', alpha);
    expect(sends.some((row) => row.frequency === 'weekly')).toBe(true);
    // Some next send dates are in the past (the service has not moved them on): no send before today.
    const today = await databaseToday();
    const stale = named('alpha').data.repeating_invoices.filter((r) => String(r.nextsenddate) < today);
    expect(stale.length).toBeGreaterThan(0);
    expect(sends.every((row) => String(row.send_date) >= today)).toBe(true);
    expect((await report('saved_invoices_by_client', alpha)).some((row) => row.client_number === 0)).toBe(true);
    expect((await report('repeating_invoice_sends', alpha))[0]!.matched_invoice_count).toBeGreaterThanOrEqual(2);
    const buckets = (await report('receivables_aging', alpha)).map((row) => row.aging_bucket);
    expect(buckets).toEqual(['0-30', '31-60', '61-90', '90+']);
    const late = (await report('client_payment_behaviour', alpha)).map((row) => row.average_days_late as number | null);
    expect(late.some((days) => days !== null && days < 0) && late.some((days) => days !== null && days > 0)).toBe(true);
  });

  it('recent_changes counts what was stored, per account and table', async () => {
    for (const { account, data, countries } of accounts) {
      const rows = await changesToday(account);
      for (const entity of [...SANDBOX_ENTITIES, 'invoices'] as const) {
        expect(rows.get(entity), `${account.name} ${entity}`).toMatchObject({
          inserted: data[entity].length,
          updated: 0,
          deleted: 0,
          restored: 0,
          total_changes: data[entity].length,
        });
      }
      expect(rows.get('countries')?.inserted).toBe(countries.length);
    }
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
    // The service stores what it is given; the views compare case-insensitively.
    const alpha = named('alpha').account;
    await sql`update repeating_invoices set frequency = 'Quarterly' where id = 1 and account_id = ${alpha.id}`.execute(
      db(),
    );
    try {
      const [row] = (await report('recurring_revenue', { ids: [alpha.id] })).filter(
        (r) => r.repeating_invoice_id === 1,
      );
      expect(row!.frequency).toBe('quarterly');
      expect(row!.sends_per_year).toBe(4);
    } finally {
      await sql`update repeating_invoices set frequency = lower(frequency) where id = 1`.execute(db());
    }
  });

  describe('after records of one account are deleted', () => {
    const deleted: Record<SandboxEntity, number[]> = {
      clients: [],
      products: [],
      quotations: [],
      saved_invoices: [],
      repeating_invoices: [],
    };
    let before: Account;

    beforeAll(async () => {
      const alpha = named('alpha');
      before = alpha.data;
      const today = await databaseToday();
      pickDeletes(before, today, deleted);
      for (const [entity, ids] of Object.entries(deleted))
        await markDeleted(db(), alpha.account.id, entity as SandboxEntity, ids);
      const key = (entity: SandboxEntity) => (entity === 'clients' ? 'clientnr' : 'id');
      alpha.data = Object.fromEntries(
        Object.entries(before).map(([entity, list]) => [
          entity,
          entity === 'invoices'
            ? list
            : list.filter(
                (r: Wire) => !deleted[entity as SandboxEntity].includes(Number(r[key(entity as SandboxEntity)])),
              ),
        ]),
      ) as unknown as Account;
    });

    it('every report matches the figures computed from what is left, and the other account is as it was', async () => {
      await expectReportsMatchAccounts();
      await expectOverviewMatches();
    });

    it('deleted records are gone from every report of their account only', async () => {
      const alpha = { ids: [named('alpha').account.id] };
      const beta = { ids: [named('beta').account.id] };
      const idsIn = async (name: string, column: string, scope: AccountScope) =>
        new Set((await report(name, scope)).map((row) => row[column]));
      for (const id of deleted.quotations) {
        expect((await idsIn('open_quotations', 'quotation_id', alpha)).has(id)).toBe(false);
      }
      for (const name of ['recurring_revenue', 'upcoming_repeating_sends', 'ending_repeating_invoices']) {
        for (const id of deleted.repeating_invoices)
          expect((await idsIn(name, 'repeating_invoice_id', alpha)).has(id), name).toBe(false);
      }
      for (const name of ['product_stock', 'low_stock_products']) {
        for (const id of deleted.products) expect((await idsIn(name, 'product_id', alpha)).has(id), name).toBe(false);
      }
      for (const name of ['client_overview', 'inactive_clients_with_open_documents']) {
        for (const id of deleted.clients) expect((await idsIn(name, 'client_number', alpha)).has(id), name).toBe(false);
      }
      // The same client numbers live on in the other account.
      const betaClients = await idsIn('client_overview', 'client_number', beta);
      expect(deleted.clients.filter((nr) => betaClients.has(nr)).length).toBeGreaterThan(0);
      // Pipeline and per-client totals shrink by exactly the deleted documents.
      const count = (rows: Row[], column: string) => rows.reduce((sum, row) => sum + (row[column] as number), 0);
      expect(count(await report('quotation_pipeline', alpha), 'quotation_count')).toBe(
        before.quotations.length - deleted.quotations.length,
      );
      expect(count(await report('saved_invoices_by_client', alpha), 'saved_invoice_count')).toBe(
        before.saved_invoices.length - deleted.saved_invoices.length,
      );
    });

    it('saved invoices of a deleted client still count, under the name on the invoice', async () => {
      const gone = deleted.clients[1]!;
      const alpha = { ids: [named('alpha').account.id] };
      const [row] = (await report('saved_invoices_by_client', alpha)).filter((r) => r.client_number === gone);
      const invoice = before.saved_invoices.filter((s) => Number(s.clientnr) === gone).at(-1)!;
      expect(row!.client_name).toBe((invoice.company as string) || (invoice.contact as string));
    });

    it('recent_changes counts the deletes of their account only', async () => {
      const alpha = await changesToday(named('alpha').account);
      const beta = await changesToday(named('beta').account);
      for (const entity of SANDBOX_ENTITIES) {
        expect(alpha.get(entity), entity).toMatchObject({ deleted: deleted[entity].length, updated: 0, restored: 0 });
        expect(beta.get(entity)?.deleted, entity).toBe(0);
      }
    });
  });
});

/** Records worth deleting: each one leaves a report branch it was in. */
function pickDeletes(before: Account, today: string, deleted: Record<SandboxEntity, number[]>): void {
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
}
