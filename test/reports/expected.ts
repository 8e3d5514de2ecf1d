/**
 * What each report should show, worked out in TypeScript from the service's records in wire form
 * (strings for numbers, "true"/"false", "" for no date), independently of the SQL of the views.
 * Money is handled in whole cents, so sums and roundings are exact.
 *
 * Each report of one account's figures is computed from that account's records alone (`withAccount`
 * adds the account's two columns); the cross-account ones take every account.
 */

export type Wire = Record<string, unknown>;
export type Row = Record<string, unknown>;

export interface Account {
  clients: Wire[];
  products: Wire[];
  quotations: Wire[];
  saved_invoices: Wire[];
  repeating_invoices: Wire[];
  /** Sent invoices. */
  invoices: Wire[];
}

// ---- wire readers ---------------------------------------------------------------------------

const text = (value: unknown): string => (value === undefined || value === null ? '' : String(value));
const bool = (value: unknown): boolean =>
  value === true || value === 1 || ['true', '1'].includes(text(value).toLowerCase());
const day = (value: unknown): string | null => (text(value) === '' ? null : text(value));
const int = (value: unknown): number => Number(value);
/** Cents of a money string such as "62.92". */
export const cents = (value: unknown): number => Math.round(Number(value) * 100);
const displayName = (company: unknown, contact: unknown): string | null => text(company) || text(contact) || null;
const isApproved = (q: Wire): boolean =>
  typeof q.approved === 'object' && q.approved !== null && !Array.isArray(q.approved);
const customStatus = (q: Wire): string => text(q.customstatus).toLowerCase() || 'none';

/** n / d rounded to a whole number, halves away from zero (Postgres `round`). */
export function divideRound(n: number, d: number): number {
  const q = Math.floor(Math.abs(n) / d);
  const rest = Math.abs(n) - q * d;
  return Math.sign(n) * (2 * rest >= d ? q + 1 : q);
}

// ---- dates ----------------------------------------------------------------------------------

const DAY_MS = 86_400_000;
const ms = (isoDay: string): number => Date.parse(`${isoDay}T00:00:00Z`);
const iso = (time: number): string => new Date(time).toISOString().slice(0, 10);
export const daysBetween = (from: string, to: string): number => Math.round((ms(to) - ms(from)) / DAY_MS);
export const addDays = (isoDay: string, days: number): string => iso(ms(isoDay) + days * DAY_MS);

/** Calendar months, clamped to the end of a shorter month (as Postgres adds `interval '1 month'`). */
export function addMonths(isoDay: string, months: number): string {
  const [y, m, d] = isoDay.split('-').map(Number) as [number, number, number];
  const first = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return iso(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(d, last)));
}

const PER_YEAR: Record<string, number> = {
  weekly: 52,
  biweekly: 26,
  fourweekly: 13,
  monthly: 12,
  bimonthly: 6,
  quarterly: 4,
  halfyearly: 2,
  yearly: 1,
};
const STEP: Record<string, (d: string) => string> = {
  weekly: (d) => addDays(d, 7),
  biweekly: (d) => addDays(d, 14),
  fourweekly: (d) => addDays(d, 28),
  monthly: (d) => addMonths(d, 1),
  bimonthly: (d) => addMonths(d, 2),
  quarterly: (d) => addMonths(d, 3),
  halfyearly: (d) => addMonths(d, 6),
  yearly: (d) => addMonths(d, 12),
};
const frequencyOf = (r: Wire): string => text(r.frequency).toLowerCase();
const perYear = (r: Wire): number | null => PER_YEAR[frequencyOf(r)] ?? null;

/**
 * Send dates from the next send date up to `last` (inclusive), each one step after the previous
 * one (so a monthly send on the 31st moves to the 28th in February and stays there).
 */
function sendDates(r: Wire, last: string): string[] {
  const step = STEP[frequencyOf(r)] as ((d: string) => string) | undefined;
  const out: string[] = [];
  if (!step) return out;
  for (let next = day(r.nextsenddate); next && next <= last; next = step(next)) out.push(next);
  return out;
}

