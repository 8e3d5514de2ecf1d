/**
 * The exports' input read from the mirror: an account's sent invoices of a period (`invoices`,
 * their lines in `document_lines`, the country's ISO code in `countries.iso2`, the ledger of their
 * category in `categories`) with their VAT entries as `vat_entries` classifies them (vat-facts.ts),
 * as the plain values of model.ts. An entry that `vat_entries` cannot classify takes the category
 * its VAT says (S when VAT was charged, Z when not) under a VAT code of its own, and its invoice is
 * returned among the problems, named as vat_problems names it: the auditfile books it, the UBL
 * export leaves it out. Never passed over silently. (An entry of no amount at a rate no priced line
 * has, as a text line gives, makes no figure and is left out.)
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';
import { correctedInvoices } from './corrections.js';
import type { Customer, InvoiceLine, SalesInvoice, TaxLine, VatCategory } from './model.js';
import { formatMilli, toCents, toMilli, vatOf } from './money.js';
import { readVatEntries, type VatEntry } from './vat-facts.js';
import { ACCOUNTS } from './xaf-journal.js';

export interface InvoiceProblem {
  id: number;
  number: string;
  problem: string;
}

/** A client's details as the exports read them, from `clients` or from an invoice's own copy. */
export interface ContactRow {
  company: string | null;
  contact: string | null;
  address: string | null;
  zipcode: string | null;
  city: string | null;
  country_iso2: string | null;
  taxnumber: string | null;
  email: string | null;
}

interface InvoiceRow extends ContactRow {
  id: number;
  invoicenr: string;
  sent: string;
  duedate: string | null;
  clientnr: number | null;
  reference_line1: string | null;
  totalintax: string | null;
  category: number | null;
  category_name: string | null;
  ledger: number | null;
}

interface LineRow {
  document_id: number;
  position: number;
  amount: string | null;
  amount_desc: string | null;
  description: string | null;
  tax_rate: string | null;
  price: string | null;
  linetotal: string | null;
}

const text = (value: string | null | undefined) => (value ?? '').trim();

async function invoiceRows(db: Kysely<Database>, accountId: number, from: string, to: string, ids?: number[]) {
  const only = ids ? sql`and i.id = any(${ids}::int[])` : sql``;
  const { rows } = await sql<InvoiceRow>`
    select i.id, i.invoicenr, to_char(i.sent, 'YYYY-MM-DD') as sent, to_char(i.duedate, 'YYYY-MM-DD') as duedate,
           i.clientnr, i.company, i.contact, i.address, i.zipcode, i.city, c.iso2 as country_iso2, i.taxnumber,
           i.email, i.reference_line1, i.totalintax::text as totalintax, i.category, g.name as category_name, g.ledger
    from invoices i
    left join countries c on c.account_id = i.account_id and c.id = i.country and c.deleted_at is null
    left join categories g on g.account_id = i.account_id and g.id = i.category and g.deleted_at is null
    where i.account_id = ${accountId} and i.deleted_at is null
      and i.sent between ${from}::date and ${to}::date ${only}
    order by i.sent, i.id`.execute(db);
  return rows;
}

async function lineRows(db: Kysely<Database>, accountId: number, ids: number[]): Promise<Map<number, LineRow[]>> {
  const { rows } = await sql<LineRow>`
    select document_id, position, amount::text as amount, amount_desc, description, tax_rate::text as tax_rate,
           price::text as price, linetotal::text as linetotal
    from document_lines
    where account_id = ${accountId} and document_type = 'invoice' and document_id = any(${ids}::int[])
    order by document_id, position`.execute(db);
  const byInvoice = new Map<number, LineRow[]>();
  for (const row of rows) byInvoice.set(row.document_id, [...(byInvoice.get(row.document_id) ?? []), row]);
  return byInvoice;
}

function customerOf(row: InvoiceRow): Customer {
  return {
    id: String(row.clientnr ?? 0),
    name: text(row.company) || text(row.contact) || `client ${row.clientnr ?? 0}`,
    address: {
      street: text(row.address),
      postalCode: text(row.zipcode),
      city: text(row.city),
      country: row.country_iso2 ?? undefined,
    },
    vatNumber: text(row.taxnumber).replaceAll(/[\s.]/g, '').toUpperCase() || undefined,
    email: text(row.email) || undefined,
  };
}

/** The category of a rate that vat_entries does not classify: by the VAT it states. */
const unclassifiedCategory = (milli: number): VatCategory => (milli === 0 ? 'Z' : 'S');

function invoiceLines(rows: LineRow[], categoryOf: (milli: number) => VatCategory) {
  const lines: InvoiceLine[] = [];
  const notes: string[] = [];
  for (const row of rows) {
    if (row.amount === null && row.linetotal === null) {
      if (text(row.description)) notes.push(text(row.description));
      continue;
    }
    const rate = row.tax_rate ?? '0';
    lines.push({
      position: row.position,
      description: text(row.description),
      quantity: row.amount ?? '1',
      unit: text(row.amount_desc) || undefined,
      unitPrice: row.price ?? '0',
      net: toCents(row.linetotal),
      rate,
      category: categoryOf(toMilli(rate)),
    });
  }
  return { lines, notes };
}

/** VAT per rate from the lines, for a record whose `taxes` the service left empty. */
function taxesOfLines(lines: readonly InvoiceLine[]): TaxLine[] {
  const byRate = new Map<number, TaxLine>();
  for (const line of lines) {
    const milli = toMilli(line.rate);
    const tax = byRate.get(milli) ?? { rate: line.rate, base: 0, vat: 0, category: line.category, unclassified: true };
    tax.base += line.net;
    byRate.set(milli, tax);
  }
  return [...byRate.entries()].map(([milli, tax]) => ({ ...tax, vat: vatOf(tax.base, milli) }));
}

