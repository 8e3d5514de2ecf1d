/**
 * The catalogue: the live description of everything the mirror holds. Each entity is one file
 * here; the reports are one list (reports.ts). The migrations are frozen snapshots of the DDL;
 * test/foundation/catalog.test.ts checks that a database built from them equals this description.
 *
 * Adding an entity: a file here, its place in ENTITIES, a migration that creates its table, the
 * sandbox's data for it, and its tests.
 */
import type { ColumnType } from 'kysely';
import { clients } from './clients.js';
import { countries } from './countries.js';
import { invoices } from './invoices.js';
import { columnsOf, type Column, type EntityColumns } from './define.js';
import { products } from './products.js';
import { quotations } from './quotations.js';
import { repeatingInvoices } from './repeating-invoices.js';
import { savedInvoices } from './saved-invoices.js';

export {
  columnsOf,
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

/** Every entity, in pull order: what documents refer to (countries, clients, products) comes first. */
export const ENTITIES = [countries, clients, products, quotations, savedInvoices, repeatingInvoices, invoices] as const;

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

/** The columns every mirror table ends with, after its entity's own. */
export const BOOKKEEPING_COLUMNS: readonly Column[] = [
  { name: 'raw', type: 'jsonb', doc: 'the record exactly as the service sent it (JSON)' },
  {
    name: 'raw_hash',
    type: 'text',
    doc: "the record's text as received: its length in bytes and SHA-256 (`947:base64`)",
  },
  { name: 'first_seen_at', type: 'timestamptz', doc: 'when the mirror first saw the record' },
  { name: 'last_changed_at', type: 'timestamptz', doc: 'when the record last changed in the mirror' },
  { name: 'last_seen_at', type: 'timestamptz', doc: 'when a complete pull last saw the record' },
  {
    name: 'deleted_at',
    type: 'timestamptz',
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
