/**
 * One zod schema per entity, field names exactly as in the service specification (section 2).
 * Unknown fields are stripped from the typed record but kept in `raw`, the record as received.
 * Write-only inputs (action, overwrite_if_exist, tax_country) are not part of parsed records.
 */
import { z } from 'zod';
import type { WireItem } from './json-split.js';
import { w } from './wire.js';

export type { DocumentLine, Reference, Approval } from './wire.js';

export type EntityName = 'clients' | 'products' | 'quotations' | 'saved_invoices' | 'repeating_invoices' | 'countries';

export const ENTITY_NAMES: readonly EntityName[] = [
  'clients',
  'products',
  'quotations',
  'saved_invoices',
  'repeating_invoices',
  'countries',
];

const clientShape = {
  clientnr: w.key,
  contact: w.text,
  showcontact: w.bool,
  company: w.text,
  address: w.text,
  address_addon: w.text,
  zipcode: w.text,
  city: w.text,
  country: w.country,
  phone: w.text,
  mobile: w.text,
  email: w.text,
  addon: w.text,
  bankcode: w.text,
  biccode: w.text,
  taxnumber: w.text,
  tax_shifted: w.bool,
  lastinvoice: w.date,
  sendmethod: w.lower,
  paymentmethod: w.lower,
  top: w.int,
  stddiscount: w.num, // typed integer, but a documented example sends a decimal
  mailintro: w.text,
  reference: w.reference,
  notes: w.text,
  notes_on_invoice: w.bool,
  active: w.bool,
  default_doclang: w.text,
  default_category: w.int,
  default_email: w.int,
  email_reminder: w.text,
  currency: w.text,
  mandate_id: w.text,
  mandate_date: w.date,
  collecttype: w.upper,
  tax_type: w.lower,
};

const productShape = {
  id: w.key,
  code: w.text,
  name: w.text,
  price: w.num,
  taxes: w.num, // a percentage; kept numeric so a 5.5 % rate does not reject the product
  priceintax: w.num,
  notes: w.text,
  stock: w.stock,
  stock_use: w.bool,
};

// The client's details copied onto every document (spec 2.3, 2.7).
const party = {
  clientnr: w.int,
  contact: w.text,
  company: w.text,
  address: w.text,
  zipcode: w.text,
  city: w.text,
  country: w.country,
};

// Fields saved and repeating invoices share (spec 2.3 / 2.4).
const invoiceCommon = {
  id: w.key,
  name: w.text,
  reference: w.reference,
  lines: w.lines,
  profile: w.int,
  discounttype: w.lower,
  discount: w.num,
  paymentcondition: w.text,
  paymentperiod: w.int,
  totalintax: w.num,
  ...party,
};

const savedInvoiceShape = {
  ...invoiceCommon,
  totaldiscount: w.num,
  alreadypaid: w.num,
  alreadypaidmethod: w.text,
};

const repeatingInvoiceShape = {
  ...invoiceCommon,
  datesaved: w.date,
  initialdate: w.date,
  nextsenddate: w.date,
  finalsenddate: w.date,
  frequency: w.lower,
  repeattype: w.lower,
  email: w.text,
};

const quotationShape = {
  id: w.key,
  sendmethod: w.lower,
  savename: w.text,
  quotationreference: w.text,
  reference: w.reference,
  lines: w.lines,
  profile: w.int,
  profile_name: w.text,
  category: w.int,
  category_name: w.text,
  discounttype: w.lower,
  discount: w.num,
  paymentcondition: w.text,
  quotationperiod: w.int,
  showtotals: w.bool,
  date: w.date,
  datedue: w.date,
  notes: w.text,
  totalintax: w.num,
  convert_prices_to_euro: w.bool,
  sent: w.bool,
  customstatus: w.lower,
  approved: w.approval,
  ...party,
  phone: w.text,
  mobile: w.text,
  email: w.text,
  sign_url: w.text,
};

const countryShape = {
  id: w.key,
  name: w.text,
};

export const schemas = {
  clients: z.object(clientShape),
  products: z.object(productShape),
  quotations: z.object(quotationShape),
  saved_invoices: z.object(savedInvoiceShape),
  repeating_invoices: z.object(repeatingInvoiceShape),
  countries: z.object(countryShape),
} as const;

/** The field that identifies a record of each entity. */
export const KEY_FIELD: Record<EntityName, string> = {
  clients: 'clientnr',
  products: 'id',
  quotations: 'id',
  saved_invoices: 'id',
  repeating_invoices: 'id',
  countries: 'id',
};

type Parsed<S extends z.ZodType> = z.output<S> & { raw: Record<string, unknown> };

export type Client = Parsed<typeof schemas.clients>;
export type Product = Parsed<typeof schemas.products>;
export type Quotation = Parsed<typeof schemas.quotations>;
export type SavedInvoice = Parsed<typeof schemas.saved_invoices>;
export type RepeatingInvoice = Parsed<typeof schemas.repeating_invoices>;
export type Country = Parsed<typeof schemas.countries>;

export interface RecordTypes {
  clients: Client;
  products: Product;
  quotations: Quotation;
  saved_invoices: SavedInvoice;
  repeating_invoices: RepeatingInvoice;
  countries: Country;
}
export type RecordOf<E extends EntityName> = RecordTypes[E];

/** A record that could not be understood: left out of its page, reported with its id and field. */
export interface RecordProblem {
  entity: EntityName;
  id: string | null;
  field: string;
  message: string;
}

function readableId(raw: unknown, keyField: string): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as Record<string, unknown>)[keyField];
  if (typeof id === 'string') return id.length > 64 ? id.slice(0, 64) : id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return null;
}

