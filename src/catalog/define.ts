/**
 * How an entity of the catalogue is described: where its records come from, what identifies them,
 * and each field as data (how it reads from the wire, which column holds it, what it means).
 * Everything else about an entity (the zod wire schema, the mirror's columns and merge SQL, the
 * Kysely row type, the column comments in the database) is derived from this description.
 */
import type { ColumnType } from 'kysely';
import type * as z from 'zod';
import { w } from './wire.js';

export type SqlType = 'integer' | 'numeric' | 'text' | 'boolean' | 'date' | 'jsonb' | 'timestamptz';

/** A field stored in one column of its own name. */
export interface ScalarField<Wire extends z.ZodType = z.ZodType, Sql extends SqlType = SqlType> {
  readonly wire: Wire;
  readonly sql: Sql;
  /** What the column means, as docs/schema.md and the column's comment in the database say it. */
  readonly doc: string;
  /**
   * The column's header on a page: a few words, no markup. Unset where the meaning is itself a
   * few plain words (then it is the label, see labelOf).
   */
  readonly label?: string;
  /** Set on numeric columns holding an amount of money (shown with two decimals). */
  readonly money?: true;
}
/** The three reference lines `{line1, line2, line3}`: text columns `<field>_line1` … `<field>_line3`. */
export interface ReferenceField {
  readonly wire: typeof w.reference;
  readonly reference: readonly [string, string, string];
}
/** A document's lines: rows of `document_lines`, no column of the document's own table. */
export interface LinesField {
  readonly wire: typeof w.lines;
  readonly lines: true;
}
export type Field = ScalarField | ReferenceField | LinesField;

function scalar<Wire extends z.ZodType, Sql extends SqlType>(wire: Wire, sql: Sql) {
  return (doc: string, label?: string): ScalarField<Wire, Sql> => ({ wire, sql, doc, ...(label ? { label } : {}) });
}

