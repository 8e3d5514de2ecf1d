/**
 * How a page of staged rows travels to Postgres: one text, records separated by U+001E (record
 * separator), each record's fields by U+001F (unit separator). Neither can occur in JSON text
 * (control characters must be escaped inside strings and are not white space), so the raw record
 * needs no escaping, and Postgres parses each record into jsonb on its own, which is about a third
 * cheaper than parsing one jsonb document of the whole page. The fields of a record, in this order:
 *   key, fingerprint of the raw text (textFingerprint), text overrides (JSON or empty), lines (JSON or empty), raw JSON
 *   text, then the values of `typedColumns` in their SQL text form (empty for null).
 *
 * This module is the format's only reader and writer: it encodes a page, splits it, names its
 * first record, and gives the SQL that decodes it (see merge.ts).
 */
import type { Column } from '../catalog/index.js';
import type { EntityDefinition, StagedRow } from './entities.js';

const RECORD_SEPARATOR = '\x1e';
const FIELD_SEPARATOR = '\x1f';
/** Positions of a record's fields (0-based here; SQL arrays count from 1). */
const KEY_FIELD = 0;
const HASH_FIELD = 1;
const OVERRIDES_FIELD = 2;
const LINES_FIELD = 3;
const RAW_FIELD = 4;
const FIRST_TYPED_FIELD = 5;

/** A page as the merge statement reads it: its text, how many records it holds, and their keys. */
export interface PageText {
  text: string;
  size: number;
  keys: readonly number[];
}

/** A typed value in its SQL text form; null is the empty text, which no typed column accepts. */
function typedText(value: unknown, column: Column): string {
  if (value === null || value === undefined) return '';
  if (column.type === 'jsonb') return JSON.stringify(value);
  if (column.type === 'numeric') return '='; // cast from the raw record's text (see columnExpression in merge.ts)
  // Numbers, booleans and checked dates never hold a separator; a string that did would shift fields.
  if (typeof value === 'string' && (value.includes(FIELD_SEPARATOR) || value.includes(RECORD_SEPARATOR))) {
    throw new Error(`${column.name}: a control character in a ${column.type} value`);
  }
  return String(value);
}

function recordText(typedColumns: readonly Column[], row: StagedRow): string {
  let record = `${row.key}${FIELD_SEPARATOR}${row.hash}${FIELD_SEPARATOR}${row.overrides ? JSON.stringify(row.overrides) : ''}${FIELD_SEPARATOR}`;
  record += `${row.lines ? JSON.stringify(row.lines) : ''}${FIELD_SEPARATOR}${row.rawText}`;
  for (let i = 0; i < typedColumns.length; i++) record += FIELD_SEPARATOR + typedText(row.typed[i], typedColumns[i]!);
  return record;
}

/** The page text of staged rows, one key each (a key twice in one statement would make the upsert fail). */
export function encodePage(definition: EntityDefinition, rows: readonly StagedRow[]): PageText {
  const typedColumns = definition.typedColumns;
  return {
    text: rows.map((row) => recordText(typedColumns, row)).join(RECORD_SEPARATOR),
    size: rows.length,
    keys: rows.map((row) => row.key),
  };
}

/** The page in two halves, to find the record Postgres refuses (see PageWriter). */
export function splitPage(page: PageText): [PageText, PageText] {
  const records = page.text.split(RECORD_SEPARATOR);
  const half = Math.ceil(records.length / 2);
  const part = (texts: string[], keys: readonly number[]): PageText => ({
    text: texts.join(RECORD_SEPARATOR),
    size: texts.length,
    keys,
  });
  return [part(records.slice(0, half), page.keys.slice(0, half)), part(records.slice(half), page.keys.slice(half))];
}

/** Two pages as one (written by one statement); their keys must differ. */
export function joinPages(first: PageText, second: PageText): PageText {
  if (first.size === 0) return second;
  if (second.size === 0) return first;
  return {
    text: first.text + RECORD_SEPARATOR + second.text,
    size: first.size + second.size,
    keys: [...first.keys, ...second.keys],
  };
}

/** The key and raw text of a page's first record. */
export function firstRecordOf(page: PageText): { key: string; rawText: string } {
  const end = page.text.indexOf(RECORD_SEPARATOR);
  const fields = (end < 0 ? page.text : page.text.slice(0, end)).split(FIELD_SEPARATOR);
  return { key: fields[KEY_FIELD] ?? '', rawText: fields[RAW_FIELD] ?? '' };
}

/**
 * The SQL that reads a page text (the text parameter `parameter`) as rows of `k` (the key), `h`
 * (the hash), `o` (overrides), `l` (lines), `r` (the raw record) and `fields` (every field, for
 * typedFieldSql).
 */
export function decodePageSql(parameter: string): string {
  const field = (index: number) => `f[${index + 1}]`;
  return `select ${field(KEY_FIELD)}::integer as k, ${field(HASH_FIELD)} as h, nullif(${field(OVERRIDES_FIELD)}, '')::jsonb as o,
      nullif(${field(LINES_FIELD)}, '')::jsonb as l, ${field(RAW_FIELD)}::jsonb as r, f as fields
    from string_to_table(cast(${parameter} as text), chr(${RECORD_SEPARATOR.charCodeAt(0)})) as record, string_to_array(record, chr(${FIELD_SEPARATOR.charCodeAt(0)})) as f`;
}

/** The SQL text of a typed column's field in a row of decodePageSql (alias `alias`); empty for null. */
export function typedFieldSql(definition: EntityDefinition, column: Column, alias: string): string {
  return `${alias}.fields[${FIRST_TYPED_FIELD + definition.typedColumns.indexOf(column) + 1}]`;
}
