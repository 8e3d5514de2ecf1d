import { heldTextEnd, type HeldFingerprints } from './fingerprint.js';

/**
 * Splits the bytes of a JSON array (UTF-8) into its elements' byte ranges, without parsing them.
 *
 * The sync engine keeps each record's exact JSON text: it is the record "as received" (stored
 * in `raw`), and its hash tells an unchanged record from a changed one without serializing the
 * parsed object again (JSON.stringify costs as much as parsing did). The hash is taken of the
 * element's bytes as they came, so an unchanged element is never decoded. JSON's punctuation is
 * ASCII, which no byte of a multi-byte UTF-8 character can be, so the bytes can be scanned as they
 * are.
 *
 * With `keyField`, the same scan reads each element's key where its text shows it plainly: the
 * top-level field of that name (ASCII), an integer from 0 to `max` in its shortest form, bare or
 * quoted (`5` or `"5"`: the service sends ids as strings), the field named without escapes, its
 * last occurrence (as JSON.parse would have it). The key is null where only parsing can tell
 * (another string, a fraction, an escaped field name, no such field, an element that is not an
 * object). One pass over the bytes instead of two.
 *
 * With `held` too, an object whose first field is its plain key, and whose bytes from there are
 * exactly the text held for that key (the same length and SHA-256: see textFingerprint), is taken
 * as that text without scanning it. A held text is one complete JSON object (every stored text was
 * parsed when it was stored), so its end is where a scan would have found it, and its key is the
 * held one (the key a text shows is a function of the text). Its fingerprint comes back in
 * `fingerprints`. On a sync where little changed, this replaces the scan of almost every byte by
 * the hash that is taken of them anyway: 1.0 → 0.2 ms per page of 500 records, hash aside.
 *
 * Returns each element's start and end (exclusive), in pairs, and the keys; or null when the bytes
 * are not an array of objects and arrays (the caller then falls back to plain parsing); never
 * throws.
 */
export function splitJsonArray(
  bytes: Buffer,
  keyField?: { name: string; max: number },
  held?: HeldFingerprints,
): { bounds: number[]; keys: (number | null)[]; fingerprints: (string | undefined)[] } | null {
  const n = bytes.length;
  let i = 0;
  while (i < n && isSpace(bytes[i]!)) i++;
  if (bytes[i] !== 91 /* [ */) return null;
  i++;
  const bounds: number[] = [];
  const keys: (number | null)[] = [];
  const fingerprints: (string | undefined)[] = [];
  let depth = 0;
  let start = -1;
  // The element's key so far, whether a top-level field name comes next, and whether the key is
  // beyond reading here (not an object, or a top-level name spelled with an escape).
  let key: number | null = null;
  let expectName = false;
  let unreadable = false;
  while (i < n) {
    const c = bytes[i]!;
    if (c === 34 /* " */) {
      if (depth === 0) return null; // a bare string element: not a list of records
      const end = closingQuote(bytes, i, n);
      if (end < 0) return null;
      if (depth === 1 && expectName && keyField && !unreadable) {
        expectName = false;
        if (hasBackslash(bytes, i + 1, end)) unreadable = true;
        else if (isName(bytes, i + 1, end, keyField.name)) key = integerAfterColon(bytes, end + 1, keyField.max);
      }
      i = end + 1;
      continue;
    }
    const taken = c === 123 /* { */ && depth === 0 && held && keyField ? heldAt(bytes, i, keyField, held) : null;
    if (taken) {
      fingerprints[keys.length] = taken.fingerprint;
      bounds.push(i, taken.end);
      keys.push(taken.key);
      i = taken.end;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (depth === 0) {
        start = i;
        key = null;
        unreadable = c !== 123;
      }
      depth++;
      expectName = depth === 1;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      if (depth === 0) {
        // The closing bracket of the outer array: only white space may follow.
        if (c !== 93) return null;
        for (let j = i + 1; j < n; j++) if (!isSpace(bytes[j]!)) return null;
        return { bounds, keys, fingerprints };
      }
      depth--;
      if (depth === 0) {
        bounds.push(start, i + 1);
        keys.push(unreadable ? null : key);
        start = -1;
      }
    } else if (c === 44 /* , */ && depth === 1) {
      expectName = true;
    } else if (depth === 0 && c !== 44 /* , */ && !isSpace(c)) {
      return null; // a bare number, true, false or null element
    }
    i++;
  }
  return null;
}

