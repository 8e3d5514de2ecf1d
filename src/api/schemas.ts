/**
 * One zod schema per entity, field names exactly as in the service specification (section 2).
 * Unknown fields are stripped from the typed record but kept in `raw`, the record as received.
 * Write-only inputs (action, overwrite_if_exist, tax_country) are not part of parsed records.
 */
import * as z from 'zod';
import { ENTITIES, entityNamed, wireShape, type EntityName, type EntityOf, type WireShape } from '../catalog/index.js';
import type { WireItem } from './json-split.js';

export type { DocumentLine, Reference, Approval } from '../catalog/index.js';

type WireSchema<Name extends EntityName> = z.ZodObject<WireShape<EntityOf<Name>['fields']>>;

/** Each entity's wire schema, built from its catalogue description. */
export const schemas = Object.fromEntries(
  ENTITIES.map((entity) => [entity.name, z.object(wireShape(entity.fields))]),
) as unknown as { [Name in EntityName]: WireSchema<Name> };

const keyOf = (entity: EntityName): string => entityNamed(entity).key;

/** The key a record without an id of its own is given (see EntitySpec.derivedKey); undefined for the others. */
function derivedKeyOf(entity: EntityName, raw: Record<string, unknown>): number | null | undefined {
  const spec = entityNamed(entity);
  return 'derivedKey' in spec && spec.derivedKey ? spec.derivedKey(raw) : undefined;
}

/**
 * A record's id as paging and reports compare it: its key field, or the key made for an entity
 * whose records have no id (as text); null when it has none.
 */
export function recordIdOf(entity: EntityName, value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const derived = derivedKeyOf(entity, value as Record<string, unknown>);
  if (derived !== undefined) return derived === null ? null : String(derived);
  return readableId(value, keyOf(entity));
}

/** Sets the made key of an entity whose records have no id; false when it cannot be made. */
function withDerivedKey(entity: EntityName, record: Record<string, unknown>, raw: Record<string, unknown>): boolean {
  const derived = derivedKeyOf(entity, raw);
  if (derived === undefined) return true;
  if (derived === null) return false;
  record[keyOf(entity)] = derived;
  return true;
}

type Parsed<S extends z.ZodType> = z.output<S> & { raw: Record<string, unknown> };

/** A record of the entity as parsed: typed fields under their spec names, plus `raw`. */
export type RecordOf<Name extends EntityName> = Parsed<WireSchema<Name>>;
export type Client = RecordOf<'clients'>;
export type Product = RecordOf<'products'>;
export type Quotation = RecordOf<'quotations'>;
export type SavedInvoice = RecordOf<'saved_invoices'>;
export type RepeatingInvoice = RecordOf<'repeating_invoices'>;
export type Country = RecordOf<'countries'>;

/** A record that could not be understood: left out of its page, reported with its id and field. */
export interface RecordProblem {
  entity: EntityName;
  id: string | null;
  field: string;
  message: string;
}

function readableId(raw: unknown, keyField: string): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const id = (raw as Record<string, unknown>)[keyField];
  if (typeof id === 'string') return id.length > 64 ? id.slice(0, 64) : id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return null;
}

/**
 * Parse one wire record. Returns the typed record (with `raw` attached) or the list of problems
 * (one per field that failed).
 */
export function parseRecord<E extends EntityName>(
  entity: E,
  raw: unknown,
): { record: RecordOf<E> } | { problems: RecordProblem[] } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      problems: [
        {
          entity,
          id: null,
          field: '(record)',
          message: `expected a record object, got ${Array.isArray(raw) ? 'an array' : typeof raw}`,
        },
      ],
    };
  }
  const result = schemas[entity].safeParse(raw);
  if (result.success) {
    const record = result.data as RecordOf<E>;
    record.raw = raw as Record<string, unknown>;
    if (withDerivedKey(entity, record, record.raw)) return { record };
    return {
      problems: [{ entity, id: null, field: keyOf(entity), message: 'cannot be keyed (see its catalogue file)' }],
    };
  }
  const id = recordIdOf(entity, raw);
  return {
    problems: result.error.issues.map((issue) => ({
      entity,
      id,
      field: issue.path.join('.') || '(record)',
      message: issue.message,
    })),
  };
}

/**
 * A value the mirror stores other than as it came, reported with entity, id and field:
 * `rejected`: the field is stored as NULL (its original stays in `raw`); `repaired`: stored
 * changed so that Postgres can hold it (see `reason`); `skipped`: the record is not stored at all
 * (its id cannot be read or stored).
 */
export interface ValueIssue extends RecordProblem {
  /** The value as received, shortened (JSON text for anything but a string). */
  value: string;
  action: 'rejected' | 'repaired' | 'skipped';
}

