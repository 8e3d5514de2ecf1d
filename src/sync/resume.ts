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
import type { Logger } from 'pino';
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

/**
 * The account's pass under way, read once per run: each entity's cursor (passes older than
 * `maxAgeHours` start afresh, so theirs are left out), when the run that began the pass started,
 * and the entities completed since (a run that goes on with the pass skips them, so that every
 * entity is read once per pass). Null when no pass is under way.
 */
export interface PassUnderWay {
  cursors: ReadonlyMap<string, PassCursor>;
  /** When the run that began the pass started (null: that run is not recorded). */
  startedAt: Date | null;
  completed: ReadonlySet<string>;
}

export async function passUnderWay(
  db: Kysely<Database>,
  accountId: number,
  maxAgeHours: number,
): Promise<PassUnderWay | null> {
  const rows = await db
    .selectFrom('pull_cursors')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('pass_started_at', '>', sql<Date>`now() - make_interval(hours => ${maxAgeHours})`)
    .execute();
  if (rows.length === 0) return null;
  const cursors = new Map(
    rows.map((row): [string, PassCursor] => [
      row.entity,
      {
        passRunId: Number(row.pass_run_id),
        passStartedAt: row.pass_started_at,
        tableWasEmpty: row.table_was_empty,
        nextStart: row.next_start,
        lastPage: { start: row.last_page_start, ids: row.last_page_ids },
        seenKeys: row.seen_keys.map(Number),
        unidentified: row.unidentified,
        fetched: row.fetched,
        pages: row.pages,
      },
    ]),
  );
  const passRuns = [...cursors.values()].map((cursor) => cursor.passRunId);
  const { rows: pass } = await sql<{ started_at: Date | null; completed: string[] | null }>`
    with pass as (
      select min(r.started_at) as started_at from sync_runs r
       where r.account_id = ${accountId} and r.id = any(${passRuns}::bigint[])
    )
    select pass.started_at,
           (select array_agg(p.entity) from entity_pulls p
             where p.account_id = ${accountId} and p.last_complete_at >= pass.started_at) as completed
      from pass`.execute(db);
  return { cursors, startedAt: pass[0]?.started_at ?? null, completed: new Set(pass[0]?.completed ?? []) };
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

/** A list's position as paging gives it (the api's ListPosition). */
interface Position {
  nextStart: number;
  lastPage: { start: number; ids: readonly string[] };
}

/**
 * The check of a resumed list, page by page until its first page: the page the earlier reading
 * ended with, read again, holding the same ids (and ending where it ended) proves that nothing
 * moved across the resume point, and need not be stored again (`repeat`). Other ids, or a list
 * that no longer reaches the resume point, mean a record may have been skipped: the pass is
 * `shifted` (the warning says so), and sweeps nothing.
 */
export class ResumeCheck {
  private pending = true;
  shifted: string | null = null;

  constructor(
    private readonly label: string,
    private readonly cursor: PassCursor,
    private readonly log: Logger,
  ) {}

  /** The first page read (with the list's position after it): whether to skip it as the repeat it is. */
  repeat(pageStart: number, position: Position | null): boolean {
    if (!this.pending) return false;
    this.pending = false;
    const { lastPage, nextStart } = this.cursor;
    if (pageStart !== lastPage.start) return false;
    if (position && sameIds(position.lastPage.ids, lastPage.ids) && position.nextStart === nextStart) return true;
    this.shiftedBecause(
      `the page at start=${pageStart} holds other records than when it was read); going on, but nothing is marked deleted this time`,
    );
    return false;
  }

  /** The list ended: one that ended before its first page no longer reaches the resume point. */
  ended(complete: boolean): void {
    if (!this.pending || !complete || this.cursor.lastPage.ids.length === 0) return;
    this.pending = false;
    this.shiftedBecause(
      `it no longer reaches start=${this.cursor.lastPage.start}); nothing is marked deleted this time`,
    );
  }

  private shiftedBecause(why: string): void {
    this.shifted = `${this.label}: the list changed while the pull was away (${why}`;
    this.log.warn({ list: this.label }, this.shifted);
  }
}

function sameIds(ids: readonly string[], expected: readonly string[]): boolean {
  const set = new Set(ids);
  return set.size === expected.length && expected.every((id) => set.has(id));
}
