/**
 * The catalogue: the live description of everything the mirror holds. Each entity is one file
 * here; the reports are one list (reports.ts). The migrations are frozen snapshots of the DDL;
 * test/foundation/catalog.test.ts checks that a database built from them equals this description.
 *
 * Adding an entity: a file here, its place in ENTITIES, a migration that creates its table, the
 * sandbox's data for it, and its tests.
 */
import type { ColumnType } from 'kysely';
import { COUNTRY_DERIVED_COLUMNS } from './countries.js';
import { ENTITIES } from './entity-list.js';
import { columnsOf, type Column, type EntityColumns } from './define.js';
import { LINE_COLUMNS } from './document-lines.js';
import { isMoneyColumn } from './report-shared.js';
import { REPORTS } from './reports.js';

export {
  columnsOf,
  hasLabel,
  labelOf,
  nameInWords,
  wireShape,
  type Column,
  type EntitySpec,
  type IncrementalSpec,
  type SqlType,
  type WireShape,
} from './define.js';
export { LINE_COLUMNS, type DocumentLinesTable } from './document-lines.js';
export { FREQUENCIES } from './repeating-invoices.js';
export { invoiceIsOpen, invoiceOpenSql, isWrittenOff } from './invoice-open.js';
export * from './enumerations.js';
export { REPORTS, REPORT_FUNCTIONS, findReport, type Report } from './reports.js';
export { isMoneyColumn, isMonthColumn, reportColumnLabel } from './report-shared.js';
export { BE_GRIDS, NL_RUBRICS } from './vat.js';
export { EU_VAT_AREA, VAT_PROBLEMS, VAT_RATES, type VatProblemKind } from './vat-rules.js';
export { countryCodeOf, countryIso2Functions, KEPT_COUNTRY_NAMES } from './country-codes.js';
export { taxRateKey } from './taxes.js';
export { JOB_KIND_NAMES, type JobKindName } from './job-kinds.js';
export {
  EVENT_BULKY_FIELDS,
  EVENT_KEY_FIELDS,
  EVENT_TYPE_NAMES,
  EVENT_TYPES,
  type ChangeEventRule,
  type EventType,
} from './events.js';
export { MAX_DECIMAL, MAX_INTEGER, MIN_INTEGER, type Approval, type DocumentLine, type Reference } from './wire.js';

export { ENTITIES };

type AnyEntity = (typeof ENTITIES)[number];
/** The name of a mirrored entity: its table, its list, its name on the command line. */
export type EntityName = AnyEntity['name'];
export type EntityOf<Name extends EntityName> = Extract<AnyEntity, { name: Name }>;
/** Entities the service reads one record of at a time (all but countries): what jobs refresh. */
export type SingleReadEntity = Extract<AnyEntity, { singleRead: true }>['name'];
export type DocumentType = Extract<AnyEntity, { documentType: string }>['documentType'];

export const ENTITY_NAMES: readonly EntityName[] = ENTITIES.map((entity) => entity.name);

export function isEntityName(name: string): name is EntityName {
  return (ENTITY_NAMES as readonly string[]).includes(name);
}

/** By name, looked up once per record on the hot path (parsing reads the key field). */
const BY_NAME = new Map<string, AnyEntity>(ENTITIES.map((entity) => [entity.name, entity]));

export function entityNamed<Name extends EntityName>(name: Name): EntityOf<Name> {
  const found = BY_NAME.get(name);
  if (!found) throw new Error(`unknown entity '${name}'`);
  return found as EntityOf<Name>;
}

/** Every entity's own columns, computed once. */
const COLUMNS = new Map<string, readonly Column[]>(ENTITIES.map((entity) => [entity.name, columnsOf(entity)]));
export function entityColumns(name: EntityName): readonly Column[] {
  return COLUMNS.get(name)!;
}

/**
 * Columns the mirror adds to an entity's table that do not come from the wire (the database
 * computes them), after `account_id`: `countries.iso2`.
 */
const DERIVED = new Map<string, readonly Column[]>([['countries', COUNTRY_DERIVED_COLUMNS]]);
export function derivedColumns(name: EntityName): readonly Column[] {
  return DERIVED.get(name) ?? [];
}

/** The columns every mirror table ends with, after its entity's own. */
export const BOOKKEEPING_COLUMNS: readonly Column[] = [
  { name: 'raw', type: 'jsonb', label: 'As received', doc: 'the record exactly as the service sent it (JSON)' },
  {
    name: 'raw_hash',
    type: 'text',
    label: 'Received text hash',
    doc: "the record's text as received: its length in bytes and SHA-256 (`947:base64`)",
  },
  { name: 'first_seen_at', type: 'timestamptz', label: 'First seen', doc: 'when the mirror first saw the record' },
  {
    name: 'last_changed_at',
    type: 'timestamptz',
    label: 'Last changed',
    doc: 'when the record last changed in the mirror',
  },
  { name: 'last_seen_at', type: 'timestamptz', label: 'Last seen', doc: 'when a complete pull last saw the record' },
  {
    name: 'deleted_at',
    type: 'timestamptz',
    label: 'Deleted',
    doc: 'when the record disappeared from the service; empty while it exists',
  },
];

/**
 * The column every table of the mirror carries, mirror tables and bookkeeping alike: added by one
 * mechanism (migrations/0012_accounts.ts), after the table's own columns, and first in every
 * primary key and unique index, so that a table can be partitioned by account without a key change.
 */
export const ACCOUNT_COLUMN: Column = {
  name: 'account_id',
  type: 'integer',
  label: 'Account',
  doc: 'the account of the service the row belongs to (accounts.id)',
};

/** The key of a mirror table: the account, then the entity's own key. */
export function primaryKeyOf(entity: { key: string }): string[] {
  return [ACCOUNT_COLUMN.name, entity.key];
}

interface Bookkeeping {
  account_id: ColumnType<number, never, never>;
  raw: ColumnType<Record<string, unknown>, never, never>;
  raw_hash: ColumnType<string | null, never, never>;
  first_seen_at: ColumnType<Date, never, never>;
  last_changed_at: ColumnType<Date, never, never>;
  last_seen_at: ColumnType<Date, never, never>;
  deleted_at: ColumnType<Date | null, never, never>;
}

/** The Kysely row type of an entity's mirror table. */
export type MirrorRow<Name extends EntityName> = EntityColumns<EntityOf<Name>['fields']> & Bookkeeping;
export type MirrorTables = { [Name in EntityName]: MirrorRow<Name> };

/**
 * The column names that hold money wherever the catalogue has them (mirror tables, document
 * lines, reports), for a query's table that names no source: a name that is money in one place
 * and not in another (`amount`: a line's quantity, a payment's amount) is left as it is.
 */
export const MONEY_COLUMN_NAMES: ReadonlySet<string> = (() => {
  const money = new Set<string>();
  const other = new Set<string>();
  const columns = [...ENTITIES.flatMap((entity) => entityColumns(entity.name)), ...LINE_COLUMNS];
  for (const column of columns) ('money' in column && column.money ? money : other).add(column.name);
  for (const name of REPORTS.flatMap((report) => Object.keys(report.columns)))
    (isMoneyColumn(name) ? money : other).add(name);
  return new Set([...money].filter((name) => !other.has(name)));
})();