/** A record read leniently: the typed record (bad fields as null), its exact text and what was not stored as it came. */
export interface ReadRecord<T> {
  record: T;
  /** The record's JSON text as received (after any repair): stored in `raw`, hashed to detect change. */
  rawText: string;
  /** Its bytes as they came, when the text was not repaired: what is hashed then (see json-split.ts). */
  rawBytes?: Buffer;
  issues: ValueIssue[];
}

function shownValue(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? 'undefined');
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A copy of `root` with the value at `path` replaced (copies only along the path). */
function withValueAt(root: unknown, path: readonly PropertyKey[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [PropertyKey, ...PropertyKey[]];
  const copy: Record<PropertyKey, unknown> = Array.isArray(root) ? ([...root] as never) : { ...(root as object) };
  copy[head] = withValueAt(copy[head], rest, replacement);
  return copy;
}

/**
 * Reads one wire record so that no single value keeps it out: a field that cannot be read is
 * stored as NULL and reported (a line that is not an object becomes an empty line); only a record
 * whose id cannot be read or stored is skipped. `repaired` are values the wire text already had
 * changed so that Postgres can store them (see json-split.ts).
 */
export function readRecord<E extends EntityName>(
  entity: E,
  item: WireItem,
): { read: ReadRecord<RecordOf<E>> } | { skipped: ValueIssue[] } {
  const keyField = keyOf(entity);
  const raw = item.value;
  const id = recordIdOf(entity, raw);
  const repaired: ValueIssue[] = (item.repaired ?? []).map((r) => ({
    entity,
    id,
    field: r.path,
    message: r.reason,
    value: r.value,
    action: 'repaired',
  }));
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const what = Array.isArray(raw) ? 'an array' : typeof raw;
    const message = `expected a record object, got ${what}`;
    return { skipped: [{ entity, id: null, field: '(record)', message, value: shownValue(raw), action: 'skipped' }] };
  }
  let candidate: unknown = raw;
  const rejected: ValueIssue[] = [];
  // Each round nulls the fields that failed; a second failure of the same field cannot happen
  // (null is valid for every non-key field), so two rounds are the most it takes.
  for (let round = 0; round < 2; round++) {
    const result = schemas[entity].safeParse(candidate);
    if (result.success) {
      const record = result.data as RecordOf<E>;
      record.raw = raw as Record<string, unknown>;
      if (!withDerivedKey(entity, record, record.raw)) {
        const message = 'its key cannot be made from the record (see its catalogue file)';
        return { skipped: [{ entity, id, field: keyField, message, value: shownValue(raw), action: 'skipped' }] };
      }
      return { read: { record, rawText: item.text, rawBytes: item.bytes, issues: [...repaired, ...rejected] } };
    }
    for (const issue of result.error.issues) {
      const field = issue.path.join('.') || '(record)';
      const value = shownValue(valueAt(raw, issue.path));
      if (issue.path.length === 0 || issue.path[0] === keyField) {
        return { skipped: [{ entity, id, field, message: issue.message, value, action: 'skipped' }] };
      }
      rejected.push({ entity, id, field, message: issue.message, value, action: 'rejected' });
      // A line that is not an object at all is kept as an empty line, so the others keep their positions.
      const isLine = issue.path.length === 2 && issue.path[0] === 'lines';
      candidate = withValueAt(candidate, issue.path, isLine ? {} : null);
    }
  }
  return { skipped: [{ entity, id, field: '(record)', message: 'could not be read', value: '', action: 'skipped' }] };
}

/** The records of one page read leniently (see readRecord): records to store, and those skipped. */
export function readRecords<E extends EntityName>(
  entity: E,
  items: readonly WireItem[],
): { records: ReadRecord<RecordOf<E>>[]; skipped: ValueIssue[] } {
  const records: ReadRecord<RecordOf<E>>[] = [];
  const skipped: ValueIssue[] = [];
  for (const item of items) {
    const outcome = readRecord(entity, item);
    if ('read' in outcome) records.push(outcome.read);
    else skipped.push(...outcome.skipped);
  }
  return { records, skipped };
}

/** Parse the records of one page; a bad record is reported and skipped, the rest continue. */
export function parseRecords<E extends EntityName>(
  entity: E,
  items: readonly unknown[],
): { records: RecordOf<E>[]; problems: RecordProblem[] } {
  const records: RecordOf<E>[] = [];
  const problems: RecordProblem[] = [];
  for (const item of items) {
    const parsed = parseRecord(entity, item);
    if ('record' in parsed) records.push(parsed.record);
    else problems.push(...parsed.problems);
  }
  return { records, problems };
}