/**
 * Index of the quote that closes the string opening at `open`, or -1: found byte by byte, as a
 * record's strings are short and a call of indexOf costs more than the few bytes it would skip.
 */
function closingQuote(bytes: Buffer, open: number, n: number): number {
  let end = open + 1;
  for (;;) {
    if (end >= n) return -1;
    const b = bytes[end]!;
    if (b === 34 /* " */) return end;
    end += b === 92 /* \ */ ? 2 : 1;
  }
}

/** Whether a backslash (an escape) is among `bytes[from..to)`. */
function hasBackslash(bytes: Buffer, from: number, to: number): boolean {
  for (let j = from; j < to; j++) if (bytes[j] === 92 /* \ */) return true;
  return false;
}

/** The held text the object at `open` is (see splitJsonArray), with its key and end; else null. */
function heldAt(
  bytes: Buffer,
  open: number,
  keyField: { name: string; max: number },
  held: HeldFingerprints,
): { key: number; end: number; fingerprint: string } | null {
  const key = leadingKey(bytes, open, keyField);
  const fingerprint = key === null ? undefined : held(key);
  const end = fingerprint ? heldTextEnd(fingerprint, bytes, open) : -1;
  return end > 0 ? { key: key!, end, fingerprint: fingerprint! } : null;
}

/** Index of the quote that closes the string opening at `open`, or -1. */
function endOfString(bytes: Buffer, open: number): number {
  let j = open + 1;
  for (;;) {
    j = bytes.indexOf(34 /* " */, j);
    if (j < 0) return -1;
    let backslashes = 0;
    for (let k = j - 1; bytes[k] === 92 /* \ */; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
    j++;
  }
}

function isSpace(c: number | undefined): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * A value Postgres cannot store as it came, changed into one it can. jsonb and text refuse the NUL
 * character and UTF-16 surrogates without their other half; PHP's json_encode writes both as
 * escapes (`\u0000`, `\ud800`) that JSON.parse accepts.
 */
export interface RepairedValue {
  /** Where in the record, e.g. `company` or `lines.line2.description`. */
  path: string;
  /** The value as received, with the character shown as its escape (shortened). */
  value: string;
  reason: string;
}

/** One element of a list answer: its parsed value and its exact JSON text (after any repair). */
export interface WireItem {
  value: unknown;
  text: string;
  /** The text's bytes as they came, when it was not repaired (hashed as they are; see splitJsonArray). */
  bytes?: Buffer;
  /** The values changed so that Postgres can store them (null: none). */
  repaired: RepairedValue[] | null;
}

/** Stored for a NUL character: U+2400 SYMBOL FOR NULL, visible and searchable. */
export const NUL_REPLACEMENT = '\u2400';
/** Stored for half a surrogate pair: U+FFFD REPLACEMENT CHARACTER. */
export const SURROGATE_REPLACEMENT = '\ufffd';

/** Cheap test for a text that may hold an escape Postgres refuses (`\u0000`, `\uD8xx`–`\uDFxx`). */
const MAYBE_UNSTORABLE = /\\u(?:0000|[dD][89a-fA-F])/;

/**
 * The JSON text with every escape Postgres refuses replaced (see RepairedValue), or null when it
 * has none. Escaped backslashes (`\\u0000` is a backslash and "u0000") are left alone.
 */
export function repairJsonText(text: string): string | null {
  if (!MAYBE_UNSTORABLE.test(text)) return null;
  let out = '';
  let copiedTo = 0;
  let i = text.indexOf('\\');
  while (i >= 0 && i < text.length - 1) {
    if (text[i + 1] !== 'u') {
      i = text.indexOf('\\', i + 2);
      continue;
    }
    const code = Number.parseInt(text.slice(i + 2, i + 6), 16);
    let replacement: string | null = null;
    let length = 6;
    if (code === 0) replacement = NUL_REPLACEMENT;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const low = text.slice(i + 6, i + 8) === '\\u' ? Number.parseInt(text.slice(i + 8, i + 12), 16) : Number.NaN;
      if (low >= 0xdc00 && low <= 0xdfff) length = 12;
      else replacement = SURROGATE_REPLACEMENT;
    } else if (code >= 0xdc00 && code <= 0xdfff) replacement = SURROGATE_REPLACEMENT;
    if (replacement !== null) {
      out += text.slice(copiedTo, i) + replacement;
      copiedTo = i + length;
    }
    i = text.indexOf('\\', i + length);
  }
  return copiedTo === 0 ? null : out + text.slice(copiedTo);
}

