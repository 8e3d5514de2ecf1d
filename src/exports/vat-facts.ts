/**
 * The VAT classification the exports use: issue 44's `vat_entries`, the very rows the VAT returns
 * (`vat_return_nl`, `vat_return_be`, `icp_return`) add up and `vat_problems` lists. Each entry of
 * an invoice's `taxes` (rate, base, VAT, as the service computed them) comes with its Peppol VAT
 * category (S, Z, AE, K, G), its grid of the Belgian return, or the kind of problem that keeps it
 * out of every rubric, so a UBL category matches the rubric the return puts the amount in and a
 * problem is named in the exports as the VAT report names it.
 */
import { sql, type Kysely } from 'kysely';
import { VAT_PROBLEMS, type VatProblemKind } from '../catalog/vat-rules.js';
import type { Database } from '../db/index.js';
import { VAT_CATEGORIES, type VatCategory } from './model.js';
import { type Cents, toCents } from './money.js';

/** One entry of an invoice's `taxes`, classified. */
export interface VatEntry {
  /** Its key in `taxes` (`tax1`, …); null for the row of an invoice without entries (problem no_taxes). */
  key: string | null;
  /** Rate, base and VAT as the service gave them; null when the entry cannot be read. */
  rate: string | null;
  base: Cents | null;
  vat: Cents | null;
  /** The Peppol VAT category of its treatment; undefined with a problem. */
  category?: VatCategory;
  /** Its grid of the Belgian return (an account whose vat_country is BE). */
  beGrid?: string;
  /** Why it cannot be classified, as vat_problems says it. */
  problem?: { kind: VatProblemKind; text: string };
}

interface EntryRow {
  invoice_id: number;
  entry_key: string | null;
  rate: string | null;
  base: string | null;
  vat: string | null;
  peppol_category: string | null;
  be_grid: string | null;
  problem: string | null;
}

const isCategory = (value: string | null): value is VatCategory =>
  value !== null && (VAT_CATEGORIES as readonly string[]).includes(value);

/** What vat_problems says of a kind of problem. */
export function problemText(kind: VatProblemKind): string {
  return `${kind}: ${VAT_PROBLEMS[kind]}`;
}

function entryOf(row: EntryRow): VatEntry {
  const entry: VatEntry = {
    key: row.entry_key,
    rate: row.rate,
    base: row.base === null ? null : toCents(row.base),
    vat: row.vat === null ? null : toCents(row.vat),
  };
  if (row.problem !== null) {
    const kind = row.problem as VatProblemKind;
    entry.problem = { kind, text: problemText(kind) };
  } else if (isCategory(row.peppol_category)) entry.category = row.peppol_category;
  else throw new Error(`vat_entries: invoice ${row.invoice_id} has neither a Peppol category nor a problem`);
  if (row.be_grid !== null) entry.beGrid = row.be_grid;
  return entry;
}

/**
 * The classified VAT entries of the account's invoices dated from `from` to `to` (or only of the
 * invoices with the ids given), by invoice id, in the order of their keys.
 */
export async function readVatEntries(
  db: Kysely<Database>,
  accountId: number,
  period: { from: string; to: string; ids?: readonly number[] },
): Promise<Map<number, VatEntry[]>> {
  const only = period.ids ? sql`and invoice_id = any(${[...period.ids]}::int[])` : sql``;
  const { rows } = await sql<EntryRow>`
    select invoice_id, entry_key, rate::text as rate, base::text as base, vat::text as vat, peppol_category,
           be_grid, problem
      from vat_entries
     where account_id = ${accountId} and invoice_date between ${period.from}::date and ${period.to}::date ${only}
     order by invoice_id, entry_key`.execute(db);
  const byInvoice = new Map<number, VatEntry[]>();
  for (const row of rows) {
    const list = byInvoice.get(row.invoice_id) ?? [];
    list.push(entryOf(row));
    byInvoice.set(row.invoice_id, list);
  }
  return byInvoice;
}
