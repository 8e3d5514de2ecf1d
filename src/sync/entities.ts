/**
 * The sync engine's view of the catalogue's entities: which columns travel as typed values and
 * which are read from the raw record in SQL, and how a parsed record becomes a staged row.
 */
import { textFingerprint, type ReadRecord } from '../api/index.js';
import {
  derivedColumns,
  ENTITIES,
  entityColumns,
  LINE_COLUMNS,
  type Column,
  type DocumentType,
  type EntityName,
  type IncrementalSpec,
} from '../catalog/index.js';

/** A record of any entity as parsed: typed fields under their spec names plus `raw`, the record as received. */
export type EntityRecord = Record<string, unknown> & { raw: Record<string, unknown> };

/**
 * A record as the client read it, with its text and issues. What `client.list` and `client.read`
 * give for any entity (`ReadRecord<RecordOf<E>>`) is one as it is, so a record keeps its type from
 * the client to the page writer.
 */
export type ReadEntityRecord = ReadRecord<EntityRecord>;

export interface EntityDefinition {
  /** The mirror table, and the name of the client's list (`client.list(name)`). */
  name: EntityName;
  /** The identifying column (an integer). */
  key: string;
  columns: readonly Column[];
  /** Text columns: taken from the raw record in SQL, unless the parser changed the value. */
  textColumns: readonly Column[];
  /** Every other column except the key: sent as typed values, in this order. */
  typedColumns: readonly Column[];
  /** Columns the mirror computes from the others as each row is written (`countries.iso2`). */
  computedColumns: readonly Column[];
  /** Set for documents whose `lines` go to `document_lines`. */
  documentType?: DocumentType;
  /** Set for entities pulled incrementally (see incremental.ts). */
  incremental?: IncrementalSpec;
}

/** In pull order (the catalogue's). */
export const DEFINITIONS: readonly EntityDefinition[] = ENTITIES.map((entity) => {
  const columns = entityColumns(entity.name);
  return {
    name: entity.name,
    key: entity.key,
    columns,
    textColumns: columns.filter((c) => c.type === 'text'),
    typedColumns: columns.filter((c) => c.type !== 'text' && c.name !== entity.key),
    computedColumns: derivedColumns(entity.name).filter((c) => c.computed !== undefined),
    documentType: 'documentType' in entity ? entity.documentType : undefined,
    incremental: 'incremental' in entity ? entity.incremental : undefined,
  };
});

export function definitionOf(name: EntityName): EntityDefinition {
  const found = DEFINITIONS.find((definition) => definition.name === name);
  if (!found) throw new Error(`unknown entity '${name}'`);
  return found;
}

/** What identifies a record and its exact content: enough to tell whether it needs writing. */
export interface RecordIdentity {
  key: number;
  /** The fingerprint of `rawText` (textFingerprint), stored in `raw_hash`. */
  hash: string;
  /** The record's JSON text exactly as received (re-serialized only when that text is unknown; repaired where Postgres could not store it). */
  rawText: string;
}

/**
 * A record ready for the merge. Most of a record's bytes are its text fields, and those are
 * already in the raw record; so the raw text travels once and only the typed values of the other
 * columns travel beside it (plus any text the parser changed, e.g. a lower-cased enum).
 */
export interface StagedRow extends RecordIdentity {
  /** Values of `typedColumns`, in order (a numeric column's value is taken from `raw` in SQL; see merge.ts). */
  typed: unknown[];
  /** Text columns whose parsed value differs from the raw field, by column name. */
  overrides: Record<string, string | null> | null;
  /**
   * Documents only, a line each (position is the index + 1): the line's key in the wire's `lines`
   * (`line1`, or an index), then its values in LINE_COLUMNS order, where a numeric value is 1 when
   * it is to be read from the wire line (exactly, as decimal text) and null when it is null.
   */
  lines: unknown[][] | null;
}

function fieldOf(column: Column, record: Record<string, unknown>): unknown {
  const value = record[column.field ?? column.name];
  if (column.subfield === undefined) return value;
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)[column.subfield]
    : undefined;
}

/** The key of a record as read (the client checked it is an integer an `integer` column holds). */
export function recordKey(definition: EntityDefinition, read: ReadEntityRecord): number {
  return read.record[definition.key] as number;
}

/** The key, text and hash of a record as read. */
export function identify(definition: EntityDefinition, read: ReadEntityRecord): RecordIdentity {
  return {
    key: recordKey(definition, read),
    hash: textFingerprint(read.rawBytes ?? read.rawText),
    rawText: read.rawText,
  };
}

/**
 * Maps a parsed record to a staged row. A sync identifies every record but stages only the ones
 * whose hash differs from the stored one, so an unchanged record costs no mapping.
 */
export function toStagedRow(
  definition: EntityDefinition,
  read: ReadEntityRecord,
  identity = identify(definition, read),
): StagedRow {
  const record = read.record;
  const raw = record.raw;
  const typed = definition.typedColumns.map((column) => fieldOf(column, record) ?? null);
  let overrides: Record<string, string | null> | null = null;
  for (const column of definition.textColumns) {
    const parsed = (fieldOf(column, record) ?? null) as string | null;
    const wire = fieldOf(column, raw);
    if (parsed !== (typeof wire === 'string' ? wire : wire === undefined || wire === null ? null : undefined)) {
      (overrides ??= {})[column.name] = parsed;
    }
  }
  let lines: unknown[][] | null = null;
  if (definition.documentType) {
    const parsedLines = (record.lines ?? []) as Record<string, unknown>[];
    const wireLines = raw.lines;
    // The wire's own keys (`line1`, …, or indexes), in the order the parsed lines came in.
    const keys: (string | number)[] = Array.isArray(wireLines)
      ? wireLines.map((_, i) => i)
      : typeof wireLines === 'object' && wireLines !== null
        ? Object.keys(wireLines)
        : [];
    lines = parsedLines.map((line, i) => [
      keys[i] ?? i,
      ...LINE_COLUMNS.map((column) => {
        const value = line[column.name] ?? null;
        return column.type === 'numeric' && value !== null ? 1 : value;
      }),
    ]);
  }
  return { ...identity, typed, overrides, lines };
}
