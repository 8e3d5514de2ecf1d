/**
 * Full pulls that resume (migration 0014): a full pull of a list saves where it is, now and then
 * and whenever it stops early (a slice given back, a signal, a spent quota, a failed page), so
 * that the next pull of the entity goes on from that page instead of reading the list again.
 *
 * What a resumed pass keeps from before is what the sweep needs: the keys it has seen, the time
 * it began (rows changed since are spared) and whether the table was empty. Before going on it
 * reads the last page again: if that page no longer holds the same ids, records moved across the
 * resume point while the pull was away, a record may have been skipped, and the pass sweeps
 * nothing (the next complete pass does). A pass older than the reconcile interval starts afresh.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';

/** Where a pass stands, as saved. */
export interface PassCursor {
  passRunId: number;
  passStartedAt: Date;
  tableWasEmpty: boolean;
  /** The offset of the next page. */
  nextStart: number;
  /** The last page read: its offset and ids (read again on resuming). */
  lastPage: { start: number; ids: string[] };
  seenKeys: number[];
  unidentified: number;
  fetched: number;
  pages: number;
}

/** The cursor of the entity's pass under way, unless it is older than `maxAgeHours`. */
export async function cursorOf(
  db: Kysely<Database>,
  accountId: number,
  entity: string,
  maxAgeHours: number,
): Promise<PassCursor | null> {
  const row = await db
    .selectFrom('pull_cursors')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('entity', '=', entity)
    .where('pass_started_at', '>', sql<Date>`now() - make_interval(hours => ${maxAgeHours})`)
    .executeTakeFirst();
  if (!row) return null;
  return {
    passRunId: Number(row.pass_run_id),
    passStartedAt: row.pass_started_at,
    tableWasEmpty: row.table_was_empty,
    nextStart: row.next_start,
    lastPage: { start: row.last_page_start, ids: row.last_page_ids },
    seenKeys: row.seen_keys.map(Number),
    unidentified: row.unidentified,
    fetched: row.fetched,
    pages: row.pages,
  };
}

/** Saves (or replaces) the entity's cursor. */
export async function saveCursor(
  db: Kysely<Database>,
  accountId: number,
  entity: string,
  cursor: PassCursor,
): Promise<void> {
  const values = {
    pass_run_id: cursor.passRunId,
    pass_started_at: cursor.passStartedAt,
    table_was_empty: cursor.tableWasEmpty,
    next_start: cursor.nextStart,
    last_page_start: cursor.lastPage.start,
    last_page_ids: cursor.lastPage.ids,
    seen_keys: sql<number[]>`${cursor.seenKeys}::int[]`,
    unidentified: cursor.unidentified,
    fetched: cursor.fetched,
    pages: cursor.pages,
    saved_at: sql<Date>`now()`,
  };
  await db
    .insertInto('pull_cursors')
    .values({ account_id: accountId, entity, ...values })
    .onConflict((oc) => oc.columns(['account_id', 'entity']).doUpdateSet(values))
    .execute();
}

/** The pass is over (complete, or to begin afresh): its cursor goes. */
export async function dropCursor(db: Kysely<Database>, accountId: number, entity: string): Promise<void> {
  await db.deleteFrom('pull_cursors').where('account_id', '=', accountId).where('entity', '=', entity).execute();
}

/**
 * The account's pass under way, if any: when the run that began it started, and the entities it has completed since
 * (a run that goes on with the pass skips them, so that every entity is read once per pass).
 */
export async function passUnderWay(
  db: Kysely<Database>,
  accountId: number,
): Promise<{ startedAt: Date; completed: Set<string>; resuming: Set<string> } | null> {
  const { rows } = await sql<{ started_at: Date | null; completed: string[] | null; resuming: string[] | null }>`
    with pass as (
      select (select min(r.started_at) from sync_runs r
               where r.account_id = ${accountId} and r.id = any(array_agg(c.pass_run_id))) as started_at,
             array_agg(c.entity) as resuming
        from pull_cursors c where c.account_id = ${accountId}
    )
    select pass.started_at, pass.resuming,
           (select array_agg(p.entity) from entity_pulls p
             where p.account_id = ${accountId} and p.last_complete_at >= pass.started_at) as completed
      from pass`.execute(db);
  const row = rows[0];
  if (!row?.started_at) return null;
  return { startedAt: row.started_at, completed: new Set(row.completed ?? []), resuming: new Set(row.resuming ?? []) };
}