interface Classification {
  /** The category of each rate (thousandths) the entries give. */
  categories: Map<number, VatCategory>;
  taxes: TaxLine[];
  problem?: string;
}

/**
 * The invoice's VAT entries as TaxLines with their categories, and the first problem of an entry
 * that makes a figure (an amount, or a priced line at its rate) or cannot be read.
 */
function classify(entries: readonly VatEntry[], pricedRates: ReadonlySet<number>): Classification {
  const categories = new Map<number, VatCategory>();
  const taxes: TaxLine[] = [];
  let problem: string | undefined;
  for (const entry of entries) {
    const { rate, base, vat } = entry;
    if (entry.key === null || rate === null || base === null || vat === null) {
      problem ??= entry.problem?.text ?? 'a VAT entry that cannot be read';
      continue;
    }
    const milli = toMilli(rate);
    if (base === 0 && vat === 0 && !pricedRates.has(milli)) continue;
    const category = entry.category ?? unclassifiedCategory(milli);
    categories.set(milli, category);
    // The rate as the shortest decimal (21, not 21.00), as VAT codes and documents name it.
    const shown = formatMilli(milli);
    taxes.push({ rate: shown, base, vat, category, ...(entry.problem ? { unclassified: true } : {}) });
    if (entry.problem) problem ??= `${shown} %: ${entry.problem.text}`;
  }
  return { categories, taxes, problem };
}

/** A category's ledger account, unless it is one of the auditfile's own accounts. */
function ledgerOf(row: InvoiceRow): { ledger?: SalesInvoice['ledger']; note?: string } {
  if (row.ledger === null || !row.category) return {};
  const id = String(row.ledger);
  const name = text(row.category_name) || `Categorie ${row.category}`;
  const own = Object.values(ACCOUNTS).find((account) => account.id === id);
  if (own)
    return {
      note: `the ledger of category ${name} (${id}) is the auditfile's ${own.name} account: revenue booked per VAT rate`,
    };
  return { ledger: { id, name } };
}

/** One invoice as model values, why it could not be classified, and what the export derived. */
function salesInvoice(row: InvoiceRow, rows: LineRow[], entries: readonly VatEntry[]) {
  const priced = new Set(rows.filter((line) => line.linetotal !== null).map((line) => toMilli(line.tax_rate ?? '0')));
  const classified = classify(entries, priced);
  let { problem } = classified;
  const categoryOf = (milli: number) => classified.categories.get(milli) ?? unclassifiedCategory(milli);
  const { lines, notes } = invoiceLines(rows, categoryOf);
  let { taxes } = classified;
  let note: string | undefined;
  if (taxes.length === 0 && lines.length > 0) {
    taxes = taxesOfLines(lines);
    note = 'the service gave no VAT per rate (`taxes` empty or unreadable): booked with VAT computed from its lines';
  } else if (classified.taxes.length > 0)
    for (const milli of priced)
      if (!classified.categories.has(milli))
        problem ??= `a line at ${rows.find((line) => toMilli(line.tax_rate ?? '0') === milli)?.tax_rate} % has no VAT entry of the service at that rate`;
  const ledger = ledgerOf(row);
  const invoice: SalesInvoice = {
    id: row.id,
    number: row.invoicenr,
    issueDate: row.sent,
    dueDate: row.duedate ?? undefined,
    customer: customerOf(row),
    lines,
    notes,
    taxes,
    total: toCents(row.totalintax),
    currency: 'EUR',
    buyerReference: text(row.reference_line1) || undefined,
    ...(ledger.ledger ? { ledger: ledger.ledger } : {}),
  };
  return { invoice, problem, note: [note, ledger.note].filter(Boolean).join('; ') || undefined };
}

/** The account's sent invoices dated from `from` to `to` (or only those with the ids given). */
export async function readSalesInvoices(
  db: Kysely<Database>,
  accountId: number,
  period: { from: string; to: string; ids?: number[] },
): Promise<{ invoices: SalesInvoice[]; problems: InvoiceProblem[]; notes: InvoiceProblem[] }> {
  const rows = await invoiceRows(db, accountId, period.from, period.to, period.ids);
  const ids = rows.map((row) => row.id);
  const lines = await lineRows(db, accountId, ids);
  const entries = await readVatEntries(db, accountId, period);
  const corrected = await correctedInvoices(
    db,
    accountId,
    rows.filter((row) => toCents(row.totalintax) < 0).map((row) => row.id),
  );
  const invoices: SalesInvoice[] = [];
  const problems: InvoiceProblem[] = [];
  const notes: InvoiceProblem[] = [];
  for (const row of rows) {
    const result = salesInvoice(row, lines.get(row.id) ?? [], entries.get(row.id) ?? []);
    const corrects = corrected.get(row.id);
    invoices.push(corrects ? { ...result.invoice, correctsInvoice: corrects } : result.invoice);
    if (result.problem) problems.push({ id: row.id, number: row.invoicenr, problem: result.problem });
    if (result.note) notes.push({ id: row.id, number: row.invoicenr, problem: result.note });
  }
  return { invoices, problems, notes };
}

/** The account's sent invoices that have no date sent (legacy records): no period holds them. */
export async function undatedInvoices(db: Kysely<Database>, accountId: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from invoices where account_id = ${accountId} and deleted_at is null and sent is null`.execute(
    db,
  );
  return rows[0]?.n ?? 0;
}
