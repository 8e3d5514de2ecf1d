/**
 * One zod schema per entity, field names exactly as in the service specification (section 2).
 * Unknown fields are stripped from the typed record but kept in `raw`, the record as received.
 * Write-only inputs (action, overwrite_if_exist, tax_country) are not part of parsed records.
 */
import { z } from 'zod';
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
