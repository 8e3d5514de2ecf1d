/**
 * `rejected_values` read back: values the mirror stores other than as sent (src/sync/rejected.ts
 * writes them), counted, listed and grouped for `status`, the console, health and the sync.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { inScope, type AccountScope } from './scope.js';

export async function countRejectedValues(db: Kysely<Database>, scope: AccountScope): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from rejected_values where ${inScope(scope)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** The first values by account, entity, id and field, for a listing (`account` is the account's name). */
export async function firstRejectedValues(
  db: Kysely<Database>,
  scope: AccountScope,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select a.name as account, r.entity, r.entity_id as id, r.field, r.action, r.value, r.reason, r.last_seen_at as seen_at
      from rejected_values r join accounts a on a.id = r.account_id
     where ${inScope(scope, 'r.account_id')}
     order by a.name, r.entity, r.entity_id, r.field limit ${limit}`.execute(db);
  return rows;
}

export interface RejectedField {
  account_id: number;
  /** The account's name. */
  account: string;
  entity: string;
  field: string;
  values: number;
  example_id: string;
  reason: string;
  last_seen_at: Date;
}

/** Values per account, entity and field, with one record as an example. */
export async function rejectedValuesByField(db: Kysely<Database>, scope: AccountScope): Promise<RejectedField[]> {
  const { rows } = await sql<RejectedField>`
    select r.account_id, a.name as account, r.entity, r.field, count(*)::int as values,
           min(r.entity_id) as example_id, min(r.reason) as reason, max(r.last_seen_at) as last_seen_at
      from rejected_values r join accounts a on a.id = r.account_id
     where ${inScope(scope, 'r.account_id')}
     group by r.account_id, a.name, r.entity, r.field order by a.name, r.entity, r.field`.execute(db);
  return rows.map((row) => ({ ...row, account_id: Number(row.account_id) }));
}

/** The entity's values in the scope (the account pulled) recorded by an earlier run than this one (none met by this run). */
export async function rejectedValuesBefore(
  db: Kysely<Database>,
  scope: AccountScope,
  entity: string,
  runId: number,
): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from rejected_values
     where ${inScope(scope)} and entity = ${entity} and last_run_id is distinct from ${runId}`.execute(db);
  return rows[0]?.n ?? 0;
}
