/**
 * `document_lines`: the lines of every document entity (one with a `documentType`), one row per
 * line in the document's order, keyed by (`document_type`, `document_id`, `position`).
 */
import type { ColumnType } from 'kysely';
import type { Column, SelectTypes, SqlType } from './define.js';
import type { DocumentLine } from './wire.js';

const line = <const Name extends string, const Type extends SqlType>(
  name: Name,
  type: Type,
  doc: string,
  label: string,
) => ({ name, type, doc, label }) as const satisfies Column;
const moneyLine = <const Name extends string>(name: Name, doc: string, label: string) =>
  ({ name, type: 'numeric', doc, label, money: true }) as const satisfies Column;

/** A line's own columns, after the three that place it. */
export const LINE_COLUMNS = [
  line('amount', 'numeric', 'quantity; empty on a text line', 'Quantity'),
  line('amount_desc', 'text', 'unit of the quantity, e.g. `uur`', 'Unit'),
  line('description', 'text', 'text of the line', 'Description'),
  line('tax_rate', 'numeric', 'tax percentage of the line', 'Tax (%)'),
  moneyLine('price', 'unit price', 'Price'),
  line('discount_pct', 'numeric', 'discount percentage of the line', 'Discount (%)'),
  moneyLine('linetotal', 'line total as computed by the service', 'Line total'),
] as const;

// A line's fields as the wire reads them (wire.ts toLines) are these columns, no more and no
// fewer: a column added here fails to compile until toLines reads it.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<keyof DocumentLine, (typeof LINE_COLUMNS)[number]['name']>;

type LineColumns = {
  [C in (typeof LINE_COLUMNS)[number] as C['name']]: ColumnType<SelectTypes[C['type']] | null, never, never>;
};

export type DocumentLinesTable<DocumentType extends string> = {
  account_id: ColumnType<number, never, never>;
  document_type: ColumnType<DocumentType, never, never>;
  document_id: ColumnType<number, never, never>;
  position: ColumnType<number, never, never>;
} & LineColumns;
