/**
 * Writes an XML Auditfile Financieel 4.0 (the Belastingdienst's XAF 4.0.3, schema in
 * vendor/xaf-4.0.3): header, company, customers, a small chart of accounts, VAT codes, the
 * year's periods, and the sales journal and bank journal of xaf-journal.ts. Fields are cut to the
 * schema's lengths. A year of 10,000 invoices is about 25 MiB of text, built in a few seconds.
 */
import type { Customer, Payment, SalesInvoice, Seller } from './model.js';
import { formatCents } from './money.js';
import { text, XML_DECLARATION, type XmlElement, xmlOf } from './xml.js';
import {
  ACCOUNTS,
  invoiceTransaction,
  paymentTransaction,
  vatCodes,
  type LedgerAccount,
  type Transaction,
  type VatCode,
} from './xaf-journal.js';

export const XAF_NAMESPACE =
  'http://www.odb.belastingdienst.nl/Belastingdienst/BCPP/1.1/structures/XmlauditfileXAF_4.0';

export interface XafInput {
  seller: Seller;
  year: number;
  /** The date the file is made (YYYY-MM-DD). */
  created: string;
  software: { name: string; version: string };
  customers: Customer[];
  invoices: SalesInvoice[];
  payments: Payment[];
}

function streetAddress(value: { street?: string; postalCode?: string; city?: string; country?: string }) {
  if (!value.street && !value.postalCode && !value.city && !value.country) return undefined;
  return {
    streetname: text(value.street, 100),
    city: text(value.city, 50),
    postalCode: text(value.postalCode, 10),
    country: text(value.country, 2),
  };
}

function customerSupplier(customer: Customer): XmlElement {
  const vat = text(customer.vatNumber, 30);
  return {
    custSupID: text(customer.id, 35) ?? '0',
    custSupName: text(customer.name, 50),
    eMail: text(customer.email?.replaceAll(/\s+/g, ''), 255),
    taxRegistrationCountry: text(customer.address.country ?? (vat ? vat.slice(0, 2) : undefined), 2),
    taxRegIdent: vat,
    custSupTp: 'C',
    streetAddress: streetAddress(customer.address),
  };
}

function periods(year: number): XmlElement[] {
  return Array.from({ length: 12 }, (_, i) => {
    const mm = String(i + 1).padStart(2, '0');
    const last = new Date(Date.UTC(year, i + 1, 0)).getUTCDate();
    return { periodNumber: String(i + 1), startDatePeriod: `${year}-${mm}-01`, endDatePeriod: `${year}-${mm}-${last}` };
  });
}

const side = (amount: number) => (amount < 0 ? 'C' : 'D');

function transaction(tr: Transaction): XmlElement {
  return {
    nr: text(tr.nr, 35),
    desc: text(tr.desc),
    periodNumber: String(Number(tr.date.slice(5, 7))),
    trDt: tr.date,
    trLine: tr.lines.map((line, i) => ({
      nr: String(i + 1),
      accID: line.account,
      docRef: text(line.docRef, 255) ?? '-',
      effDate: line.effDate,
      desc: text(line.desc),
      amnt: formatCents(Math.abs(line.amount)),
      amntTp: side(line.amount),
      custSupID: text(line.custSupID, 35),
      invRef: text(line.invRef, 255),
      vat: line.vat && {
        vatID: line.vat.id,
        vatPerc: line.vat.rate,
        vatAmnt: formatCents(Math.abs(line.vat.amount)),
        vatAmntTp: side(line.vat.amount),
      },
    })),
  };
}

/** Count and debit and credit totals of the transactions' lines, as the `transactions` element states them. */
export function journalTotals(transactions: readonly Transaction[]) {
  let lines = 0;
  let debit = 0;
  let credit = 0;
  for (const tr of transactions)
    for (const line of tr.lines) {
      lines += 1;
      if (line.amount < 0) credit -= line.amount;
      else debit += line.amount;
    }
  return { lines, debit, credit };
}

const JOURNALS = [
  { id: 'VK', desc: 'Verkoopboek', type: 'S' },
  { id: 'BNK', desc: 'Bank (ontvangen betalingen)', type: 'B' },
] as const;

/** The chart: the accounts the transactions use, revenue per VAT code or the invoices' own ledgers. */
function chart(input: XafInput, codes: Map<string, VatCode>, all: readonly Transaction[]): LedgerAccount[] {
  const used = new Set(all.flatMap((tr) => tr.lines.map((line) => line.account)));
  const ledger = new Map<string, LedgerAccount>();
  const revenue = [...codes.values()].map((code) => code.revenue);
  for (const account of [ACCOUNTS.bank, ACCOUNTS.debtors, ACCOUNTS.vatPayable, ...revenue, ACCOUNTS.discounts])
    if (used.has(account.id)) ledger.set(account.id, account);
  for (const invoice of input.invoices)
    if (invoice.ledger) ledger.set(invoice.ledger.id, { ...invoice.ledger, type: 'P' });
  return [...ledger.values()];
}

function company(input: XafInput, codes: Map<string, VatCode>, all: readonly Transaction[]): XmlElement {
  const { seller } = input;
  return {
    Commercenr: text(seller.kvk, 100),
    companyName: text(seller.name, 255),
    taxRegistrationCountry: seller.country,
    taxRegIdent: text(seller.vatNumber, 30),
    streetAddress: streetAddress(seller.address),
    customersSuppliers: input.customers.length
      ? { customerSupplier: input.customers.map(customerSupplier) }
      : undefined,
    generalLedger: {
      ledgerAccount: chart(input, codes, all).map((account) => ({
        accID: account.id,
        accDesc: text(account.name, 255),
        accTp: account.type,
      })),
    },
    vatCodes: {
      vatCode: [...codes.values()].map((code) => ({
        vatID: code.id,
        vatDesc: text(code.name, 100),
        vatToPayAccID: ACCOUNTS.vatPayable.id,
      })),
    },
    periods: { period: periods(input.year) },
  };
}

/** Writes the auditfile to `write`. */
export function writeXaf(input: XafInput, write: (chunk: string) => void): void {
  const codes = vatCodes(input.invoices);
  const all = [
    ...input.invoices.map((invoice) => invoiceTransaction(invoice, codes)),
    ...input.payments.map(paymentTransaction),
  ];
  const totals = journalTotals(all);
  const auditfile = {
    '@_xmlns': XAF_NAMESPACE,
    header: {
      fiscalYear: String(input.year),
      startDate: `${input.year}-01-01`,
      endDate: `${input.year}-12-31`,
      curCode: 'EUR',
      dateCreated: input.created,
      softwareDesc: text(input.software.name, 50),
      softwareVersion: text(input.software.version, 20),
    },
    company: {
      ...company(input, codes, all),
      transactions: {
        linesCount: String(totals.lines),
        totalDebit: formatCents(totals.debit),
        totalCredit: formatCents(totals.credit),
        journal: JOURNALS.map((journal) => ({
          jrnID: journal.id,
          desc: journal.desc,
          jrnTp: journal.type,
          transaction: all.filter((tr) => tr.journal === journal.id).map(transaction),
        })),
      },
    },
  };
  write(XML_DECLARATION);
  write(xmlOf({ auditfile }));
}

export function buildXaf(input: XafInput): string {
  const chunks: string[] = [];
  writeXaf(input, (chunk) => chunks.push(chunk));
  return chunks.join('');
}
