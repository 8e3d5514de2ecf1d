/**
 * Sent invoices as the service keeps them (service-notes.md, "Sent invoices, payments,
 * reminders, PDFs"): made when a saved invoice is sent or a repeating invoice comes due, changed
 * afterwards only by payments, reminders and the service itself. `sent` is the date it went out,
 * `open` the amount still to be paid.
 */
import { addDays } from './clock.js';
import { bad, money, readDate, readLines, readNumber, readString, round, type Rec } from './wire.js';

/** The `filter` values of `GET /invoices`. */
export const INVOICE_FILTERS = ['open', 'overdue', 'sent', 'partly', 'toomuch', 'paid', 'uncollectible'] as const;
export type InvoiceFilter = (typeof INVOICE_FILTERS)[number];

/** Per tax rate: the tax and the amount it is over, as `{"tax1": {"rate", "sum", "sum_of"}}` (or `[]`). */
function taxesOf(linesWire: unknown): { taxes: Rec | []; tax: number } {
  const byRate = new Map<number, { sum: number; sumOf: number }>();
  for (const line of readLines(linesWire, false)) {
    const total = Number(line.linetotal) || 0;
    const rate = Number(line.tax_rate) || 0;
    const entry = byRate.get(rate) ?? { sum: 0, sumOf: 0 };
    entry.sumOf += total;
    entry.sum += (total * rate) / 100;
    byRate.set(rate, entry);
  }
  if (byRate.size === 0) return { taxes: [], tax: 0 };
  const taxes: Rec = {};
  let tax = 0;
  [...byRate.entries()].forEach(([rate, { sum, sumOf }], i) => {
    taxes[`tax${i + 1}`] = { rate, sum: round(sum, 2).toFixed(2), sum_of: round(sumOf, 2).toFixed(2) };
    tax += sum;
  });
  return { taxes, tax: round(tax, 2) };
}

const historyItem = (date: string, description: string) => ({ date, time: '10:00', description });

function addHistory(invoice: Rec, date: string, description: string): void {
  const history = invoice.history && !Array.isArray(invoice.history) ? (invoice.history as Rec) : {};
  history[`item${Object.keys(history).length + 1}`] = historyItem(date, description);
  invoice.history = history;
}

/**
 * The invoice a document (a saved or repeating invoice) becomes when it is sent on `day`: its
 * lines, references and party as they were, the client's details of that moment, totals, tax per
 * rate, due date and a first history item.
 */
export function sentInvoice(source: Rec, id: number, invoicenr: string, day: string, client: Rec | undefined): Rec {
  const { taxes, tax } = taxesOf(source.lines);
  const total = Number(source.totalintax) || 0;
  const alreadyPaid = Number(source.alreadypaid) || 0;
  const period = Number(source.paymentperiod) || 14;
  const sendmethod = String(client?.sendmethod ?? 'email');
  const invoice: Rec = {
    id: String(id),
    invoicenr_full: invoicenr,
    invoicenr,
    reference: source.reference ?? { line1: '', line2: '', line3: '' },
    lines: source.lines ?? [],
    profile: source.profile ?? '0',
    // The document's category, else the client's default one (its ledger is where the revenue goes).
    category: source.category && source.category !== '0' ? source.category : (client?.default_category ?? '0'),
    discounttype: source.discounttype ?? '',
    discount: source.discount ?? '0',
    paymentcondition: source.paymentcondition ?? '',
    paymentperiod: String(period),
    collection: client?.paymentmethod === 'autocollect' ? '1' : '0',
    tax: money(tax),
    totalintax: money(total),
    clientnr: source.clientnr ?? '0',
    company: source.company ?? '',
    contact: source.contact ?? '',
    address: source.address ?? '',
    zipcode: source.zipcode ?? '',
    city: source.city ?? '',
    country: source.country ?? '146',
    phone: client?.phone ?? '',
    mobile: client?.mobile ?? '',
    email: client?.email ?? '',
    taxnumber: client?.taxnumber ?? '',
    invoicenote: '',
    sent: day,
    uncollectible: '',
    lastreminder: '',
    open: money(total - alreadyPaid),
    paiddate: alreadyPaid >= total && total > 0 ? day : '',
    taxes,
    tax_type: client?.tax_type ?? 'extax',
    language: 'nl',
    tax_shifted: client?.tax_shifted ?? 'false',
    payment_url: `https://sandbox.invalid/pay?invoice=${id}`,
    duedate: addDays(day, period),
    history: { item1: historyItem(day, `Factuur verstuurd via ${sendmethod === 'mail' ? 'post' : sendmethod}`) },
  };
  return invoice;
}