// ---- ordering -------------------------------------------------------------------------------

type Key = (row: Row) => unknown;
/** Sorts like SQL `order by`: each key ascending unless negated; nulls as the key says. */
function orderBy(rows: Row[], ...keys: { key: Key; desc?: boolean; nullsFirst?: boolean }[]): Row[] {
  return [...rows].sort((a, b) => {
    for (const { key, desc = false, nullsFirst = desc } of keys) {
      const x = key(a);
      const y = key(b);
      if (x === y) continue;
      if (x === null) return nullsFirst ? -1 : 1;
      if (y === null) return nullsFirst ? 1 : -1;
      const c = (x as number | string) < (y as number | string) ? -1 : 1;
      return desc ? -c : c;
    }
    return 0;
  });
}
const col =
  (name: string): Key =>
  (row) =>
    row[name] ?? null;

// ---- the reports ----------------------------------------------------------------------------

export function isOpenQuotation(q: Wire): boolean {
  return bool(q.sent) && !isApproved(q) && text(q.customstatus).toLowerCase() !== 'declined';
}

export function openQuotations(account: Account, today: string): Row[] {
  const rows = account.quotations.filter(isOpenQuotation).map((q) => ({
    quotation_id: int(q.id),
    quotation_reference: text(q.quotationreference),
    saved_name: text(q.savename),
    client_number: int(q.clientnr),
    client_name: displayName(q.company, q.contact),
    quotation_date: day(q.date),
    valid_until: day(q.datedue),
    days_open: day(q.date) ? daysBetween(day(q.date)!, today) : null,
    expired: day(q.datedue) !== null && day(q.datedue)! < today,
    custom_status: customStatus(q),
    total_incl_tax: cents(q.totalintax),
  }));
  return orderBy(rows, { key: col('days_open'), desc: true, nullsFirst: false }, { key: col('quotation_id') });
}

const STAGES = ['draft', 'open', 'approved', 'declined'];

export function quotationPipeline(account: Account): Row[] {
  const groups = new Map<string, Row>();
  for (const q of account.quotations) {
    const stage = !bool(q.sent)
      ? 'draft'
      : text(q.customstatus).toLowerCase() === 'declined'
        ? 'declined'
        : isApproved(q)
          ? 'approved'
          : 'open';
    const key = `${stage}/${customStatus(q)}/${isApproved(q)}`;
    const group = groups.get(key) ?? {
      stage,
      custom_status: customStatus(q),
      approved: isApproved(q),
      quotation_count: 0,
      total_incl_tax: 0,
      oldest_quotation_date: null,
    };
    group.quotation_count = (group.quotation_count as number) + 1;
    group.total_incl_tax = (group.total_incl_tax as number) + cents(q.totalintax);
    const date = day(q.date);
    if (date && (group.oldest_quotation_date === null || date < (group.oldest_quotation_date as string)))
      group.oldest_quotation_date = date;
    groups.set(key, group);
  }
  return orderBy(
    [...groups.values()],
    { key: (row) => STAGES.indexOf(row.stage as string) },
    { key: col('custom_status') },
    { key: (row) => (row.approved ? 1 : 0) },
  );
}

export function savedInvoicesByClient(account: Account): Row[] {
  const clients = new Map(account.clients.map((c) => [int(c.clientnr), c]));
  const groups = new Map<number, Wire[]>();
  for (const s of account.saved_invoices) groups.set(int(s.clientnr), [...(groups.get(int(s.clientnr)) ?? []), s]);
  const rows = [...groups].map(([clientnr, invoices]) => {
    const client = clients.get(clientnr);
    const newest = invoices.reduce((a, b) => (int(b.id) > int(a.id) ? b : a));
    const total = invoices.reduce((sum, s) => sum + cents(s.totalintax), 0);
    const paid = invoices.reduce((sum, s) => sum + cents(s.alreadypaid), 0);
    return {
      client_number: clientnr,
      client_name:
        (client && displayName(client.company, client.contact)) ?? displayName(newest.company, newest.contact),
      saved_invoice_count: invoices.length,
      total_incl_tax: total,
      total_discount: invoices.reduce((sum, s) => sum + cents(s.totaldiscount), 0),
      already_paid: paid,
      still_to_pay: total - paid,
    };
  });
  return orderBy(rows, { key: col('total_incl_tax'), desc: true }, { key: col('client_number') });
}

