/**
 * Puts accounts' records into the mirror as a complete pull stores them (typed columns as the
 * catalogue's wire parsers read them, `raw` as sent, the lines in `document_lines`, one `insert`
 * in `changes` per record), so that reports can be checked on several accounts at once without
 * the sync engine. What the pull itself stores is the sync tests' business.
 */
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import { ENTITIES, entityColumns, wireShape, type Column, type EntityName } from '../../src/catalog/index.js';
import type { Database } from '../../src/db/index.js';
import { textFingerprint } from '../../src/api/index.js';
import type { Wire } from './expected.js';

/** An account's records in wire form, per mirror table (an entity left out has none). */
export type AccountRecords = Partial<Record<EntityName, Wire[]>>;

export async function addAccount(db: Kysely<Database>, name: string): Promise<number> {
  const { id } = await db.insertInto('accounts').values({ name }).returning('id').executeTakeFirstOrThrow();
  return id;
}

function columnValue(column: Column, record: Record<string, unknown>): unknown {
  const value = record[column.field ?? column.name];
  if (column.subfield === undefined) return value ?? null;
  return (value as Record<string, unknown> | null)?.[column.subfield] ?? null;
}

/** Rows of a table through jsonb_populate_recordset, so each value takes its column's type. */
async function insertRows(db: Kysely<Database>, table: string, rows: readonly object[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`insert into ${sql.table(table)}
            select * from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}::text::jsonb)`.execute(
    db,
  );
}

export async function loadAccount(db: Kysely<Database>, accountId: number, records: AccountRecords): Promise<void> {
  const now = new Date().toISOString();
  for (const entity of ENTITIES) {
    const schema = z.object(wireShape(entity.fields));
    const columns = entityColumns(entity.name);
    // An entity the caller gives no records of (taxes, categories) has none.
    const wires = records[entity.name] ?? [];
    const parsed = wires.map((wire) => schema.parse(wire) as Record<string, unknown>);
    await insertRows(
      db,
      entity.name,
      parsed.map((record, i) => ({
        ...Object.fromEntries(columns.map((column) => [column.name, columnValue(column, record)])),
        raw: wires[i],
        raw_hash: textFingerprint(JSON.stringify(wires[i])),
        first_seen_at: now,
        last_changed_at: now,
        last_seen_at: now,
        deleted_at: null,
        account_id: accountId,
      })),
    );
    if ('documentType' in entity) {
      const lines = parsed.flatMap((record) =>
        ((record.lines ?? []) as Record<string, unknown>[]).map((line, i) => ({
          ...line,
          document_type: entity.documentType,
          document_id: record[entity.key],
          position: i + 1,
          account_id: accountId,
        })),
      );
      await insertRows(db, 'document_lines', lines);
    }
    await sql`
      insert into changes (entity, entity_id, op, after, account_id)
      select ${entity.name}, r ->> ${entity.key}, 'insert', r, ${accountId}::integer
        from jsonb_array_elements(${JSON.stringify(wires)}::text::jsonb) r`.execute(db);
  }
}

/** Marks records of one account deleted, as a sync does when they are gone upstream. */
export async function markDeleted(
  db: Kysely<Database>,
  accountId: number,
  entity: EntityName,
  ids: readonly number[],
): Promise<void> {
  const key = ENTITIES.find((e) => e.name === entity)!.key;
  await sql`
    update ${sql.table(entity)} set deleted_at = now(), last_changed_at = now()
     where account_id = ${accountId} and ${sql.ref(key)} = any(${[...ids]}::int[])`.execute(db);
  await sql`
    insert into changes (entity, entity_id, op, before, account_id)
    select ${entity}, id::text, 'delete', null, ${accountId}::integer from unnest(${[...ids]}::int[]) id`.execute(db);
}
