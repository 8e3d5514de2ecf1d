/**
 * The exports of one account from the mirror: the XAF of a year and the UBL documents of a period
 * or of one invoice. They read the mirror only (no job, no request to the service).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';
import { packageVersion } from '../version.js';
import { type ContactRow, type InvoiceProblem, readSalesInvoices, undatedInvoices } from './mirror.js';
import type { Customer, SalesInvoice, Seller } from './model.js';
import { type PaymentProblem, readPayments } from './payments.js';
import type { Period } from './period.js';
import { buildUbl } from './ubl.js';
import type { XafInput } from './xaf.js';

interface ClientRow extends ContactRow {
  clientnr: number;
}

/** The clients of the invoices, as `clients` holds them now; an invoice's own details where the table has none. */
async function customersOf(db: Kysely<Database>, accountId: number, invoices: SalesInvoice[]) {
  const byId = new Map<string, Customer>(invoices.map((invoice) => [invoice.customer.id, invoice.customer]));
  const ids = [...byId.keys()].map(Number).filter((id) => id > 0);
  const { rows } = await sql<ClientRow>`
    select c.clientnr, c.company, c.contact, c.address, c.zipcode, c.city, n.iso2 as country_iso2, c.taxnumber, c.email
    from clients c left join countries n on n.account_id = c.account_id and n.id = c.country and n.deleted_at is null
    where c.account_id = ${accountId} and c.clientnr = any(${ids}::int[])`.execute(db);
  for (const row of rows) {
    const trim = (value: string | null) => (value ?? '').trim() || undefined;
    byId.set(String(row.clientnr), {
      id: String(row.clientnr),
      name: trim(row.company) ?? trim(row.contact) ?? `client ${row.clientnr}`,
      address: {
        street: trim(row.address),
        postalCode: trim(row.zipcode),
        city: trim(row.city),
        country: row.country_iso2 ?? undefined,
      },
      vatNumber: trim(row.taxnumber)?.replaceAll(/[\s.]/g, '').toUpperCase(),
      email: trim(row.email),
    });
  }
  return [...byId.values()].sort((a, b) => Number(a.id) - Number(b.id));
}

export interface XafExport {
  input: XafInput;
  /** Invoices booked with the category their VAT says, as a rate of theirs could not be classified. */
  problems: InvoiceProblem[];
  /** Invoices booked with what the export derived (VAT from their lines, revenue per rate for an unusable ledger). */
  notes: InvoiceProblem[];
  /** Payments known but not booked (their amount not known yet). */
  paymentProblems: PaymentProblem[];
  /** Invoices with no date sent, which no year holds. */
  undated: number;
}

export async function xafExport(
  db: Kysely<Database>,
  accountId: number,
  year: Period,
  seller: Seller,
): Promise<XafExport> {
  const { invoices, problems, notes } = await readSalesInvoices(db, accountId, year);
  const { payments, problems: paymentProblems } = await readPayments(db, accountId, year.from, year.to);
  const input: XafInput = {
    seller,
    year: Number(year.label),
    created: new Date().toISOString().slice(0, 10),
    software: { name: 'invoice-mirror', version: packageVersion() },
    customers: await customersOf(db, accountId, invoices),
    invoices,
    payments,
  };
  return { input, problems, notes, paymentProblems, undated: await undatedInvoices(db, accountId) };
}

export interface UblExport {
  documents: { invoice: SalesInvoice; kind: 'Invoice' | 'CreditNote'; xml: string }[];
  problems: InvoiceProblem[];
}

/** The country whose VAT return the account files (accounts.vat_country): what its VAT entries are classified by. */
export async function accountVatCountry(db: Kysely<Database>, accountId: number): Promise<string> {
  const { rows } = await sql<{ vat_country: string }>`
    select vat_country from accounts where id = ${accountId}`.execute(db);
  return rows[0]?.vat_country ?? 'NL';
}

/**
 * Why the seller cannot be the account's: the VAT entries are classified by the account's VAT
 * country (0 % at home is Z, to another EU country K), so the seller must be of that country.
 */
export function sellerCountryProblem(seller: Seller, vatCountry: string, accountName: string): string | undefined {
  if (seller.country === vatCountry) return undefined;
  return `the seller's country is ${seller.country}, but account ${accountName} files its VAT return in ${vatCountry} (accounts.vat_country), by which its VAT is classified: give the seller of ${vatCountry}, or set the account's vat_country`;
}

export async function ublExport(
  db: Kysely<Database>,
  accountId: number,
  period: Period & { ids?: number[] },
  seller: Seller,
): Promise<UblExport> {
  const read = await readSalesInvoices(db, accountId, period);
  // A Belgian account's documents follow the Belgian rules (ubl-BE) as well.
  const belgian = (await accountVatCountry(db, accountId)) === 'BE';
  const problems = [...read.problems];
  const unclassified = new Set(problems.map((problem) => problem.id));
  const documents: UblExport['documents'] = [];
  for (const invoice of read.invoices) {
    if (unclassified.has(invoice.id)) continue;
    const document = buildUbl(invoice, seller, { belgian });
    if ('problem' in document) problems.push({ id: invoice.id, number: invoice.number, problem: document.problem });
    else documents.push({ invoice, ...document });
  }
  return { documents, problems };
}