const yearlyCents = (r: Wire): number | null => (perYear(r) === null ? null : cents(r.totalintax) * perYear(r)!);

export function recurringRevenue(account: Account, today: string): Row[] {
  const rows = account.repeating_invoices.map((r) => ({
    repeating_invoice_id: int(r.id),
    invoice_name: text(r.name),
    client_number: int(r.clientnr),
    client_name: displayName(r.company, r.contact),
    frequency: frequencyOf(r),
    sends_per_year: perYear(r),
    amount_per_invoice: cents(r.totalintax),
    yearly_amount: yearlyCents(r),
    monthly_amount: yearlyCents(r) === null ? null : divideRound(yearlyCents(r)!, 12),
    sent_automatically: text(r.repeattype).toLowerCase() === 'auto',
    next_send_date: day(r.nextsenddate),
    days_until_next_send: day(r.nextsenddate) ? daysBetween(today, day(r.nextsenddate)!) : null,
    final_send_date: day(r.finalsenddate),
  }));
  return orderBy(
    rows,
    { key: col('monthly_amount'), desc: true, nullsFirst: false },
    { key: col('repeating_invoice_id') },
  );
}

export function recurringRevenueByFrequency(account: Account): Row[] {
  const groups = new Map<string, Wire[]>();
  for (const r of account.repeating_invoices) groups.set(frequencyOf(r), [...(groups.get(frequencyOf(r)) ?? []), r]);
  const row = (frequency: string, sendsPerYear: number | null, invoices: Wire[]): Row => {
    const yearly = invoices.reduce((sum, r) => sum + (yearlyCents(r) ?? 0), 0);
    return {
      frequency,
      sends_per_year: sendsPerYear,
      repeating_invoice_count: invoices.length,
      yearly_amount: yearly,
      monthly_amount: divideRound(yearly, 12),
    };
  };
  const rows = [...groups].map(([frequency, invoices]) => row(frequency, PER_YEAR[frequency] ?? null, invoices));
  rows.push(row('all frequencies', null, account.repeating_invoices));
  return orderBy(
    rows,
    { key: col('sends_per_year'), desc: true, nullsFirst: false },
    { key: (r) => (r.frequency === 'all frequencies' ? 1 : 0) },
    { key: col('frequency') },
  );
}

export function upcomingRepeatingSends(account: Account, today: string): Row[] {
  const horizon = addDays(addMonths(today, 12), -1);
  const rows = account.repeating_invoices.flatMap((r) => {
    const final = day(r.finalsenddate);
    const last = final && final < horizon ? final : horizon;
    // From today on: a next send date in the past is stepped forward.
    return sendDates(r, last)
      .filter((sendDate) => sendDate >= today)
      .map((sendDate) => ({
        repeating_invoice_id: int(r.id),
        invoice_name: text(r.name),
        client_number: int(r.clientnr),
        client_name: displayName(r.company, r.contact),
        send_date: sendDate,
        frequency: frequencyOf(r),
        amount_incl_tax: cents(r.totalintax),
        sent_automatically: text(r.repeattype).toLowerCase() === 'auto',
      }));
  });
  return orderBy(rows, { key: col('send_date') }, { key: col('repeating_invoice_id') });
}

export function endingRepeatingInvoices(account: Account, today: string): Row[] {
  const rows = account.repeating_invoices
    .filter((r) => day(r.finalsenddate) !== null)
    .map((r) => {
      const sends = sendDates(r, day(r.finalsenddate)!).length;
      return {
        repeating_invoice_id: int(r.id),
        invoice_name: text(r.name),
        client_number: int(r.clientnr),
        client_name: displayName(r.company, r.contact),
        frequency: frequencyOf(r),
        amount_per_invoice: cents(r.totalintax),
        next_send_date: day(r.nextsenddate),
        final_send_date: day(r.finalsenddate),
        days_until_end: daysBetween(today, day(r.finalsenddate)!),
        sends_remaining: sends,
        remaining_amount: sends * cents(r.totalintax),
      };
    });
  return orderBy(rows, { key: col('final_send_date') }, { key: col('repeating_invoice_id') });
}

