/**
 * Field tables of the five record kinds (spec section 2): how each field is read from input and
 * written on the wire. One table drives validation of HTTP input and coercion of test overrides.
 */
import { resolveCountry } from './countries.js';
import {
  bad,
  decimalsOf,
  linesToWire,
  readBool,
  readDate,
  readInt,
  readLines,
  readNumber,
  readString,
  type Rec,
} from './wire.js';

export type SandboxEntity = 'clients' | 'products' | 'quotations' | 'saved_invoices' | 'repeating_invoices';
export const ENTITIES: readonly SandboxEntity[] = [
  'clients',
  'products',
  'quotations',
  'saved_invoices',
  'repeating_invoices',
];
export const keyOf = (entity: SandboxEntity): 'clientnr' | 'id' => (entity === 'clients' ? 'clientnr' : 'id');

type Kind =
  | { t: 'str'; max?: number }
  | { t: 'int' }
  | { t: 'num'; decimals?: number }
  | { t: 'bool' } // "true"/"false"
  | { t: 'bool01' } // "1"/"0"
  | { t: 'date' }
  | { t: 'enum'; values: readonly string[] }
  | { t: 'country' }
  | { t: 'lines' }
  | { t: 'reference' }
  | { t: 'special' }; // handled by the operation itself (state rules), coerced loosely for overrides

/** `ro` fields are returned but never taken from HTTP input. */
interface Field {
  kind: Kind;
  ro?: boolean;
}

const str = (max?: number): Field => ({ kind: { t: 'str', max } });
const ro = (kind: Kind): Field => ({ kind, ro: true });
const f = (kind: Kind): Field => ({ kind });

export const SENDMETHODS = ['mail', 'email', 'printcenter'] as const;
export const FREQUENCIES = [
  'weekly',
  'biweekly',
  'fourweekly',
  'monthly',
  'bimonthly',
  'quarterly',
  'halfyearly',
  'yearly',
] as const;
export const CUSTOMSTATUSES = ['progress', 'completed', 'billable', 'declined', 'clear'] as const;
/** Tax percentages "set in the account". */
export const ACCOUNT_TAX_RATES = [0, 6, 9, 19, 21] as const;
const DISCOUNTTYPES = ['amount', 'percentage'];

/** Contact details a document copies from its client. */
export const CLIENT_DETAILS = ['contact', 'company', 'address', 'zipcode', 'city', 'country'] as const;

const docCommon: Record<string, Field> = {
  id: ro({ t: 'int' }),
  reference: f({ t: 'reference' }),
  lines: f({ t: 'lines' }),
  profile: f({ t: 'int' }),
  discounttype: f({ t: 'enum', values: DISCOUNTTYPES }),
  discount: f({ t: 'num' }),
  paymentcondition: str(),
  totalintax: ro({ t: 'num' }),
  clientnr: f({ t: 'int' }),
  contact: ro({ t: 'str', max: 50 }),
  company: ro({ t: 'str', max: 50 }),
  address: ro({ t: 'str', max: 50 }),
  zipcode: ro({ t: 'str', max: 7 }),
  city: ro({ t: 'str', max: 50 }),
  country: ro({ t: 'country' }),
};

