/**
 * `document_lines`: the lines of every document entity (one with a `documentType`), one row per
 * line in the document's order, keyed by (`document_type`, `document_id`, `position`).
 */
import type { ColumnType } from 'kysely';
import type { Column, SelectTypes, SqlType } from './define.js';

const line = <const Name extends string, const Type extends SqlType>(name: Name, type: Type, doc: string) =>
  ({ name, type, doc }) as const satisfies Column;
const moneyLine = <const Name extends string>(name: Name, doc: string) =>
  ({ name, type: 'numeric', doc, money: true }) as const satisfies Column;

/** A line's own columns, after the three that place it. */
export const LINE_COLUMNS = [
  line('amount', 'numeric', 'quantity; empty on a text line'),
  line('amount_desc', 'text', 'unit of the quantity, e.g. `uur`'),
  line('description', 'text', 'text of the line'),
  line('tax_rate', 'numeric', 'tax percentage of the line'),
  moneyLine('price', 'unit price'),
  line('discount_pct', 'numeric', 'discount percentage of the line'),
  moneyLine('linetotal', 'line total as computed by the service'),
] as const;

type LineColumns = {
  [C in (typeof LINE_COLUMNS)[number] as C['name']]: ColumnType<SelectTypes[C['type']] | null, never, never>;
};

export type DocumentLinesTable<DocumentType extends string> = {
  account_id: ColumnType<number, never, never>;
  document_type: ColumnType<DocumentType, never, never>;
  document_id: ColumnType<number, never, never>;
  position: ColumnType<number, never, never>;
} & LineColumns;