function stockStatus(stock: number | null): string {
  if (stock === null) return 'unknown';
  if (stock < 0) return 'negative';
  if (stock === 0) return 'out of stock';
  return stock < 5 ? 'low' : 'in stock';
}

export function productStock(account: Account): Row[] {
  const rows = account.products
    .filter((p) => bool(p.stock_use))
    .map((p) => {
      const stock = p.stock === false || text(p.stock) === '' ? null : Number(p.stock);
      // Exact: price in thousandths of a cent-unit times stock in quarters, then to cents.
      const value = stock === null ? null : divideRound(Math.round(Number(p.price) * 1000) * Math.round(stock * 4), 40);
      return {
        product_id: int(p.id),
        product_code: text(p.code),
        product_name: text(p.name),
        stock,
        stock_status: stockStatus(stock),
        price_excl_tax: Number(p.price),
        stock_value_excl_tax: value,
      };
    });
  return orderBy(rows, { key: col('stock'), nullsFirst: true }, { key: col('product_id') });
}

export function lowStockProducts(account: Account): Row[] {
  return productStock(account)
    .filter((row) => ['negative', 'out of stock', 'low'].includes(row.stock_status as string))
    .map(({ stock_value_excl_tax: _value, ...row }) => row);
}

export function clientOverview(account: Account, today: string): Row[] {
  const byClient = (records: Wire[]) => {
    const map = new Map<number, Wire[]>();
    for (const r of records) map.set(int(r.clientnr), [...(map.get(int(r.clientnr)) ?? []), r]);
    return (clientnr: number) => map.get(clientnr) ?? [];
  };
  const quotations = byClient(account.quotations);
  const open = byClient(account.quotations.filter(isOpenQuotation));
  const saved = byClient(account.saved_invoices);
  const repeating = byClient(account.repeating_invoices);
  const invoices = byClient(account.invoices);
  const rows = account.clients.map((c) => {
    const nr = int(c.clientnr);
    const sum = (records: Wire[]) => records.reduce((total, r) => total + cents(r.totalintax), 0);
    return {
      client_number: nr,
      client_name: displayName(c.company, c.contact),
      city: text(c.city),
      active: bool(c.active),
      last_invoice_date: day(c.lastinvoice),
      days_since_last_invoice: day(c.lastinvoice) ? daysBetween(day(c.lastinvoice)!, today) : null,
      quotation_count: quotations(nr).length,
      open_quotation_count: open(nr).length,
      open_quotation_total: sum(open(nr)),
      saved_invoice_count: saved(nr).length,
      saved_invoice_total: sum(saved(nr)),
      repeating_invoice_count: repeating(nr).length,
      monthly_recurring_amount: divideRound(
        repeating(nr).reduce((total, r) => total + (yearlyCents(r) ?? 0), 0),
        12,
      ),
      open_document_count: open(nr).length + saved(nr).length + repeating(nr).length,
      invoice_count: invoices(nr).length,
      invoiced_incl_tax: sum(invoices(nr)),
      open_invoice_amount: invoices(nr)
        .filter(invoiceIsOpen)
        .reduce((total, i) => total + cents(i.open), 0),
    };
  });
  return orderBy(rows, { key: col('client_number') });
}

export function inactiveClientsWithOpenDocuments(account: Account, today: string): Row[] {
  const rows = clientOverview(account, today)
    .filter((row) => row.active === false && (row.open_document_count as number) > 0)
    .map((row) => ({
      client_number: row.client_number,
      client_name: row.client_name,
      city: row.city,
      last_invoice_date: row.last_invoice_date,
      open_quotation_count: row.open_quotation_count,
      saved_invoice_count: row.saved_invoice_count,
      repeating_invoice_count: row.repeating_invoice_count,
      open_document_count: row.open_document_count,
    }));
  return orderBy(rows, { key: col('open_document_count'), desc: true }, { key: col('client_number') });
}

