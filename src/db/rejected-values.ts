/**
 * `rejected_values` read back: values the mirror stores other than as sent (src/sync/rejected.ts
 * writes them), counted, listed and grouped for `status`, the console, health and the sync.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export async function countRejectedValues(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from rejected_values`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** The first values by entity, id and field, for a listing. */
export async function firstRejectedValues(db: Kysely<Database>, limit: number): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select entity, entity_id as id, field, action, value, reason, last_seen_at as seen_at
      from rejected_values order by entity, entity_id, field limit ${limit}`.execute(db);
  return rows;
}

export interface RejectedField {
  entity: string;
  field: string;
  values: number;
  example_id: string;
  reason: string;
  last_seen_at: Date;
}

/** Values per entity and field, with one record as an example. */
export async function rejectedValuesByField(db: Kysely<Database>): Promise<RejectedField[]> {
  const { rows } = await sql<RejectedField>`
    select entity, field, count(*)::int as values, min(entity_id) as example_id, min(reason) as reason,
           max(last_seen_at) as last_seen_at
      from rejected_values group by entity, field order by entity, field`.execute(db);
  return rows;
}

/** The entity's values recorded by an earlier run than this one (none met by this run). */
export async function rejectedValuesBefore(db: Kysely<Database>, entity: string, runId: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from rejected_values
     where entity = ${entity} and last_run_id is distinct from ${runId}`.execute(db);
  return rows[0]?.n ?? 0;
}
