/**
 * Prints query results for people (an aligned text table) or for programs (CSV, JSON).
 *
 * The table is laid out by what a terminal shows, not by UTF-16 code units: a CJK character or an
 * emoji takes two columns, a combining accent none (string-width knows the Unicode tables), and a
 * cell is cut between grapheme clusters (Intl.Segmenter), never inside a character.
 *
 * string-width and the segmenter are loaded when a table first holds text other than printable
 * ASCII: building their Unicode tables takes about 25 ms, which every command paid at its start
 * (most print only ASCII, and `sync` runs by the thousand in a fleet).
 */
export const OUTPUT_FORMATS = ['table', 'csv', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

type Row = Record<string, unknown>;

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function jsonValue(value: unknown): unknown {
  // A bigint past 2^53 would lose digits as a JSON number: it is written as a string.
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
  return value;
}

function csvCell(value: unknown): string {
  const text = cellText(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Renders rows; `columns` gives the order (and the header when there are no rows). In a table,
 * cells are cut at 60 columns, except those of the `uncut` columns (a last column of sentences,
 * such as the problems of `accounts list`, which loses its point when cut).
 */
export async function formatRows(
  rows: Row[],
  format: OutputFormat,
  columns: string[] = rows[0] ? Object.keys(rows[0]) : [],
  uncut: readonly string[] = [],
): Promise<string> {
  if (format === 'json') {
    return `${JSON.stringify(
      rows.map((row) => Object.fromEntries(columns.map((c) => [c, jsonValue(row[c])]))),
      null,
      2,
    )}\n`;
  }
  if (format === 'csv') {
    const lines = [columns.map(csvCell).join(','), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(','))];
    return `${lines.join('\n')}\n`;
  }
  if (columns.length === 0) return `(${rows.length} ${rows.length === 1 ? 'row' : 'rows'}, no columns)\n`;
  const texts = rows.map((row) => columns.map((c) => cellText(row[c]).replace(/\s+/g, ' ')));
  const width = await widthOf(columns, texts);
  // Long cells (notes, raw json) are cut so a row stays on one line of a terminal.
  const cells = texts.map((line) => line.map((text, i) => (uncut.includes(columns[i]!) ? text : cut(text, 60, width))));
  // A loop, not Math.max(...cells): spreading a few hundred thousand rows overflows the stack.
  const widths = columns.map((c, i) => cells.reduce((widest, line) => Math.max(widest, width(line[i]!)), width(c)));
  const numeric = columns.map(
    (c) => rows.length > 0 && rows.every((row) => row[c] === null || row[c] === undefined || isNumberLike(row[c])),
  );
  const render = (line: string[]) =>
    line
      .map((text, i) => {
        const pad = ' '.repeat(Math.max(0, widths[i]! - width(text)));
        return numeric[i] ? pad + text : text + pad;
      })
      .join('  ')
      .trimEnd();
  const out = [render(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(render)];
  out.push(`(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`);
  return `${out.join('\n')}\n`;
}

function isNumberLike(value: unknown): boolean {
  return (
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value))
  );
}

/** How many terminal columns a text takes. */
type Width = (text: string) => number;

/** Printable ASCII: one column per character. */
const PLAIN = /^[\x20-\x7e]*$/;
const plainWidth: Width = (text) => text.length;
let unicodeWidth: Promise<Width> | undefined;
let graphemes: Intl.Segmenter | undefined;

/** The width function for a table's texts: string-width (loaded on first need) unless all are plain. */
async function widthOf(columns: readonly string[], texts: readonly string[][]): Promise<Width> {
  const plain = columns.every((c) => PLAIN.test(c)) && texts.every((line) => line.every((text) => PLAIN.test(text)));
  if (plain) return plainWidth;
  unicodeWidth ??= import('string-width').then((loaded) => loaded.default);
  return unicodeWidth;
}

/** Cuts text to at most `max` terminal columns, between characters, marking the cut with `…`. */
export async function truncate(text: string, max: number): Promise<string> {
  return cut(text, max, await widthOf([], [[text]]));
}

function cut(text: string, max: number, width: Width): string {
  if (text.length <= max && width(text) <= max) return text;
  if (width === plainWidth) return `${text.slice(0, max - 1)}…`;
  let out = '';
  let taken = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of graphemes.segment(text)) {
    const w = width(segment);
    if (taken + w > max - 1) return `${out}…`;
    out += segment;
    taken += w;
  }
  return out;
}

/** `1 request`, `2 requests`: a count with its noun in the right number. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${grouped(count)} ${count === 1 ? noun : nouns}`;
}

/**
 * `12,345`: a whole number with its thousands grouped as in English. Not toLocaleString: its first
 * call loads the locale's number formats, about 13 ms at the end of every `sync`.
 */
export function grouped(count: number): string {
  return Number.isSafeInteger(count) ? String(count).replace(/\B(?=(\d{3})+$)/g, ',') : count.toLocaleString('en');
}

/** "3 min ago", "in 2 h", "5 d ago": a time as a person reads it at a glance. */
export function relativeTime(at: Date, now = Date.now()): string {
  const seconds = Math.round((now - at.getTime()) / 1000);
  const size = Math.abs(seconds);
  const [amount, unit] =
    size < 90
      ? [size, 's']
      : size < 5400
        ? [Math.round(size / 60), 'min']
        : size < 172_800
          ? [Math.round(size / 3600), 'h']
          : [Math.round(size / 86_400), 'd'];
  return seconds >= 0 ? `${amount} ${unit} ago` : `in ${amount} ${unit}`;
}

/** Which columns of a table for people hold money (two decimals) and months (`2026-11`). */
export interface Readable {
  readonly money: (column: string) => boolean;
  readonly month: (column: string) => boolean;
}

/**
 * Rows as a person reads them in a table: money with two decimals, a month (its first day) as
 * `2026-11`, a time as `2026-11-03 14:05:09 UTC`. `--raw` skips this, and CSV and JSON never
 * have it: programs get the values exactly as stored.
 */
export function readableRows(rows: readonly Row[], columns: readonly string[], readable: Readable): Row[] {
  const money = columns.filter(readable.money);
  const months = columns.filter(readable.month);
  return rows.map((row) => {
    const out: Row = { ...row };
    for (const [column, value] of Object.entries(row)) if (value instanceof Date) out[column] = timeText(value);
    for (const column of money) {
      const value = row[column];
      if (typeof value === 'string' || typeof value === 'number') out[column] = twoDecimals(value);
    }
    for (const column of months) {
      const value = row[column];
      if (typeof value === 'string' && /^\d{4}-\d{2}-01$/.test(value)) out[column] = value.slice(0, 7);
    }
    return out;
  });
}

/** `2026-11-03 14:05:09 UTC`: a time to the second, without the ISO form's `T` and milliseconds. */
export function timeText(at: Date): string {
  return Number.isNaN(at.getTime()) ? String(at) : `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * An amount with exactly two decimals, rounded half away from zero on its decimal digits (no
 * binary floating point: `1.005` is `1.01`); anything not a plain decimal is returned as it is.
 */
export function twoDecimals(value: string | number): string {
  const text = String(value);
  const parts = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!parts) return text;
  const [, sign, whole, fraction = ''] = parts;
  let cents = BigInt(whole! + `${fraction}00`.slice(0, 2));
  if ((fraction[2] ?? '0') >= '5') cents += 1n;
  const digits = cents.toString().padStart(3, '0');
  const shown = `${digits.slice(0, -2)}.${digits.slice(-2)}`;
  return sign && cents !== 0n ? `-${shown}` : shown;
}