const UNSTORABLE_CHAR = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Where a parsed value holds strings Postgres refuses, with what they were. */
function findUnstorable(value: unknown, path: string, out: RepairedValue[]): void {
  if (typeof value === 'string') {
    if (!UNSTORABLE_CHAR.test(value)) return;
    const shown = JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
    const reason = value.includes('\0')
      ? 'a NUL character (\\u0000), which Postgres cannot store; stored as ␀ (U+2400)'
      : 'half of a UTF-16 surrogate pair, which Postgres cannot store; stored as � (U+FFFD)';
    out.push({ path: path || '(record)', value: shown, reason });
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) findUnstorable(item, path ? `${path}.${key}` : key, out);
  }
}

/** Where a value holds strings Postgres cannot store (NUL, half a surrogate pair), and why. */
export function unstorableValues(value: unknown): RepairedValue[] {
  const found: RepairedValue[] = [];
  findUnstorable(value, '', found);
  return found;
}

/** A parsed element and its text, repaired where Postgres could not store it. */
export function wireItem(value: unknown, text = JSON.stringify(value) ?? 'null'): WireItem {
  const repairedText = repairJsonText(text);
  if (repairedText === null) return { value, text, repaired: null };
  const repaired: RepairedValue[] = [];
  findUnstorable(value, '', repaired);
  return { value: JSON.parse(repairedText) as unknown, text: repairedText, repaired };
}

/**
 * A list answer split into its elements (see `readListBytes`). Each element is decoded and parsed
 * when first asked for, so that a pager can send the next request first and parse while it
 * travels, and a sync can leave an element it already holds undecoded; an element that is not
 * JSON is reported by `item()`.
 */
export class WireList {
  private readonly parsed: (WireItem | undefined)[] = [];

  /**
   * `bounds`: each element's start and end in `body`, in pairs; `keys`: their plain keys;
   * `fingerprints`: those of the elements taken as held texts (see splitJsonArray).
   */
  constructor(
    private readonly body: Buffer,
    private readonly bounds: readonly number[],
    private readonly keys: readonly (number | null)[],
    private readonly fingerprints: readonly (string | undefined)[] = [],
  ) {}

  /** Elements in the answer. */
  get length(): number {
    return this.bounds.length / 2;
  }

  /** The first element's text, as received (a service that repeats a page repeats it too). */
  get firstText(): string | undefined {
    return this.length > 0 ? this.body.toString('utf8', this.bounds[0], this.bounds[1]) : undefined;
  }

  /** Element `index`'s bytes as they came. */
  bytes(index: number): Buffer {
    return this.body.subarray(this.bounds[2 * index], this.bounds[2 * index + 1]);
  }

  /** Element `index`'s key where its text shows it plainly, else null (see splitJsonArray). */
  plainKey(index: number): number | null {
    return this.keys[index] ?? null;
  }

  /** Element `index`'s fingerprint when the split took it as a held text, else undefined. */
  fingerprint(index: number): string | undefined {
    return this.fingerprints[index];
  }

  /** Whether element `index` was parsed already. */
  isParsed(index: number): boolean {
    return this.parsed[index] !== undefined;
  }

  /** Element `index`, decoded and parsed (once); throws SyntaxError when it is not JSON. */
  item(index: number): WireItem {
    let item = this.parsed[index];
    if (item === undefined) {
      const bytes = this.bytes(index);
      const text = bytes.toString('utf8');
      item = MAYBE_UNSTORABLE.test(text)
        ? wireItem(JSON.parse(text), text)
        : { value: JSON.parse(text), text, bytes, repaired: null };
      this.parsed[index] = item;
    }
    return item;
  }
}

