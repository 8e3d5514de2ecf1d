/**
 * The mirror tables: one typed row per record of the service, columns named exactly as the fields
 * of the specification, plus `raw` (the record as received) and the bookkeeping timestamps.
 *
 * The columns are described once, as data: this migration builds its DDL from them, the sync
 * engine builds its merge statements from them, and the Kysely row types are derived from them.
 * Forward-only: a later change adds a new migration with its own column list.
 */
import { sql, type ColumnType, type Kysely } from 'kysely';

export type SqlType = 'integer' | 'numeric' | 'text' | 'boolean' | 'date' | 'jsonb';

export interface MirrorColumn {
  readonly name: string;
  readonly type: SqlType;
  /** The field of the parsed record it comes from, when that is not the column's own name. */
  readonly field?: string;
  /** A key inside that field, e.g. `line1` of `reference`. */
  readonly subfield?: string;
}

const reference = [
  { name: 'reference_line1', type: 'text', field: 'reference', subfield: 'line1' },
  { name: 'reference_line2', type: 'text', field: 'reference', subfield: 'line2' },
  { name: 'reference_line3', type: 'text', field: 'reference', subfield: 'line3' },
] as const;

/** Party fields copied onto documents (spec 2.3, 2.7). */
const party = [
  { name: 'clientnr', type: 'integer' },
  { name: 'contact', type: 'text' },
  { name: 'company', type: 'text' },
  { name: 'address', type: 'text' },
  { name: 'zipcode', type: 'text' },
  { name: 'city', type: 'text' },
  { name: 'country', type: 'integer' },
] as const;

const invoiceCommon = [
  { name: 'id', type: 'integer' },
  { name: 'name', type: 'text' },
  ...reference,
  { name: 'profile', type: 'integer' },
  { name: 'discounttype', type: 'text' },
  { name: 'discount', type: 'numeric' },
  { name: 'paymentcondition', type: 'text' },
  { name: 'paymentperiod', type: 'integer' },
  { name: 'totalintax', type: 'numeric' },
  ...party,
] as const;

export const MIRROR_COLUMNS = {
  clients: [
    { name: 'clientnr', type: 'integer' },
    { name: 'contact', type: 'text' },
    { name: 'showcontact', type: 'boolean' },
    { name: 'company', type: 'text' },
    { name: 'address', type: 'text' },
    { name: 'address_addon', type: 'text' },
    { name: 'zipcode', type: 'text' },
    { name: 'city', type: 'text' },
    { name: 'country', type: 'integer' },
    { name: 'phone', type: 'text' },
    { name: 'mobile', type: 'text' },
    { name: 'email', type: 'text' },
    { name: 'addon', type: 'text' },
    { name: 'bankcode', type: 'text' },
    { name: 'biccode', type: 'text' },
    { name: 'taxnumber', type: 'text' },
    { name: 'tax_shifted', type: 'boolean' },
    { name: 'lastinvoice', type: 'date' },
    { name: 'sendmethod', type: 'text' },
    { name: 'paymentmethod', type: 'text' },
    { name: 'top', type: 'integer' },
    { name: 'stddiscount', type: 'numeric' },
    { name: 'mailintro', type: 'text' },
    ...reference,
    { name: 'notes', type: 'text' },
    { name: 'notes_on_invoice', type: 'boolean' },
    { name: 'active', type: 'boolean' },
    { name: 'default_doclang', type: 'text' },
    { name: 'default_category', type: 'integer' },
    { name: 'default_email', type: 'integer' },
    { name: 'email_reminder', type: 'text' },
    { name: 'currency', type: 'text' },
    { name: 'mandate_id', type: 'text' },
    { name: 'mandate_date', type: 'date' },
    { name: 'collecttype', type: 'text' },
    { name: 'tax_type', type: 'text' },
  ],
  products: [
    { name: 'id', type: 'integer' },
    { name: 'code', type: 'text' },
    { name: 'name', type: 'text' },
    { name: 'price', type: 'numeric' },
    { name: 'taxes', type: 'numeric' },
    { name: 'priceintax', type: 'numeric' },
    { name: 'notes', type: 'text' },
    { name: 'stock', type: 'numeric' },
    { name: 'stock_use', type: 'boolean' },
  ],
  quotations: [
    { name: 'id', type: 'integer' },
    { name: 'sendmethod', type: 'text' },
    { name: 'savename', type: 'text' },
    { name: 'quotationreference', type: 'text' },
    ...reference,
    { name: 'profile', type: 'integer' },
    { name: 'profile_name', type: 'text' },
    { name: 'category', type: 'integer' },
    { name: 'category_name', type: 'text' },
    { name: 'discounttype', type: 'text' },
    { name: 'discount', type: 'numeric' },
    { name: 'paymentcondition', type: 'text' },
    { name: 'quotationperiod', type: 'integer' },
    { name: 'showtotals', type: 'boolean' },
    { name: 'date', type: 'date' },
    { name: 'datedue', type: 'date' },
    { name: 'notes', type: 'text' },
    { name: 'totalintax', type: 'numeric' },
    { name: 'convert_prices_to_euro', type: 'boolean' },
    { name: 'sent', type: 'boolean' },
    { name: 'customstatus', type: 'text' },
    { name: 'approved', type: 'jsonb' },
    ...party,
    { name: 'phone', type: 'text' },
    { name: 'mobile', type: 'text' },
    { name: 'email', type: 'text' },
    { name: 'sign_url', type: 'text' },
  ],
  saved_invoices: [
    ...invoiceCommon,
    { name: 'totaldiscount', type: 'numeric' },
    { name: 'alreadypaid', type: 'numeric' },
    { name: 'alreadypaidmethod', type: 'text' },
  ],
  repeating_invoices: [
    ...invoiceCommon,
    { name: 'datesaved', type: 'date' },
    { name: 'initialdate', type: 'date' },
    { name: 'nextsenddate', type: 'date' },
    { name: 'finalsenddate', type: 'date' },
    { name: 'frequency', type: 'text' },
    { name: 'repeattype', type: 'text' },
    { name: 'email', type: 'text' },
  ],
  countries: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'text' },
  ],
} as const satisfies Record<string, readonly MirrorColumn[]>;

