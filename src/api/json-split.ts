/**
 * Splits the text of a JSON array into the texts of its elements, without parsing them.
 *
 * The sync engine keeps each record's exact JSON text: it is the record "as received" (stored
 * in `raw`), and its hash tells an unchanged record from a changed one without serializing the
 * parsed object again (JSON.stringify costs as much as parsing did). Strings are skipped with
 * indexOf, so the scan visits little more than the punctuation between fields.
 *
 * Returns null when the text is not an array of objects and arrays (the caller then falls back
 * to plain parsing); never throws.
 */
export function splitJsonArray(text: string): string[] | null {
  const n = text.length;
  let i = 0;
  while (i < n && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 91 /* [ */) return null;
  i++;
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      if (depth === 0) return null; // a bare string element: not a list of records
      const end = endOfString(text, i);
      if (end < 0) return null;
      i = end + 1;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (depth === 0) start = i;
      depth++;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      if (depth === 0) {
        // The closing bracket of the outer array: only white space may follow.
        if (c !== 93) return null;
        for (let j = i + 1; j < n; j++) if (!isSpace(text.charCodeAt(j))) return null;
        return out;
      }
      depth--;
      if (depth === 0) {
        out.push(text.slice(start, i + 1));
        start = -1;
      }
    } else if (depth === 0 && c !== 44 /* , */ && !isSpace(c)) {
      return null; // a bare number, true, false or null element
    }
    i++;
  }
  return null;
}

/** Index of the quote that closes the string opening at `open`, or -1. */
function endOfString(text: string, open: number): number {
  let j = open + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j < 0) return -1;
    let backslashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === 92 /* \ */; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
    j++;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** The exact text of each record parsed by `parseKeepingTexts`, keyed by the parsed object. */
const recordTexts = new WeakMap<object, string>();

/**
 * JSON.parse for a list answer that also remembers each element's own text (see `rawTextOf`).
 * Parsing the elements one by one costs about what parsing the whole array does.
 */
export function parseKeepingTexts(text: string): unknown {
  const parts = splitJsonArray(text);
  if (parts === null) return JSON.parse(text);
  return parts.map((part) => {
    const item: unknown = JSON.parse(part);
    if (typeof item === 'object' && item !== null) recordTexts.set(item, part);
    return item;
  });
}

/** The text a record arrived as, when its list was parsed by `parseKeepingTexts`. */
export function rawTextOf(raw: object): string | undefined {
  return recordTexts.get(raw);
}
