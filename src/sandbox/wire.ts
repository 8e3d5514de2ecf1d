/**
 * The service's wire conventions (it is PHP): strings for scalars, "true"/"false" or "0"/"1" for
 * booleans, "" for unset dates, lines as {"line1": …} or [] — and the lenient readers for input.
 */

export type Rec = Record<string, unknown>;

/** An error answered as a plain-text body with this status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const bad = (message: string): HttpError => new HttpError(400, message);

export function round(n: number, decimals = 2): number {
  const f = 10 ** decimals;
  return Math.round((n + Math.sign(n) * Number.EPSILON) * f) / f;
}

/** Money and other floats as the service prints them: "62.92", "120", "145.2". */
export const money = (n: number): string => String(round(n, 2));

export function decimalsOf(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** A number from a JSON number or numeric string; a comma separator is refused, as the service does. */
export function readNumber(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const t = value.trim();
    if (/^-?\d+(\.\d+)?$/.test(t) || /^-?\.\d+$/.test(t)) return Number(t);
    if (/^-?\d+,\d+$/.test(t)) throw bad(`${field}: use a dot as decimal separator`);
  }
  throw bad(`${field}: must be a number`);
}

export function readInt(value: unknown, field: string): number {
  const n = readNumber(value, field);
  if (!Number.isInteger(n)) throw bad(`${field}: must be an integer`);
  return n;
}

/** Booleans in all four forms: true/false, "true"/"false", 1/0, "1"/"0". */
export function readBool(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === 'string') {
    const t = value.trim().toLowerCase();
    if (t === 'true' || t === '1') return true;
    if (t === 'false' || t === '0') return false;
  }
  throw bad(`${field}: must be a boolean (true/false or 1/0)`);
}

/** YYYY-MM-DD (an ISO 8601 date-time is cut to its date); "" stays unset. */
export function readDate(value: unknown, field: string): string {
  if (value === '' || value === null) return '';
  if (typeof value === 'string') {
    const m = /^(\d{4}-\d{2}-\d{2})(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(value.trim());
    if (
      m &&
      !Number.isNaN(new Date(`${m[1]}T00:00:00Z`).getTime()) &&
      new Date(`${m[1]}T00:00:00Z`).toISOString().startsWith(m[1]!)
    )
      return m[1]!;
  }
  throw bad(`${field}: must be a date (YYYY-MM-DD)`);
}

export function readString(value: unknown, field: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return '';
  throw bad(`${field}: must be a string`);
}

/** One line on the wire: numbers inside lines are real JSON numbers; a text line has only a description. */
export interface WireLine {
  amount?: number;
  amount_desc?: string;
  description: string;
  tax_rate?: number;
  price?: number;
  discount_pct?: number;
  linetotal?: number;
}

export const lineTotal = (amount: number, price: number, discountPct: number): number =>
  round(amount * price * (1 - discountPct / 100), 2);

const LINE_NUMBERS = ['amount', 'tax_rate', 'price', 'discount_pct'] as const;

/** Lines from an array, a keyed object ({line1: …} or form-style {0: …}) or []; keeps the key order. */
export function readLines(value: unknown, strict: boolean): WireLine[] {
  if (value === '' || value === null || value === undefined) return [];
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'object') items = Object.values(value as Rec);
  else throw bad('lines: must be an array or an object of lines');
  return items.map((raw, i) => {
    const where = `lines: line ${i + 1}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad(`${where}: must be an object`);
    const l = raw as Rec;
    const description = l.description === undefined ? '' : readString(l.description, `${where}: description`);
    const isText =
      LINE_NUMBERS.every((k) => l[k] === undefined || l[k] === '') &&
      (l.amount_desc === undefined || l.amount_desc === '');
    if (isText) return { description };
    const num = (k: (typeof LINE_NUMBERS)[number], dflt: number): number => {
      if (l[k] === undefined || l[k] === '') return dflt;
      try {
        return readNumber(l[k], `${where}: ${k}`);
      } catch (e) {
        if (strict) throw e;
        return dflt;
      }
    };
    if (strict && l.tax_country !== undefined) readBool(l.tax_country, `${where}: tax_country`);
    const amount = num('amount', 1);
    const price = num('price', 0);
    const discount_pct = num('discount_pct', 0);
    if (strict && decimalsOf(String(price)) > 3) throw bad(`${where}: price has more than 3 decimals`);
    return {
      amount,
      amount_desc: l.amount_desc === undefined ? '' : readString(l.amount_desc, `${where}: amount_desc`),
      description,
      tax_rate: num('tax_rate', 21),
      price,
      discount_pct,
      linetotal: lineTotal(amount, price, discount_pct),
    };
  });
}

/** Lines as the service sends them: {"line1": {...}, ...}, or [] when there are none. */
export function linesToWire(lines: WireLine[]): Rec | [] {
  if (lines.length === 0) return [];
  const out: Rec = {};
  for (const [i, l] of lines.entries()) out[`line${i + 1}`] = l;
  return out;
}

/** The totals the service keeps with a document (see the report in the closing note). */
export function documentTotals(
  lines: WireLine[],
  discounttype: unknown,
  discount: unknown,
): { totalintax: number; totaldiscount: number } {
  let gross = 0;
  for (const l of lines) if (l.linetotal !== undefined) gross += l.linetotal * (1 + (l.tax_rate ?? 0) / 100);
  const d = Number(discount) || 0;
  const totaldiscount = discounttype === 'amount' ? d : discounttype === 'percentage' ? (gross * d) / 100 : 0;
  return { totalintax: round(gross - totaldiscount, 2), totaldiscount: round(totaldiscount, 2) };
}

/** PHP-style form decoding: `a[b][c]=v` nests, `a[]=v` appends; every value stays a string. */
export function parseForm(body: string): Rec {
  const out: Rec = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const m = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(key);
    if (!m) {
      out[key] = value;
      continue;
    }
    const keys = [m[1]!, ...[...m[2]!.matchAll(/\[([^\]]*)\]/g)].map((x) => x[1]!)];
    let cur: Rec | unknown[] = out;
    for (let i = 0; i < keys.length; i++) {
      let k = keys[i]!;
      if (k === '') k = String(Array.isArray(cur) ? cur.length : Object.keys(cur).length);
      const holder = cur as Record<string, unknown>;
      if (i === keys.length - 1) holder[k] = value;
      else {
        if (typeof holder[k] !== 'object' || holder[k] === null) holder[k] = keys[i + 1] === '' ? [] : {};
        cur = holder[k] as Rec | unknown[];
      }
    }
  }
  return out;
}
