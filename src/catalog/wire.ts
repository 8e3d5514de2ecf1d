/**
 * Lenient zod primitives for the service's PHP-flavoured JSON: the kinds of field the catalogue's
 * entities are made of (see define.ts).
 *
 * The service sends almost every scalar as a string, booleans in four forms, `""` for unset
 * dates and `[]` for empty maps. Each primitive here is a plain converter function wrapped in a
 * `z.transform`, so that a whole record is one flat `z.object` of cheap function calls (fast, and
 * a failure carries the field's path). Converters throw `WireValueError`; the wrapper turns that
 * into a zod issue, so one bad field fails its record and nothing else.
 */
import * as z from 'zod';

/** Thrown by converters; `path` is relative to the field (e.g. `['line2', 'price']` inside `lines`). */
export class WireValueError extends Error {
  constructor(
    message: string,
    readonly path: (string | number)[] = [],
  ) {
    super(message);
  }
}

/** Wrap a converter as a zod schema. A missing field reaches the converter as `undefined`. */
export function wireField<T>(convert: (value: unknown) => T): z.ZodType<T, unknown> {
  return z.transform((value: unknown, ctx) => {
    try {
      return convert(value);
    } catch (error) {
      if (!(error instanceof WireValueError)) throw error;
      ctx.issues.push({ code: 'custom', message: error.message, input: value, path: error.path });
      return z.NEVER;
    }
  }) as unknown as z.ZodType<T, unknown>;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}

// Plain decimal notation only: no hex, no "Infinity", no thousands separators.
const DECIMAL = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
const BLANK = /^\s*$/;

/**
 * The largest magnitude a money or quantity value may have: far beyond any invoice, and small
 * enough that reports summing it stay exact. A larger one (`"1e400"`) is a fault upstream.
 */
export const MAX_DECIMAL = 1e15;
/** The range of Postgres `integer`, the type of ids and whole numbers in the mirror. */
export const MIN_INTEGER = -(2 ** 31);
export const MAX_INTEGER = 2 ** 31 - 1;

/**
 * Number from a JSON number or a decimal string; `""`, null and missing → null. The mirror stores
 * the decimal text itself (exact: `"59.90"` stays 59.90); this checks it is a number it can store.
 */
export function toNumber(value: unknown): number | null {
  let n = Number.NaN;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') {
    if (DECIMAL.test(value)) n = Number(value);
    else if (BLANK.test(value)) return null;
  } else if (value === undefined || value === null) {
    return null;
  }
  if (Number.isNaN(n)) throw new WireValueError(`expected a number, got ${describe(value)}`);
  if (!(Math.abs(n) < MAX_DECIMAL))
    throw new WireValueError(`${describe(value)} is outside the range the mirror stores (±10^15)`);
  return n;
}

/** Integer (ids, days, counts): like `toNumber` but the value must be whole (legacy `"0"` → 0). */
export function toInteger(value: unknown): number | null {
  let n: number | null = Number.NaN;
  try {
    n = typeof value === 'string' && DECIMAL.test(value) ? Number(value) : toNumber(value);
  } catch {
    // reported below with the integer wording
  }
  if (Number.isNaN(n)) throw new WireValueError(`expected an integer, got ${describe(value)}`);
  if (n === null) return n;
  if (!Number.isInteger(n)) throw new WireValueError(`expected an integer, got ${describe(value)}`);
  if (n < MIN_INTEGER || n > MAX_INTEGER)
    throw new WireValueError(`${describe(value)} is outside the range of an integer column (up to ${MAX_INTEGER})`);
  return n;
}

/** The identifying field of a record: a non-negative integer, never missing. */
export function toKey(value: unknown): number {
  const n = toInteger(value);
  if (n === null || n < 0)
    throw new WireValueError(`expected an integer id, got ${value === undefined ? 'nothing' : describe(value)}`);
  return n;
}

/** Booleans arrive as true/false, "true"/"false", 1/0 and "1"/"0"; `""` and missing → null. */
export function toBoolean(value: unknown): boolean | null {
  switch (value) {
    case true:
    case 1:
    case 'true':
    case '1':
    case 'TRUE':
    case 'True':
      return true;
    case false:
    case 0:
    case 'false':
    case '0':
    case 'FALSE':
    case 'False':
      return false;
    case undefined:
    case null:
    case '':
      return null;
  }
  throw new WireValueError(`expected a boolean, got ${describe(value)}`);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:$|[ T])/;

/** `YYYY-MM-DD` (a trailing time is dropped); `""`, the PHP zero date, null and missing → null. */
export function toDate(value: unknown): string | null {
  if (typeof value === 'string') {
    const m = DATE.exec(value);
    if (m) {
      if (m[1] === '0000') return null; // PHP's "0000-00-00" means unset
      const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const date = new Date(0);
      date.setUTCFullYear(year, month - 1, day);
      // A day the calendar has: "2027-02-30" is not one, though it has the right shape.
      if (date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day)
        return value.length === 10 ? value : value.slice(0, 10);
      throw new WireValueError(`${describe(value)} is not a day of the calendar`);
    } else if (BLANK.test(value)) {
      return null;
    }
  } else if (value === undefined || value === null || value === false) {
    return null;
  }
  throw new WireValueError(`expected a date (YYYY-MM-DD), got ${describe(value)}`);
}

/** Text as received; a number is turned into its text (PHP sometimes sends them bare); missing → null. */
export function toText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return String(value);
  throw new WireValueError(`expected text, got ${describe(value)}`);
}

/** Enumerations compare case-insensitively; stored lowercased (`""` stays `""`). */
export function toLowerEnum(value: unknown): string | null {
  const text = toText(value);
  return text === null ? null : text.toLowerCase();
}