export const FIELDS: Record<SandboxEntity, Record<string, Field>> = {
  clients: {
    clientnr: f({ t: 'int' }),
    contact: str(50),
    showcontact: f({ t: 'bool' }),
    company: str(50),
    address: str(50),
    address_addon: str(50),
    zipcode: str(7),
    city: str(50),
    country: f({ t: 'country' }),
    phone: str(13),
    mobile: str(13),
    email: str(255),
    addon: str(255),
    bankcode: str(32),
    biccode: str(32),
    taxnumber: str(18),
    tax_shifted: f({ t: 'bool' }),
    lastinvoice: ro({ t: 'date' }),
    sendmethod: f({ t: 'enum', values: SENDMETHODS }),
    paymentmethod: f({ t: 'enum', values: ['bank', 'autocollect'] }),
    top: f({ t: 'int' }),
    stddiscount: f({ t: 'num' }),
    mailintro: str(128),
    reference: f({ t: 'reference' }),
    notes: str(),
    notes_on_invoice: f({ t: 'bool' }),
    active: f({ t: 'bool' }),
    default_doclang: f({ t: 'enum', values: ['', 'nl', 'en', 'de', 'fr', 'es', 'it'] }),
    default_category: f({ t: 'int' }),
    default_email: ro({ t: 'int' }),
    email_reminder: str(255),
    currency: str(3),
    mandate_id: str(),
    mandate_date: f({ t: 'date' }),
    collecttype: f({ t: 'enum', values: ['OOFF', 'FRST', 'RCUR'] }),
    tax_type: f({ t: 'enum', values: ['intax', 'extax'] }),
  },
  products: {
    id: ro({ t: 'int' }),
    code: str(20),
    name: str(),
    price: f({ t: 'num', decimals: 3 }),
    taxes: f({ t: 'special' }),
    priceintax: f({ t: 'special' }),
    notes: str(),
    stock: f({ t: 'special' }),
    stock_use: f({ t: 'bool' }),
  },
  quotations: {
    ...docCommon,
    sendmethod: f({ t: 'special' }),
    savename: str(40),
    quotationreference: str(40),
    profile_name: ro({ t: 'str' }),
    category: f({ t: 'int' }),
    category_name: ro({ t: 'str' }),
    quotationperiod: f({ t: 'int' }),
    showtotals: f({ t: 'bool01' }),
    date: f({ t: 'date' }),
    datedue: ro({ t: 'date' }),
    notes: str(),
    convert_prices_to_euro: f({ t: 'bool01' }),
    sent: ro({ t: 'bool' }),
    customstatus: f({ t: 'special' }),
    approved: f({ t: 'special' }),
    phone: ro({ t: 'str', max: 13 }),
    mobile: ro({ t: 'str', max: 13 }),
    email: ro({ t: 'str', max: 255 }),
    sign_url: ro({ t: 'str' }),
  },
  saved_invoices: {
    ...docCommon,
    name: str(20),
    paymentperiod: f({ t: 'int' }),
    totaldiscount: ro({ t: 'num' }),
    alreadypaid: f({ t: 'num' }),
    alreadypaidmethod: str(32),
  },
  repeating_invoices: {
    ...docCommon,
    name: str(20),
    paymentperiod: f({ t: 'int' }),
    datesaved: f({ t: 'date' }),
    initialdate: f({ t: 'date' }),
    nextsenddate: f({ t: 'date' }),
    finalsenddate: f({ t: 'date' }),
    frequency: f({ t: 'enum', values: FREQUENCIES }),
    repeattype: f({ t: 'enum', values: ['auto', 'manual'] }),
    email: str(255),
  },
};

/** An enum value in any case, returned in the list's own spelling. */
export function readEnum(value: unknown, values: readonly string[], field: string): string {
  const text = readString(value, field).trim();
  const hit = values.find((v) => v.toLowerCase() === text.toLowerCase());
  if (hit === undefined) throw bad(`${field}: must be one of ${values.filter((v) => v !== '').join(', ')}`);
  return hit;
}

export function readCountry(value: unknown, field = 'country'): string {
  const text = readString(value, field);
  if (text.trim() === '') return '';
  const id = resolveCountry(text);
  if (id === undefined) throw bad(`${field}: unknown country "${text}"`);
  return id;
}