/** A meaning short and plain enough to head its column: at most four words, no markup or asides. */
const PLAIN_MEANING = /^[a-z][a-z' -]*$/i;
const isShortMeaning = (doc: string) => PLAIN_MEANING.test(doc) && doc.split(' ').length <= 4;

/**
 * The header of a column: its own label, else its meaning when that is a few plain words, else
 * its name in words (`total_incl_tax` → "Total incl. tax"); never markup nor the raw name.
 */
export function labelOf(column: { name: string; doc: string; label?: string }): string {
  if (column.label) return column.label;
  if (isShortMeaning(column.doc)) return capitalise(column.doc);
  return nameInWords(column.name);
}

/** Whether a column's label is its own or its plain meaning (the catalogue test wants one for each). */
export function hasLabel(column: { doc: string; label?: string }): boolean {
  return column.label !== undefined || isShortMeaning(column.doc);
}

const WORDS: Readonly<Record<string, string>> = {
  incl: 'incl.',
  excl: 'excl.',
  vat: 'VAT',
  id: 'ID',
  nr: 'no.',
  pct: '%',
  pdf: 'PDF',
  iso2: 'ISO code',
  nl: 'NL',
  be: 'BE',
  eu: 'EU',
  ubl: 'UBL',
  xaf: 'XAF',
};

/** `total_incl_tax` → "Total incl. tax": a column name as words. */
export function nameInWords(name: string): string {
  return capitalise(
    name
      .split('_')
      .map((word) => WORDS[word] ?? word)
      .join(' '),
  );
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The field kinds, by how the service sends them (see api/wire.ts) and how the mirror stores them. */
export const field = {
  /** The record's identifying number. */
  key: scalar(w.key, 'integer'),
  int: scalar(w.int, 'integer'),
  country: scalar(w.country, 'integer'),
  /** Quantities and percentages: stored exactly, as the wire's decimal text. */
  num: scalar(w.num, 'numeric'),
  /** An amount of money: stored exactly like `num`, shown with two decimals. */
  money: (doc: string, label?: string): ScalarField<typeof w.num, 'numeric'> => ({
    wire: w.num,
    sql: 'numeric',
    doc,
    money: true,
    ...(label ? { label } : {}),
  }),
  /** A product's stock: a number, or `false` when stock is not tracked. */
  stock: scalar(w.stock, 'numeric'),
  bool: scalar(w.bool, 'boolean'),
  date: scalar(w.date, 'date'),
  text: scalar(w.text, 'text'),
  /** An enumeration, stored lower-case. */
  lower: scalar(w.lower, 'text'),
  /** An enumeration, stored upper-case. */
  upper: scalar(w.upper, 'text'),
  approval: scalar(w.approval, 'jsonb'),
  /** A nested map kept as the service sent it. */
  json: scalar(w.json, 'jsonb'),
  /** `printedOn`: where the first line appears, e.g. "the invoice". */
  reference: (printedOn: string): ReferenceField => ({
    wire: w.reference,
    reference: [`first reference line printed on ${printedOn}`, 'second reference line', 'third reference line'],
  }),
  lines: (): LinesField => ({ wire: w.lines, lines: true }),
  /** An integer or `false` (a category's ledger account): `false` is stored as NULL. */
  intOrFalse: scalar(w.intOrFalse, 'integer'),
  /**
   * The key of a record the service gives no id (a tax rate): not on the wire, made by the
   * entity's `derivedKey` from the record (see schemas.ts).
   */
  derivedKey: scalar(w.derived, 'integer'),
};

export interface EntitySpec<
  Name extends string = string,
  Fields extends Record<string, Field> = Record<string, Field>,
> {
  /** The mirror table, the name used on the command line, in settings and in `changes.entity`. */
  readonly name: Name;
  /** A record of it in a sentence: "saved invoice 12 is deleted". */
  readonly label: string;
  /** The service's path for its list, single reads and writes. */
  readonly endpoint: string;
  /** The field that identifies a record (an integer), the table's primary key. */
  readonly key: keyof Fields & string;
  /** Whether the service reads one record by key (`GET endpoint/{key}`), so jobs can refresh it. */
  readonly singleRead: boolean;
  /** Set for documents whose `lines` go to `document_lines`, under this `document_type`. */
  readonly documentType?: string;
  /** Set for entities pulled incrementally between full, reconciling pulls (see sync/incremental.ts). */
  readonly incremental?: IncrementalSpec;
  /** In the wire's order, which is also the table's column order. */
  readonly fields: Fields;
  /**
   * For records without an id of their own: the key made from the record as received (the key
   * field is then a `field.derivedKey`); null when the record cannot be keyed (it is skipped).
   */
  readonly derivedKey?: (raw: Record<string, unknown>) => number | null;
}

/**
 * How to pull an entity without reading all of it: the records sent since a date, plus those that
 * may still change, plus a single read of each record the mirror holds as still changing that
 * neither list had.
 */
export interface IncrementalSpec {
  /** The list parameter for records sent on or after a date (`YYYY-MM-DD`). */
  readonly sinceParameter: string;
  /** The date column that parameter filters on (read from the mirror to place the next `since`). */
  readonly sinceColumn: string;
  /** The list parameters that give the records that may still change. */
  readonly changingFilter: Readonly<Record<string, string>>;
  /** SQL condition on the mirror table: the records it holds as still changing. */
  readonly changingInMirror: string;
}

/** Keeps the literal types of a description, from which the record and row types are derived. */
export function defineEntity<const Spec extends EntitySpec>(spec: Spec & { key: keyof Spec['fields'] }): Spec {
  return spec;
}

/** One column of a mirror table, and where in the parsed record its value is. */
export interface Column {
  readonly name: string;
  readonly type: SqlType;
  readonly doc: string;
  /** Its header on a page (see labelOf); unset: its meaning, when that is a few plain words. */
  readonly label?: string;
  /** The field of the parsed record it comes from, when that is not the column's own name. */
  readonly field?: string;
  /** A key inside that field, e.g. `line1` of `reference`. */
  readonly subfield?: string;
  /** Set on numeric columns holding an amount of money. */
  readonly money?: true;
  /** A column the mirror derives (not on the wire): SQL computing it from the row's other columns as it is written. */
  readonly computed?: string;
}

/** The entity's own columns, in table order (the bookkeeping columns follow them). */
export function columnsOf(entity: Pick<EntitySpec, 'fields'>): Column[] {
  const columns: Column[] = [];
  for (const [name, spec] of Object.entries(entity.fields)) {
    if ('sql' in spec)
      columns.push({
        name,
        type: spec.sql,
        doc: spec.doc,
        ...(spec.label ? { label: spec.label } : {}),
        ...(spec.money ? { money: true as const } : {}),
      });
    else if ('reference' in spec) {
      spec.reference.forEach((doc, i) => {
        const label = `Reference line ${i + 1}`;
        columns.push({ name: `${name}_line${i + 1}`, type: 'text', doc, label, field: name, subfield: `line${i + 1}` });
      });
    }
  }
  return columns;
}

/** The zod shape of the entity's wire records. */
export type WireShape<Fields extends Record<string, Field>> = {
  [K in keyof Fields]: Fields[K] extends { wire: infer Wire extends z.ZodType } ? Wire : never;
};

export function wireShape<Fields extends Record<string, Field>>(fields: Fields): WireShape<Fields> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(fields)) shape[name] = spec.wire;
  return shape as WireShape<Fields>;
}

// ---- Kysely row types ------------------------------------------------------------------------

/** How each SQL type comes back from the database (see src/db/connect.ts). */
export interface SelectTypes {
  integer: number;
  numeric: string;
  text: string;
  boolean: boolean;
  date: string;
  jsonb: unknown;
  timestamptz: Date;
}

type ColumnName<K extends string, F> = F extends ScalarField
  ? K
  : F extends ReferenceField
    ? `${K}_line${1 | 2 | 3}`
    : never;
type ColumnValue<F> = F extends ScalarField<z.ZodType, infer Sql> ? SelectTypes[Sql] : string;

/** Mirror rows are written only by the sync engine (with raw SQL); Kysely reads them. */
export type EntityColumns<Fields extends Record<string, Field>> = {
  [K in keyof Fields & string as ColumnName<K, Fields[K]>]: ColumnType<ColumnValue<Fields[K]> | null, never, never>;
};