// ---- sent invoices ------------------------------------------------------------------------

/** Something still to be paid, and not written off. */
export const invoiceIsOpen = (i: Wire): boolean =>
  text(i.open) !== '' && cents(i.open) > 0 && ['', '0', 'false'].includes(text(i.uncollectible));

export function invoiceRevenuePerMonth(account: Account): Row[] {
  const months = new Map<string, Row>();
  for (const i of account.invoices) {
    const sent = day(i.sent);
    if (!sent) continue;
    const month = `${sent.slice(0, 7)}-01`;
    const row = months.get(month) ?? {
      month,
      invoice_count: 0,
      total_excl_tax: 0,
      tax: 0,
      total_incl_tax: 0,
      still_open: 0,
    };
    row.invoice_count = (row.invoice_count as number) + 1;
    if (text(i.totalintax) !== '')
      row.total_excl_tax =
        (row.total_excl_tax as number) + cents(i.totalintax) - (text(i.tax) === '' ? 0 : cents(i.tax));
    if (text(i.tax) !== '') row.tax = (row.tax as number) + cents(i.tax);
    if (text(i.totalintax) !== '') row.total_incl_tax = (row.total_incl_tax as number) + cents(i.totalintax);
    if (invoiceIsOpen(i)) row.still_open = (row.still_open as number) + cents(i.open);
    months.set(month, row);
  }
  return orderBy([...months.values()], { key: col('month'), desc: true });
}

const bucketOf = (daysOverdue: number): string =>
  daysOverdue <= 30 ? '0-30' : daysOverdue <= 60 ? '31-60' : daysOverdue <= 90 ? '61-90' : '90+';

export function openReceivables(account: Account, today: string): Row[] {
  const rows = account.invoices.filter(invoiceIsOpen).map((i) => {
    const due = day(i.duedate);
    const late = due ? daysBetween(due, today) : 0;
    return {
      invoice_id: int(i.id),
      invoice_number: text(i.invoicenr),
      client_number: int(i.clientnr),
      client_name: displayName(i.company, i.contact),
      sent_date: day(i.sent),
      due_date: due,
      overdue: due !== null && due < today,
      days_overdue: Math.max(late, 0),
      aging_bucket: bucketOf(late),
      total_incl_tax: cents(i.totalintax),
      open_amount: cents(i.open),
    };
  });
  return orderBy(rows, { key: col('days_overdue'), desc: true }, { key: col('invoice_id') });
}

export function receivablesAging(account: Account, today: string): Row[] {
  const buckets = new Map<string, Row>();
  for (const r of openReceivables(account, today)) {
    const bucket = r.aging_bucket as string;
    const row = buckets.get(bucket) ?? { aging_bucket: bucket, invoice_count: 0, open_amount: 0, most_days_overdue: 0 };
    row.invoice_count = (row.invoice_count as number) + 1;
    row.open_amount = (row.open_amount as number) + (r.open_amount as number);
    row.most_days_overdue = Math.max(row.most_days_overdue as number, r.days_overdue as number);
    buckets.set(bucket, row);
  }
  return ['0-30', '31-60', '61-90', '90+'].filter((b) => buckets.has(b)).map((b) => buckets.get(b)!);
}

/** avg(values) rounded to one decimal, halves away from zero (Postgres `round(avg(…), 1)`); null when empty. */
const averageOneDecimal = (values: number[]): number | null =>
  values.length === 0 ? null : divideRound(values.reduce((a, b) => a + b, 0) * 10, values.length) / 10;

