/**
 * `entity_pulls` read back: per entity, when it was last pulled completely and where an
 * incremental pull goes on from (src/sync/incremental.ts writes them).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** When each entity ever pulled was last pulled completely (null: not yet). */
export async function lastCompletePulls(db: Kysely<Database>, accountId: number): Promise<Map<string, Date | null>> {
  const rows = await db
    .selectFrom('entity_pulls')
    .select(['entity', 'last_complete_at'])
    .where('account_id', '=', accountId)
    .execute();
  return new Map(rows.map((row) => [row.entity, row.last_complete_at ? new Date(row.last_complete_at) : null]));
}

/** When the entity was last pulled completely (null: never, so absence proves nothing). */
export async function lastCompletePullOf(
  db: Kysely<Database>,
  accountId: number,
  entity: string,
): Promise<Date | null> {
  const row = await db
    .selectFrom('entity_pulls')
    .select('last_complete_at')
    .where('account_id', '=', accountId)
    .where('entity', '=', entity)
    .executeTakeFirst();
  return row?.last_complete_at ? new Date(row.last_complete_at) : null;
}

export interface PullState {
  /** The incremental cursor (null: nothing to list from). */
  since: string | null;
  /** Hours since the last complete pull (null: never). */
  ageHours: number | null;
  /** Whether deletes of the entity are held. */
  held: boolean;
}

/** What decides the entity's next pull; undefined when it was never pulled. */
export async function pullState(
  db: Kysely<Database>,
  accountId: number,
  entity: string,
): Promise<PullState | undefined> {
  const { rows } = await sql<{ since: string | null; age_hours: number | null; held: boolean }>`
    select since_cursor::text as since,
           extract(epoch from now() - last_complete_at)::float8 / 3600 as age_hours,
           exists (select 1 from held_deletes h where h.account_id = ${accountId} and h.entity = ${entity}) as held
      from entity_pulls where account_id = ${accountId} and entity = ${entity}`.execute(db);
  const row = rows[0];
  return row && { since: row.since, ageHours: row.age_hours, held: row.held };
}
