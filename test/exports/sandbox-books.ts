/**
 * What the export tests know of the sandbox's books independently of the project's code: its
 * records' VAT entries as test/reports/expected-vat.ts classifies them (its own country codes, the
 * rules written out again), the Dutch return's sums of a year from them, and an auditfile read
 * back from its XML text.
 */
import { XMLParser } from 'fast-xml-parser';
import { COUNTRIES } from '../../src/sandbox/countries.js';
import { type KnownCountry, nlReturnSums, vatEntries, type VatEntryRow } from '../reports/expected-vat.js';

/** The Dutch names of the service's list that map to no ISO code (as test/reports/vat.test.ts has them). */
const UNMAPPED = ['Congo', 'Joegoslavië', 'Nederlandse Antillen'];
const KNOWN = new Map<string, KnownCountry>(
  COUNTRIES.map((c) => [c.id, { name: c.names.nl, code: UNMAPPED.includes(c.names.nl) ? null : c.code }]),
);

/** The sandbox's invoices' VAT entries, classified for an account of `vatCountry`. */
export function oracleEntries(invoices: Record<string, unknown>[], vatCountry: 'NL' | 'BE'): VatEntryRow[] {
  return vatEntries({ invoices, countries: KNOWN, vatCountry });
}

/** Base and VAT in cents per rubric of the Dutch return, added up over the quarters of `year`. */
export function yearRubrics(entries: readonly VatEntryRow[], year: string): Map<string, { base: bigint; vat: bigint }> {
  const { sums, periods } = nlReturnSums(entries.filter((entry) => String(entry.invoice_date).startsWith(`${year}-`)));
  const out = new Map<string, { base: bigint; vat: bigint }>();
  for (const [key, sum] of sums) {
    const [period, code] = key.split('|') as [string, string];
    if (periods.get(period) !== 'quarter') continue;
    const total = out.get(code) ?? { base: 0n, vat: 0n };
    total.base += sum.base;
    total.vat += sum.vat;
    out.set(code, total);
  }
  return out;
}

export interface XafLine {
  account: string;
  /** Signed cents: debit positive. */
  amount: number;
  vat?: { id: string; amount: number };
}
export interface XafTransaction {
  journal: string;
  nr: string;
  date: string;
  desc: string;
  lines: XafLine[];
}

const cents = (text: unknown) => Math.round(Number(text) * 100);
const signed = (amount: unknown, side: unknown) => (side === 'C' ? -cents(amount) : cents(amount));

/** The auditfile's transactions and totals, read back from its text. */
export function readXaf(xml: string) {
  const parser = new XMLParser({
    parseTagValue: false,
    isArray: (name) => ['journal', 'transaction', 'trLine', 'vatCode', 'ledgerAccount'].includes(name),
  });
  const company = parser.parse(xml).auditfile.company;
  const transactions: XafTransaction[] = [];
  for (const journal of company.transactions.journal ?? [])
    for (const tr of journal.transaction ?? [])
      transactions.push({
        journal: journal.jrnID,
        nr: String(tr.nr),
        date: tr.trDt,
        desc: tr.desc,
        lines: tr.trLine.map((line: Record<string, Record<string, string> & string>) => ({
          account: String(line.accID),
          amount: signed(line.amnt, line.amntTp),
          vat: line.vat ? { id: line.vat.vatID, amount: signed(line.vat.vatAmnt, line.vat.vatAmntTp) } : undefined,
        })),
      });
  return {
    transactions,
    totalDebit: cents(company.transactions.totalDebit),
    totalCredit: cents(company.transactions.totalCredit),
    ledger: (company.generalLedger.ledgerAccount as { accID: string; accDesc: string }[]).map((a) => ({
      id: String(a.accID),
      name: a.accDesc,
    })),
  };
}

/** The rubric of the Dutch return an auditfile's VAT code stands for (U…: not classified). */
export function rubricOfCode(code: string): string {
  if (code.startsWith('U')) return 'unclassified';
  if (code === 'S21') return '1a';
  if (code === 'S9') return '1b';
  if (code.startsWith('S')) return '1c';
  return { Z0: '1e', AE: '1e', K: '3b', G: '3a' }[code] ?? `unknown code ${code}`;
}
