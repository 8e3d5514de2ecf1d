/**
 * Incremental pulls, for entities whose records are many and mostly final (sent invoices): what
 * to list, and what to read one by one, so that a sync costs the records that can have changed
 * rather than all of them.
 *
 * A sync lists the records sent since the cursor (the start of the last complete pull, less a
 * margin) and the records that may still change (the open ones); then it reads one by one each
 * record the mirror holds as still changing that neither list had (paid, written off or deleted
 * meanwhile). A full pull reconciles everything else (a change to a closed record, a deletion)
 * and is the only one that sweeps deletions: on `backfill`, on `sync --full`, when the last one
 * is older than the reconcile interval, and when a single read could not find a record.
 */
import { sql, type Kysely } from 'kysely';
import type { IncrementalSpec } from '../catalog/index.js';
import { oneAccount, pullState, rejectedValuesBefore, type Database } from '../db/index.js';

/** Days the `since` date stays behind the last pull: the service's calendar may be a day ahead of ours, and sends are dated when they are made. */
export const SINCE_MARGIN_DAYS = 3;

export const DEFAULT_RECONCILE_HOURS = 24;

/** What these steps read of an entity (the sync engine's EntityDefinition has it). */
interface Described {
  name: string;
  key: string;
  incremental?: IncrementalSpec;
}

export type PullPlan = { mode: 'full'; reason: string } | { mode: 'incremental'; since: string };

/** Whether this pull of the entity lists everything or only what can have changed. */
export async function planPull(
  db: Kysely<Database>,
  accountId: number,
  entity: Described,
  wanted: { full: boolean; reconcileAfterHours: number },
): Promise<PullPlan> {
  if (!entity.incremental) return { mode: 'full', reason: 'not incremental' };
  if (wanted.full) return { mode: 'full', reason: 'asked for' };
  const pulled = await pullState(db, accountId, entity.name);
  if (!pulled || pulled.ageHours === null) return { mode: 'full', reason: 'never pulled in full' };
  // Held deletes are judged again only by a full pull; until then no run may say it succeeded.
  if (pulled.held) return { mode: 'full', reason: 'deletes are held' };
  if (pulled.since === null)
    return { mode: 'full', reason: 'nothing to list from: no invoices yet, or records to reconcile' };
  if (pulled.ageHours >= wanted.reconcileAfterHours)
    return { mode: 'full', reason: `the last full pull is ${Math.floor(pulled.ageHours)} hours old` };
  return { mode: 'incremental', since: pulled.since };
}

/** The lists a pull reads, as each list's query parameters. */
export function listsOf(entity: Described, plan: PullPlan): Readonly<Record<string, string>>[] {
  if (plan.mode === 'full' || !entity.incremental) return [{}];
  return [{ [entity.incremental.sinceParameter]: plan.since }, entity.incremental.changingFilter];
}

/**
 * Values of the entity stored other than as sent by an earlier pull and not met by this one. An
 * incremental pull does not read every record again, so it cannot clear them: while any remain,
 * it is not complete.
 */
export function earlierIssues(db: Kysely<Database>, accountId: number, entity: string, runId: number): Promise<number> {
  return rejectedValuesBefore(db, oneAccount(accountId), entity, runId);
}

/** Keys of the live records the mirror holds as still changing that the lists did not have. */
export async function changingNotListed(
  db: Kysely<Database>,
  accountId: number,
  entity: Described,
  listed: ReadonlySet<number>,
): Promise<number[]> {
  if (!entity.incremental) return [];
  const { rows } = await sql<{ key: number }>`
    select ${sql.ref(entity.key)} as key from ${sql.table(entity.name)}
     where account_id = ${accountId} and deleted_at is null and (${sql.raw(entity.incremental.changingInMirror)})
     order by 1`.execute(db);
  return rows.map((row) => Number(row.key)).filter((key) => !listed.has(key));
}

/**
 * The `since` of the next incremental pull: the latest send date the mirror holds (the service's
 * own calendar, which may differ from ours; never later than today), less the margin. Null when
 * the entity is not incremental or holds nothing yet.
 */
async function nextSince(db: Kysely<Database>, accountId: number, entity: Described): Promise<string | null> {
  if (!entity.incremental) return null;
  const { rows } = await sql<{ since: string | null }>`
    select (least(max(${sql.ref(entity.incremental.sinceColumn)}), current_date) - ${sql.lit(SINCE_MARGIN_DAYS)})::text as since
      from ${sql.table(entity.name)} where account_id = ${accountId} and deleted_at is null`.execute(db);
  return rows[0]?.since ?? null;
}

/**
 * Records a complete pull and places the cursor of the next incremental one (see nextSince).
 * `reconcileNext` (a record the mirror holds could not be found) clears the cursor, so the next
 * pull is a full one. A full pull also records when it finished (what sweeps and job checks go by).
 */
export async function recordCompletePull(
  db: Kysely<Database>,
  accountId: number,
  entity: Described,
  runId: number,
  plan: PullPlan,
  reconcileNext: boolean,
): Promise<void> {
  const cursor = reconcileNext ? null : await nextSince(db, accountId, entity);
  if (plan.mode === 'incremental') {
    await db
      .updateTable('entity_pulls')
      .set({ since_cursor: cursor })
      .where('account_id', '=', accountId)
      .where('entity', '=', entity.name)
      .execute();
    return;
  }
  const values = { last_complete_at: sql<Date>`clock_timestamp()`, last_complete_run_id: runId, since_cursor: cursor };
  await db
    .insertInto('entity_pulls')
    .values({ account_id: accountId, entity: entity.name, ...values })
    .onConflict((oc) => oc.columns(['account_id', 'entity']).doUpdateSet(values))
    .execute();
}