/** Whether bytes start to end spell `name` (ASCII). */
function isName(bytes: Buffer, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false;
  for (let k = 0; k < name.length; k++) if (bytes[start + k] !== name.charCodeAt(k)) return false;
  return true;
}

/** The key of the object opening at `open` when its first field is the key field, plainly (see splitJsonArray); else null. */
function leadingKey(bytes: Buffer, open: number, keyField: { name: string; max: number }): number | null {
  let i = open + 1;
  while (isSpace(bytes[i])) i++;
  if (bytes[i] !== 34 /* " */) return null;
  const end = i + 1 + keyField.name.length;
  if (bytes[end] !== 34 /* " */ || !isName(bytes, i + 1, end, keyField.name)) return null;
  return integerAfterColon(bytes, end + 1, keyField.max);
}

/** The integer (0 to max, bare or quoted) after the colon at or after `from`, else null. */
function integerAfterColon(bytes: Buffer, from: number, max: number): number | null {
  let i = from;
  while (isSpace(bytes[i])) i++;
  if (bytes[i] !== 58 /* : */) return null;
  i++;
  while (isSpace(bytes[i])) i++;
  const quoted = bytes[i] === 34; /* " */
  if (quoted) i++;
  const start = i;
  let value = 0;
  while (bytes[i]! >= 48 && bytes[i]! <= 57) value = value * 10 + bytes[i++]! - 48;
  const digits = i - start;
  // No leading zero (so that the text is the number's own), at most ten digits, then the end of the value.
  if (digits === 0 || digits > 10 || (digits > 1 && bytes[start] === 48)) return null;
  if (quoted && bytes[i++] !== 34) return null;
  while (isSpace(bytes[i])) i++;
  if (bytes[i] !== 44 /* , */ && bytes[i] !== 125 /* } */) return null;
  return value <= max ? value : null;
}

/** A UTF-8 byte order mark, which the service may put first. */
const BOM = [0xef, 0xbb, 0xbf];

/**
 * JSON.parse for a list answer that keeps each element's own bytes (the record "as received",
 * hashed to tell an unchanged record from a changed one without decoding it) and, with
 * `keyField`, the keys the text shows plainly. A plain array is only split here (WireList decodes
 * and parses its elements when asked); an answer that is not a plain array (a wrapped or keyed
 * list) is parsed whole and returned as it is. A byte order mark is dropped.
 */
export function readListBytes(
  body: Buffer,
  keyField?: { name: string; max: number },
  held?: HeldFingerprints,
): WireList | unknown {
  const bytes = BOM.every((b, i) => body[i] === b) ? body.subarray(3) : body;
  const split = splitJsonArray(bytes, keyField, held);
  return split === null
    ? JSON.parse(bytes.toString('utf8'))
    : new WireList(bytes, split.bounds, split.keys, split.fingerprints);
}

/**
 * The text of the one value of a single read's wrapper (`{"client": {...}}` → `{...}`), or null
 * when the answer is not such a wrapper. Lets a single read hash the same text as a list does.
 */
export function singleValueText(text: string): string | null {
  const bytes = Buffer.from(text, 'utf8');
  const blank = (from: number, to: number) => bytes.toString('utf8', from, to).trim() === '';
  const open = bytes.indexOf(123 /* { */);
  if (open < 0 || !blank(0, open)) return null;
  const keyStart = bytes.indexOf(34 /* " */, open);
  if (keyStart < 0 || !blank(open + 1, keyStart)) return null;
  const keyEnd = endOfString(bytes, keyStart);
  const colon = keyEnd < 0 ? -1 : bytes.indexOf(58 /* : */, keyEnd);
  const close = bytes.lastIndexOf(125 /* } */);
  if (colon < 0 || close <= colon || !blank(keyEnd + 1, colon) || !blank(close + 1, bytes.length)) return null;
  const value = bytes.toString('utf8', colon + 1, close).trim();
  if (!value.startsWith('{')) return null;
  try {
    JSON.parse(value);
  } catch {
    return null; // more than one key, or not an object
  }
  return value;
}