function readReference(value: unknown, previous: unknown): Rec {
  const prev = (previous && typeof previous === 'object' ? previous : {}) as Rec;
  const out: Rec = { line1: prev.line1 ?? '', line2: prev.line2 ?? '', line3: prev.line3 ?? '' };
  if (value === '' || value === null) return { line1: '', line2: '', line3: '' };
  if (Array.isArray(value))
    for (const [i, v] of value.slice(0, 3).entries()) out[`line${i + 1}`] = readString(v, `reference: line${i + 1}`);
  else if (typeof value === 'object') {
    for (const k of ['line1', 'line2', 'line3'])
      if ((value as Rec)[k] !== undefined) out[k] = readString((value as Rec)[k], `reference: ${k}`);
  } else throw bad('reference: must be an object with line1, line2, line3');
  return out;
}

/** Convert one input value to its wire form; `strict` adds the service's validation (lengths, enums, decimals). */
export function toWire(kind: Kind, value: unknown, field: string, strict: boolean, previous?: unknown): unknown {
  switch (kind.t) {
    case 'str': {
      const s = readString(value, field);
      if (strict && kind.max !== undefined && [...s].length > kind.max)
        throw bad(`${field}: at most ${kind.max} characters`);
      return s;
    }
    case 'int':
      return value === '' ? '0' : String(readInt(value, field));
    case 'num': {
      if (value === '') return '0';
      const n = readNumber(value, field);
      if (strict && kind.decimals !== undefined && decimalsOf(String(n)) > kind.decimals)
        throw bad(`${field}: at most ${kind.decimals} decimals`);
      return String(n);
    }
    case 'bool':
      return readBool(value, field) ? 'true' : 'false';
    case 'bool01':
      return readBool(value, field) ? '1' : '0';
    case 'date':
      return readDate(value, field);
    case 'enum':
      return strict
        ? readEnum(value, kind.values, field)
        : (() => {
            try {
              return readEnum(value, kind.values, field);
            } catch {
              return readString(value, field);
            }
          })();
    case 'country':
      return strict
        ? readCountry(value, field)
        : (resolveCountry(readString(value, field)) ?? readString(value, field));
    case 'lines':
      return linesToWire(readLines(value, strict));
    case 'reference':
      return readReference(value, previous);
    case 'special':
      return value;
  }
}

/**
 * Apply input fields to a record. HTTP input (`strict`) ignores read-only, special and unknown
 * fields; test overrides (`!strict`) set anything, keeping unknown fields as extra raw fields.
 */
export function applyFields(entity: SandboxEntity, rec: Rec, input: Rec, strict: boolean): void {
  const table = FIELDS[entity];
  for (const [key, value] of Object.entries(input)) {
    const field = table[key];
    if (!field) {
      if (!strict) rec[key] = value;
      continue;
    }
    if (strict && (field.ro || field.kind.t === 'special')) continue;
    if (value === undefined) continue;
    rec[key] =
      field.kind.t === 'special' ? looseSpecial(entity, key, value) : toWire(field.kind, value, key, strict, rec[key]);
  }
}

/** Wire form of the state fields when a test sets them directly. */
function looseSpecial(entity: SandboxEntity, key: string, value: unknown): unknown {
  if (entity === 'products' && key === 'stock')
    return value === false || value === 'false' ? false : readNumber(value, key);
  if (entity === 'products' && (key === 'taxes' || key === 'priceintax')) return String(readNumber(value, key));
  if (key === 'approved') {
    if (value === false || value === 'false' || value === null) return [];
    if (typeof value === 'object' && !Array.isArray(value)) return approvalToWire(value as Rec, '');
    return value;
  }
  if (key === 'customstatus') return value === 'clear' ? '' : readString(value, key);
  return value;
}

export function approvalToWire(a: Rec, ip: string, today = ''): Rec {
  return {
    name: a.name === undefined ? '' : readString(a.name, 'approved: name'),
    date: a.date === undefined || a.date === '' ? today : readDate(a.date, 'approved: date'),
    ip: a.ip === undefined ? ip : readString(a.ip, 'approved: ip'),
    comments: a.comments === undefined ? '' : readString(a.comments, 'approved: comments'),
  };
}