export function clientPaymentBehaviour(account: Account): Row[] {
  const clients = new Map(account.clients.map((c) => [int(c.clientnr), c]));
  const byClient = new Map<number, Wire[]>();
  for (const i of account.invoices) byClient.set(int(i.clientnr), [...(byClient.get(int(i.clientnr)) ?? []), i]);
  const rows = [...byClient.entries()].map(([nr, invoices]) => {
    const paid = invoices.filter((i) => day(i.paiddate) !== null);
    const client = clients.get(nr);
    const open = invoices.filter(invoiceIsOpen);
    return {
      client_number: nr,
      client_name: client ? displayName(client.company, client.contact) : null,
      invoice_count: invoices.length,
      paid_invoice_count: paid.length,
      average_days_to_pay: averageOneDecimal(
        paid.filter((i) => day(i.sent)).map((i) => daysBetween(day(i.sent)!, day(i.paiddate)!)),
      ),
      average_days_late: averageOneDecimal(
        paid.filter((i) => day(i.duedate)).map((i) => daysBetween(day(i.duedate)!, day(i.paiddate)!)),
      ),
      open_invoice_count: open.length,
      open_amount: open.reduce((total, i) => total + cents(i.open), 0),
    };
  });
  return orderBy(rows, { key: col('average_days_late'), desc: true, nullsFirst: false }, { key: col('client_number') });
}

export function repeatingInvoiceSends(account: Account): Row[] {
  const rows = account.repeating_invoices.map((r) => {
    const initial = day(r.initialdate);
    const matched = account.invoices.filter(
      (i) =>
        int(i.clientnr) === int(r.clientnr) &&
        text(i.totalintax) !== '' &&
        text(r.totalintax) !== '' &&
        cents(i.totalintax) === cents(r.totalintax) &&
        initial !== null &&
        day(i.sent) !== null &&
        day(i.sent)! >= initial,
    );
    const sent = matched.map((i) => day(i.sent)!).sort();
    return {
      repeating_invoice_id: int(r.id),
      invoice_name: text(r.name),
      client_number: int(r.clientnr),
      client_name: displayName(r.company, r.contact),
      frequency: frequencyOf(r),
      amount_per_invoice: cents(r.totalintax),
      initial_date: initial,
      matched_invoice_count: matched.length,
      last_sent_date: sent.at(-1) ?? null,
      matched_total_incl_tax: matched.reduce((total, i) => total + cents(i.totalintax), 0),
      open_amount: matched.filter(invoiceIsOpen).reduce((total, i) => total + cents(i.open), 0),
    };
  });
  return orderBy(rows, { key: col('matched_invoice_count'), desc: true }, { key: col('repeating_invoice_id') });
}

// ---- accounts -------------------------------------------------------------------------------

/** An account of the mirror: its id and name. */
export interface AccountRef {
  id: number;
  name: string;
}

/** The rows of one account's report, with the account's columns every report view ends with. */
export function withAccount(rows: Row[], account: AccountRef): Row[] {
  return rows.map((row) => ({ ...row, account_id: account.id, account_name: account.name }));
}

/** One account's rows of each account, in account name order (as the reports list them). */
export function perAccount(
  accounts: readonly { account: AccountRef; data: Account }[],
  compute: (data: Account) => Row[],
): Row[] {
  return [...accounts]
    .sort((a, b) => (a.account.name < b.account.name ? -1 : 1))
    .flatMap(({ account, data }) => withAccount(compute(data), account));
}

export function receivablesByAccount(account: Account, today: string): Row[] {
  const clients = new Map(account.clients.map((c) => [int(c.clientnr), c]));
  const byClient = new Map<number, Row[]>();
  for (const r of openReceivables(account, today))
    byClient.set(r.client_number as number, [...(byClient.get(r.client_number as number) ?? []), r]);
  const rows = [...byClient].map(([nr, open]) => {
    const client = clients.get(nr);
    const newest = open.reduce((a, b) => ((b.invoice_id as number) > (a.invoice_id as number) ? b : a));
    const overdue = open.filter((r) => r.overdue);
    const due = open.map((r) => r.due_date as string | null).filter((d): d is string => d !== null);
    return {
      client_number: nr,
      client_name: (client && displayName(client.company, client.contact)) ?? newest.client_name,
      open_invoices: open.length,
      open_amount: open.reduce((sum, r) => sum + (r.open_amount as number), 0),
      overdue_invoices: overdue.length,
      overdue_amount: overdue.reduce((sum, r) => sum + (r.open_amount as number), 0),
      oldest_due_date: due.sort()[0] ?? null,
      most_days_overdue: Math.max(...open.map((r) => r.days_overdue as number)),
    };
  });
  return orderBy(rows, { key: col('open_amount'), desc: true }, { key: col('client_number') });
}