/** The fields of a sent invoice, in the order the service sends them. */
export const INVOICE_FIELDS: readonly string[] = Object.keys(sentInvoice({}, 1, 'F1', '2026-01-01', undefined));

/** Whether an invoice passes a list filter, on `today`. */
export function passesFilter(invoice: Rec, filter: InvoiceFilter, today: string): boolean {
  const open = Number(invoice.open) || 0;
  const total = Number(invoice.totalintax) || 0;
  const uncollectible = invoice.uncollectible !== '' && invoice.uncollectible !== undefined;
  switch (filter) {
    case 'open':
      return open > 0 && !uncollectible;
    case 'overdue':
      return (
        open > 0 &&
        !uncollectible &&
        typeof invoice.duedate === 'string' &&
        invoice.duedate !== '' &&
        invoice.duedate < today
      );
    case 'sent':
      return open > 0 && open === total && !uncollectible;
    case 'partly':
      return open > 0 && open < total && !uncollectible;
    case 'toomuch':
      return open < 0;
    case 'paid':
      return open === 0 && total !== 0;
    case 'uncollectible':
      return uncollectible;
  }
}

export interface InvoiceQuery {
  filter?: InvoiceFilter;
  since?: string;
  until?: string;
  clientnr?: string;
}

/** The list filters of `GET /invoices`, checked as the service would (400 on a bad value). */
export function readInvoiceQuery(query: URLSearchParams): InvoiceQuery {
  const out: InvoiceQuery = {};
  const filter = query.get('filter');
  if (filter !== null && filter !== '') {
    const wanted = filter.toLowerCase();
    if (!(INVOICE_FILTERS as readonly string[]).includes(wanted))
      throw bad(`filter: must be one of ${INVOICE_FILTERS.join(', ')}`);
    out.filter = wanted as InvoiceFilter;
  }
  for (const name of ['since', 'until'] as const) {
    const value = query.get(name);
    if (value !== null && value !== '') out[name] = readDate(value, name);
  }
  const client = query.get('client');
  if (client !== null && client !== '') {
    if (!/^\d+$/.test(client)) throw bad('client: must be a client number');
    out.clientnr = String(Number(client));
  }
  return out;
}

export function matchesQuery(invoice: Rec, query: InvoiceQuery, today: string): boolean {
  const sent = typeof invoice.sent === 'string' ? invoice.sent : '';
  if (query.since !== undefined && !(sent !== '' && sent >= query.since)) return false;
  if (query.until !== undefined && !(sent !== '' && sent <= query.until)) return false;
  if (query.clientnr !== undefined && invoice.clientnr !== query.clientnr) return false;
  return query.filter === undefined || passesFilter(invoice, query.filter, today);
}

/** `POST /invoices_payment/{id}`: `{"date", "amount": number | "full", "method"}`. */
export function registerPayment(invoice: Rec, body: Rec, today: string): void {
  const date = body.date === undefined || body.date === '' ? today : readDate(body.date, 'date');
  const method = body.method === undefined ? 'bank' : readString(body.method, 'method');
  const open = Number(invoice.open) || 0;
  let amount: number;
  if (body.amount === 'full') amount = open;
  else {
    if (body.amount === undefined) throw bad('amount: is required (a number, or "full")');
    amount = readNumber(body.amount, 'amount');
    if (amount <= 0) throw bad('amount: must be more than 0');
  }
  if (open <= 0 && body.amount === 'full') throw bad('invoice is already paid');
  const left = round(open - amount, 2);
  invoice.open = money(left);
  if (left <= 0 && invoice.paiddate === '') invoice.paiddate = date;
  addHistory(invoice, date, `Betaling van € ${money(amount)} ontvangen (${method})`);
}

/** `POST /invoices_reminder`: only for an invoice with something open. */
export function sendReminder(invoice: Rec, today: string): void {
  if (!(Number(invoice.open) > 0)) throw bad(`invoice ${String(invoice.invoicenr)} has nothing open to remind of`);
  invoice.lastreminder = today;
  addHistory(invoice, today, 'Herinnering verstuurd via e-mail');
}

/** A small, valid PDF whose text names the invoice, as `GET /invoices_pdf/{id}` answers. */
export function invoicePdf(invoice: Rec): Buffer {
  const text = `Factuur ${String(invoice.invoicenr)} - totaal ${String(invoice.totalintax)}`.replace(/[()\\]/g, '');
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