export type MirrorTable = keyof typeof MIRROR_COLUMNS;
export const MIRROR_KEYS = {
  clients: 'clientnr',
  products: 'id',
  quotations: 'id',
  saved_invoices: 'id',
  repeating_invoices: 'id',
  countries: 'id',
} as const satisfies Record<MirrorTable, string>;

export const DOCUMENT_TYPES = ['quotation', 'saved_invoice', 'repeating_invoice'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export const LINE_COLUMNS = [
  { name: 'amount', type: 'numeric' },
  { name: 'amount_desc', type: 'text' },
  { name: 'description', type: 'text' },
  { name: 'tax_rate', type: 'numeric' },
  { name: 'price', type: 'numeric' },
  { name: 'discount_pct', type: 'numeric' },
  { name: 'linetotal', type: 'numeric' },
] as const satisfies readonly MirrorColumn[];

// ---- Kysely row types, derived from the column lists above ----------------------------------

/** How each SQL type comes back from the database (see src/db/connect.ts). */
interface SelectTypes {
  integer: number;
  numeric: string;
  text: string;
  boolean: boolean;
  date: string;
  jsonb: unknown;
}
type Columns<C extends readonly MirrorColumn[]> = {
  [K in C[number] as K['name']]: ColumnType<SelectTypes[K['type']] | null, never, never>;
};
interface Bookkeeping {
  raw: ColumnType<Record<string, unknown>, never, never>;
  /** md5 of the record's text as received: lets a pull skip unchanged records cheaply. */
  raw_hash: ColumnType<string | null, never, never>;
  first_seen_at: ColumnType<Date, never, never>;
  last_changed_at: ColumnType<Date, never, never>;
  last_seen_at: ColumnType<Date, never, never>;
  deleted_at: ColumnType<Date | null, never, never>;
}
/** Mirror rows are written only by the sync engine (with raw SQL); Kysely reads them. */
export type MirrorRow<T extends MirrorTable> = Columns<(typeof MIRROR_COLUMNS)[T]> & Bookkeeping;
export type DocumentLinesTable = {
  document_type: ColumnType<DocumentType, never, never>;
  document_id: ColumnType<number, never, never>;
  position: ColumnType<number, never, never>;
} & Columns<typeof LINE_COLUMNS>;

// ---- DDL -------------------------------------------------------------------------------------

function columnList(columns: readonly MirrorColumn[], key: string): string {
  return columns.map((c) => `${quoteName(c.name)} ${c.type}${c.name === key ? ' primary key' : ''}`).join(',\n  ');
}

/** Quotes the few column names that are also SQL keywords (`date`, `name` is fine, `top` is fine). */
export function quoteName(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name) ? name : `"${name}"`;
}
const RESERVED = new Set(['date', 'position', 'reference', 'default', 'order', 'user']);

function statements(): string[] {
  const out: string[] = [];
  for (const [table, columns] of Object.entries(MIRROR_COLUMNS) as [MirrorTable, readonly MirrorColumn[]][]) {
    out.push(`create table ${table} (
  ${columnList(columns, MIRROR_KEYS[table])},
  raw jsonb not null,
  raw_hash text,
  first_seen_at timestamptz not null default now(),
  last_changed_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  deleted_at timestamptz
)`);
    out.push(`create index ${table}_deleted_at on ${table} (deleted_at)`);
  }
  for (const table of ['quotations', 'saved_invoices', 'repeating_invoices']) {
    out.push(`create index ${table}_clientnr on ${table} (clientnr)`);
  }
  out.push(`create index quotations_date on quotations (date)`);
  out.push(`create index repeating_invoices_nextsenddate on repeating_invoices (nextsenddate)`);
  out.push(`create table document_lines (
  document_type text not null check (document_type in (${DOCUMENT_TYPES.map((t) => `'${t}'`).join(', ')})),
  document_id integer not null,
  position integer not null,
  ${LINE_COLUMNS.map((c) => `${quoteName(c.name)} ${c.type}`).join(',\n  ')},
  primary key (document_type, document_id, position)
)`);
  // Per-entity bookkeeping of pulls: when each entity was last pulled completely.
  out.push(`create table entity_pulls (
  entity text primary key,
  last_complete_at timestamptz,
  last_complete_run_id bigint references sync_runs (id) on delete set null
)`);
  return out;
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements()) await sql.raw(statement).execute(db);
}