/** 100 x part / whole to one decimal, halves away from zero (Postgres `round(…, 1)`); null for a whole of 0. */
function percentOf(part: number, whole: number): number | null {
  if (whole === 0) return null;
  return (Math.sign(whole) * divideRound(1000 * part, Math.abs(whole))) / 10;
}

export function revenuePerAccountMonth(accounts: readonly { account: AccountRef; data: Account }[]): Row[] {
  const rows = accounts.flatMap(({ account, data }) => withAccount(invoiceRevenuePerMonth(data), account));
  const monthTotals = new Map<string, number>();
  for (const row of rows)
    monthTotals.set(row.month as string, (monthTotals.get(row.month as string) ?? 0) + (row.total_incl_tax as number));
  return orderBy(
    rows.map((row) => ({
      ...row,
      share_of_month_pct: percentOf(row.total_incl_tax as number, monthTotals.get(row.month as string)!),
    })),
    { key: col('month'), desc: true },
    { key: col('account_name') },
  );
}

/** What accounts_overview counts for an account, as the test put it in the tables. */
export interface AccountBook {
  account: AccountRef;
  state: string;
  state_reason: string | null;
  /** Live records per mirror table. */
  records: Record<string, readonly unknown[]>;
  runs: readonly { kind: string; status: string; finished_at: Date | null }[];
  jobStatuses: readonly string[];
  held_deletes: number;
  rejected_values: number;
}

/** accounts_overview without `sync_age` (which moves with the clock; the test checks it apart). */
export function accountsOverview(books: readonly AccountBook[]): Row[] {
  const rows = books.map((book) => {
    const complete = book.runs
      .filter((run) => run.status === 'succeeded' && ['backfill', 'sync'].includes(run.kind) && run.finished_at)
      .map((run) => run.finished_at!.getTime());
    return {
      account_id: book.account.id,
      account_name: book.account.name,
      state: book.state,
      state_reason: book.state_reason,
      last_complete_sync_at: complete.length > 0 ? new Date(Math.max(...complete)) : null,
      records: Object.values(book.records).reduce((sum, list) => sum + list.length, 0),
      queued_jobs: book.jobStatuses.filter((status) => status === 'queued').length,
      failed_jobs: book.jobStatuses.filter((status) => ['failed', 'interrupted'].includes(status)).length,
      held_deletes: book.held_deletes,
      rejected_values: book.rejected_values,
    };
  });
  return orderBy(rows, { key: col('account_name') });
}

/** Columns holding money, compared in cents. */
export const MONEY_COLUMNS = new Set([
  'total_incl_tax',
  'total_discount',
  'already_paid',
  'still_to_pay',
  'amount_per_invoice',
  'yearly_amount',
  'monthly_amount',
  'amount_incl_tax',
  'remaining_amount',
  'stock_value_excl_tax',
  'open_quotation_total',
  'saved_invoice_total',
  'monthly_recurring_amount',
  'total_excl_tax',
  'tax',
  'still_open',
  'open_amount',
  'invoiced_incl_tax',
  'open_invoice_amount',
  'matched_total_incl_tax',
  'overdue_amount',
  'base',
  'vat',
  'amount',
]);

/** A row as read from the database, with money in cents and other numerics as numbers. */
export function normaliseRow(row: Row): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) {
    if (value === null || value === undefined) out[key] = null;
    else if (MONEY_COLUMNS.has(key)) out[key] = cents(value);
    else if (
      ['stock', 'price_excl_tax', 'average_days_to_pay', 'average_days_late', 'share_of_month_pct', 'rate'].includes(
        key,
      )
    )
      out[key] = Number(value);
    else out[key] = value;
  }
  return out;
}