/** `collecttype` (OOFF, FRST, RCUR) is conventionally upper case. */
export function toUpperEnum(value: unknown): string | null {
  const text = toText(value);
  return text === null ? null : text.toUpperCase();
}

/** Country id: `"146"` → 146, `""` → null. */
export const toCountry = toInteger;

/** PHP encodes an empty map as `[]` and a filled one as an object keyed by name (`line1`, …) or index. */
export function mapValues(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null) return Object.values(value);
  return null;
}

function mapKeys(value: unknown): string[] {
  return Array.isArray(value) ? value.map((_, i) => String(i)) : Object.keys(value as object);
}

export interface Reference {
  line1: string;
  line2: string;
  line3: string;
}

/** Reference object (three lines); `[]`/`""` → three empty lines; missing → null. */
export function toReference(value: unknown): Reference | null {
  if (value === undefined || value === null) return null;
  if (value === '' || (Array.isArray(value) && value.length === 0)) return { line1: '', line2: '', line3: '' };
  if (typeof value === 'object' && !Array.isArray(value)) {
    const r = value as Record<string, unknown>;
    return { line1: refLine(r.line1, 'line1'), line2: refLine(r.line2, 'line2'), line3: refLine(r.line3, 'line3') };
  }
  throw new WireValueError(`expected a reference object, got ${describe(value)}`);
}

function refLine(value: unknown, key: string): string {
  try {
    return toText(value) ?? '';
  } catch (error) {
    throw new WireValueError((error as Error).message, [key]);
  }
}

/** A line as toLines reads it: its fields are the catalogue's line columns (document-lines.ts checks so). */
export interface DocumentLine {
  amount: number | null;
  amount_desc: string | null;
  description: string | null;
  tax_rate: number | null;
  price: number | null;
  discount_pct: number | null;
  linetotal: number | null;
}

/** Lines from an array, a keyed object (`line1`, `line2`, … in key order) or `[]`; missing → []. */
export function toLines(value: unknown): DocumentLine[] {
  if (value === undefined || value === null || value === '' || value === false) return [];
  const items = mapValues(value);
  if (items === null) throw new WireValueError(`expected lines (an array or keyed object), got ${describe(value)}`);
  const out: DocumentLine[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new WireValueError(`expected a line object, got ${describe(item)}`, [mapKeys(value)[i]!]);
    }
    // Field by field rather than a loop over LINE_COLUMNS: this runs for every line of every
    // document, and the loop measured 15-40 % slower per page (bench: readRecords of a page).
    const l = item as Record<string, unknown>;
    let field = 'amount';
    try {
      const amount = toNumber(l.amount);
      field = 'amount_desc';
      const amount_desc = toText(l.amount_desc);
      field = 'description';
      const description = toText(l.description);
      field = 'tax_rate';
      const tax_rate = toNumber(l.tax_rate);
      field = 'price';
      const price = toNumber(l.price);
      field = 'discount_pct';
      const discount_pct = toNumber(l.discount_pct);
      field = 'linetotal';
      const linetotal = toNumber(l.linetotal);
      out[i] = { amount, amount_desc, description, tax_rate, price, discount_pct, linetotal };
    } catch (error) {
      if (!(error instanceof WireValueError)) throw error;
      throw new WireValueError(error.message, [mapKeys(value)[i]!, field]);
    }
  }
  return out;
}

/** Product stock: a number, or `false` when stock is not used (→ null). */
export function toStock(value: unknown): number | null {
  if (value === false || value === 'false' || value === '') return null;
  return toNumber(value);
}

export interface Approval {
  name: string;
  date: string | null;
  ip: string;
  comments: string;
}

/** Quotation approval: an object, or `[]`/`""`/`false`/`"false"`/null when not approved (→ null). */
export function toApproval(value: unknown): Approval | null {
  if (
    value === undefined ||
    value === null ||
    value === '' ||
    value === false ||
    value === 'false' ||
    value === '0' ||
    value === 0
  )
    return null;
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    throw new WireValueError('expected an approval object, got a non-empty array');
  }
  if (typeof value !== 'object') throw new WireValueError(`expected an approval object, got ${describe(value)}`);
  const a = value as Record<string, unknown>;
  let key = 'date';
  try {
    const date = toDate(a.date);
    key = 'name';
    const name = toText(a.name) ?? '';
    key = 'ip';
    const ip = toText(a.ip) ?? '';
    key = 'comments';
    const comments = toText(a.comments) ?? '';
    return { name, date, ip, comments };
  } catch (error) {
    if (!(error instanceof WireValueError)) throw error;
    throw new WireValueError(error.message, [key]);
  }
}

/** A nested map kept as it came (`taxes`, `history`: an object, or `[]` when empty); missing → null. */
export function toJson(value: unknown): unknown {
  return value === undefined ? null : value;
}

/** An integer, or `false` (and `"false"`, `""`) for none (→ null). */
export function toIntegerOrFalse(value: unknown): number | null {
  if (value === false || value === 'false' || value === '') return null;
  return toInteger(value);
}

// The zod schemas every entity schema is built from.
export const w = {
  key: wireField(toKey),
  int: wireField(toInteger),
  num: wireField(toNumber),
  bool: wireField(toBoolean),
  date: wireField(toDate),
  text: wireField(toText),
  lower: wireField(toLowerEnum),
  upper: wireField(toUpperEnum),
  country: wireField(toCountry),
  reference: wireField(toReference),
  lines: wireField(toLines),
  stock: wireField(toStock),
  approval: wireField(toApproval),
  json: wireField(toJson),
  intOrFalse: wireField(toIntegerOrFalse),
  /** Not read from the wire: the entity's derivedKey sets it after parsing. */
  derived: wireField((): number | null => null),
};