/**
 * Parse one wire record. Returns the typed record (with `raw` attached) or the list of problems
 * (one per field that failed).
 */
export function parseRecord<E extends EntityName>(
  entity: E,
  raw: unknown,
): { record: RecordOf<E> } | { problems: RecordProblem[] } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      problems: [
        {
          entity,
          id: null,
          field: '(record)',
          message: `expected a record object, got ${Array.isArray(raw) ? 'an array' : typeof raw}`,
        },
      ],
    };
  }
  const result = schemas[entity].safeParse(raw);
  if (result.success) {
    const record = result.data as RecordOf<E>;
    record.raw = raw as Record<string, unknown>;
    return { record };
  }
  const id = readableId(raw, KEY_FIELD[entity]);
  return {
    problems: result.error.issues.map((issue) => ({
      entity,
      id,
      field: issue.path.join('.') || '(record)',
      message: issue.message,
    })),
  };
}

/**
 * A value the mirror stores other than as it came, reported with entity, id and field:
 * `rejected`: the field is stored as NULL (its original stays in `raw`); `repaired`: stored
 * changed so that Postgres can hold it (see `reason`); `skipped`: the record is not stored at all
 * (its id cannot be read or stored).
 */
export interface ValueIssue extends RecordProblem {
  /** The value as received, shortened (JSON text for anything but a string). */
  value: string;
  action: 'rejected' | 'repaired' | 'skipped';
}

/** A record read leniently: the typed record (bad fields as null), its exact text and what was not stored as it came. */
export interface ReadRecord<T> {
  record: T;
  /** The record's JSON text as received (after any repair): stored in `raw`, hashed to detect change. */
  rawText: string;
  issues: ValueIssue[];
}

function shownValue(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? 'undefined');
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A copy of `root` with the value at `path` replaced (copies only along the path). */
function withValueAt(root: unknown, path: readonly PropertyKey[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [PropertyKey, ...PropertyKey[]];
  const copy: Record<PropertyKey, unknown> = Array.isArray(root) ? ([...root] as never) : { ...(root as object) };
  copy[head] = withValueAt(copy[head], rest, replacement);
  return copy;
}

/**
 * Reads one wire record so that no single value keeps it out: a field that cannot be read is
 * stored as NULL and reported (a line that is not an object becomes an empty line); only a record
 * whose id cannot be read or stored is skipped. `repaired` are values the wire text already had
 * changed so that Postgres can store them (see json-split.ts).
 */
export function readRecord<E extends EntityName>(
  entity: E,
  item: WireItem,
): { read: ReadRecord<RecordOf<E>> } | { skipped: ValueIssue[] } {
  const keyField = KEY_FIELD[entity];
  const raw = item.value;
  const id = readableId(raw, keyField);
  const repaired: ValueIssue[] = (item.repaired ?? []).map((r) => ({
    entity,
    id,
    field: r.path,
    message: r.reason,
    value: r.value,
    action: 'repaired',
  }));
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const what = Array.isArray(raw) ? 'an array' : typeof raw;
    const message = `expected a record object, got ${what}`;
    return { skipped: [{ entity, id: null, field: '(record)', message, value: shownValue(raw), action: 'skipped' }] };
  }
  let candidate: unknown = raw;
  const rejected: ValueIssue[] = [];
  // Each round nulls the fields that failed; a second failure of the same field cannot happen
  // (null is valid for every non-key field), so two rounds are the most it takes.
  for (let round = 0; round < 2; round++) {
    const result = schemas[entity].safeParse(candidate);
    if (result.success) {
      const record = result.data as RecordOf<E>;
      record.raw = raw as Record<string, unknown>;
      return { read: { record, rawText: item.text, issues: [...repaired, ...rejected] } };
    }
    for (const issue of result.error.issues) {
      const field = issue.path.join('.') || '(record)';
      const value = shownValue(valueAt(raw, issue.path));
      if (issue.path.length === 0 || issue.path[0] === keyField) {
        return { skipped: [{ entity, id, field, message: issue.message, value, action: 'skipped' }] };
      }
      rejected.push({ entity, id, field, message: issue.message, value, action: 'rejected' });
      // A line that is not an object at all is kept as an empty line, so the others keep their positions.
      const isLine = issue.path.length === 2 && issue.path[0] === 'lines';
      candidate = withValueAt(candidate, issue.path, isLine ? {} : null);
    }
  }
  return { skipped: [{ entity, id, field: '(record)', message: 'could not be read', value: '', action: 'skipped' }] };
}

/** The records of one page read leniently (see readRecord): records to store, and those skipped. */
export function readRecords<E extends EntityName>(
  entity: E,
  items: readonly WireItem[],
): { records: ReadRecord<RecordOf<E>>[]; skipped: ValueIssue[] } {
  const records: ReadRecord<RecordOf<E>>[] = [];
  const skipped: ValueIssue[] = [];
  for (const item of items) {
    const outcome = readRecord(entity, item);
    if ('read' in outcome) records.push(outcome.read);
    else skipped.push(...outcome.skipped);
  }
  return { records, skipped };
}

/** Parse the records of one page; a bad record is reported and skipped, the rest continue. */
export function parseRecords<E extends EntityName>(
  entity: E,
  items: readonly unknown[],
): { records: RecordOf<E>[]; problems: RecordProblem[] } {
  const records: RecordOf<E>[] = [];
  const problems: RecordProblem[] = [];
  for (const item of items) {
    const parsed = parseRecord(entity, item);
    if ('record' in parsed) records.push(parsed.record);
    else problems.push(...parsed.problems);
  }
  return { records, problems };
}
