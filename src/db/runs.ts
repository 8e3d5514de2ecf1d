/**
 * `sync_runs`, the record of every pull: starting and finishing a run, closing runs left
 * `running`, and what `status`, `/healthz`, `/metrics` and the daemon read back (the last pulls,
 * their age, the rate-limit budget last seen). Apart from the sync engine so that readers load
 * none of it.
 *
 * Every time written and every age read is the database's clock (`started_at` defaults to
 * `now()`, `finished_at` is `clock_timestamp()`, ages are `now() - …`), so a process whose clock
 * is off or steps never skews them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import { jsonb } from './json.js';
import type { Database, SyncRunKind, SyncRunStatus } from './schema.js';
import { inScope, type AccountScope } from './scope.js';

/** The kinds of run that pull lists (a refresh reads single records for a job). */
export const PULLS: readonly SyncRunKind[] = ['backfill', 'sync'];

export async function startRun(
  db: Kysely<Database>,
  accountId: number,
  kind: SyncRunKind,
  entities: readonly string[],
): Promise<number> {
  const run = await db
    .insertInto('sync_runs')
    .values({ account_id: accountId, kind, entities: [...entities] })
    .returning(['id'])
    .executeTakeFirstOrThrow();
  return Number(run.id);
}

/** The counts so far, written after each entity so that a run cut short still shows them. */
export async function recordRunProgress(
  db: Kysely<Database>,
  runId: number,
  counts: Record<string, unknown>,
  requestsMade: number,
): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({ counts: jsonb(counts), requests_made: requestsMade })
    .where('id', '=', runId)
    .execute();
}

export interface RunEnd {
  status: SyncRunStatus;
  error: string | null;
  counts: Record<string, unknown>;
  requestsMade: number;
  rateLimitRemaining: number | null;
}

export async function finishRun(db: Kysely<Database>, runId: number, end: RunEnd): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({
      status: end.status,
      finished_at: sql`clock_timestamp()`,
      error: end.error,
      counts: jsonb(end.counts),
      requests_made: end.requestsMade,
      rate_limit_remaining: end.rateLimitRemaining,
    })
    .where('id', '=', runId)
    .execute();
}

/** Closes one run that is still `running`: stopped on purpose, or whose connection was lost. */
export async function closeRunIfRunning(
  db: Kysely<Database>,
  runId: number,
  status: SyncRunStatus,
  error: string,
): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({ status, finished_at: sql`clock_timestamp()`, error })
    .where('id', '=', runId)
    .where('status', '=', 'running')
    .execute();
}

/**
 * The error of a pull closed by a later one because it was left `running`: its process stopped
 * (killed, crashed) or, alive, could not write to the database long enough to record the end.
 */
export const ABANDONED_PULL =
  'left running: its process stopped, or could not record how the run ended, before the next run began';

/**
 * Ends of this process's runs that the database did not take yet (a lost connection, a full disk),
 * by schema and run id: run ids are a schema's own, and one process (the tests) may serve several.
 */
const unrecordedEnds = new Map<string, Map<number, { status: SyncRunStatus; error: string }>>();

/** Waits before each attempt made at once: a dropped connection is replaced at once, a restart takes seconds. */
const RETRY_AT_ONCE_MS = [0, 250, 1_000, 2_000];
/** Then in the background while the process lives (not keeping it alive): about half an hour in all. */
const RETRY_LATER_MS = [5_000, 10_000, 20_000, 40_000, ...Array<number>(28).fill(60_000)];

/**
 * Records how a run ended (`failed`, `interrupted`) when the database may not take the write at
 * once (the run's connection was lost, the disk is full): tries a few times over about three
 * seconds, then keeps trying in the background, and again when this process starts its next run
 * (recordPendingRunEnds), so a live process never leaves its run `running`. Overrides the label of
 * a run another process meanwhile closed as abandoned. True when the end is recorded now.
 */
export async function recordRunEnd(
  db: Kysely<Database>,
  schema: string,
  runId: number,
  status: SyncRunStatus,
  error: string,
): Promise<boolean> {
  if (!unrecordedEnds.has(schema)) unrecordedEnds.set(schema, new Map());
  unrecordedEnds.get(schema)!.set(runId, { status, error });
  for (const wait of RETRY_AT_ONCE_MS) {
    if (wait > 0) await sleep(wait);
    if (await tryRecordEnd(db, schema, runId)) return true;
  }
  void retryInBackground(db, schema, runId);
  return false;
}

/** Records the ends of the schema's runs this process could not record yet; called before a run starts. */
export async function recordPendingRunEnds(db: Kysely<Database>, schema: string): Promise<void> {
  for (const runId of [...(unrecordedEnds.get(schema)?.keys() ?? [])]) await tryRecordEnd(db, schema, runId);
}

async function retryInBackground(db: Kysely<Database>, schema: string, runId: number): Promise<void> {
  for (const wait of RETRY_LATER_MS) {
    await sleep(wait, undefined, { ref: false });
    if (await tryRecordEnd(db, schema, runId)) return;
  }
}

/** One attempt; true when the end is recorded (by this attempt or an earlier one). */
async function tryRecordEnd(db: Kysely<Database>, schema: string, runId: number): Promise<boolean> {
  const end = unrecordedEnds.get(schema)?.get(runId);
  if (!end) return true;
  try {
    await db
      .updateTable('sync_runs')
      .set({ status: end.status, finished_at: new Date(), error: end.error })
      .where('id', '=', runId)
      .where((eb) => eb.or([eb('status', '=', 'running'), eb('error', '=', ABANDONED_PULL)]))
      .execute();
  } catch {
    return false;
  }
  unrecordedEnds.get(schema)?.delete(runId);
  return true;
}

/**
 * Fails every run of these kinds left `running`. Only called under the lock that proves no
 * process is in such a run any more: its process died, or could not record the end (see
 * recordRunEnd).
 */
export async function closeOrphanedRuns(
  db: Kysely<Database>,
  accountId: number,
  kinds: readonly SyncRunKind[],
  error: string,
): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({ status: 'failed', finished_at: sql`clock_timestamp()`, error })
    .where('account_id', '=', accountId)
    .where('status', '=', 'running')
    .where('kind', 'in', kinds)
    .execute();
}

/** Seconds since the last pull started (null: never), for the daemon's decision to pull at once. */
export async function secondsSinceLastPullStarted(db: Kysely<Database>, scope: AccountScope): Promise<number | null> {
  const { rows } = await sql<{ age: number | null }>`
    select extract(epoch from now() - max(started_at))::float8 as age
      from sync_runs where ${inScope(scope)} and kind = any(${sql.val(PULLS)}::text[])`.execute(db);
  return rows[0]?.age ?? null;
}

/** When the last pull that ended `succeeded` finished, and how many seconds ago by the database's clock; null: never. */
export async function lastSucceededPull(
  db: Kysely<Database>,
  scope: AccountScope,
): Promise<{ at: Date; ageSeconds: number } | null> {
  const { rows } = await sql<{ at: Date | null; age: number | null }>`
    select max(finished_at) as at, extract(epoch from now() - max(finished_at))::float8 as age from sync_runs
     where ${inScope(scope)} and kind = any(${sql.val(PULLS)}::text[]) and status = 'succeeded'`.execute(db);
  const row = rows[0];
  return row?.at ? { at: row.at, ageSeconds: Number(row.age) } : null;
}

/** When the last pull that ended `succeeded` (complete and exact) finished; null: never. */
export async function lastSucceededPullAt(db: Kysely<Database>, scope: AccountScope): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | null }>`
    select max(finished_at) as at from sync_runs
     where ${inScope(scope)} and kind = any(${sql.val(PULLS)}::text[]) and status = 'succeeded'`.execute(db);
  return rows[0]?.at ?? null;
}

export interface FinishedPull {
  id: number;
  kind: string;
  status: string;
  finishedAt: string | null;
  ageSeconds: number | null;
}

/** The last pull that is over, however it ended. */
export async function lastFinishedPull(db: Kysely<Database>, scope: AccountScope): Promise<FinishedPull | null> {
  const { rows } = await sql<{
    id: number;
    kind: string;
    status: string;
    finished_at: Date | null;
    age: number | null;
  }>`
    select id, kind, status, finished_at, extract(epoch from now() - finished_at)::float8 as age
      from sync_runs where ${inScope(scope)} and kind = any(${sql.val(PULLS)}::text[]) and status <> 'running'
     order by id desc limit 1`.execute(db);
  const last = rows[0];
  if (!last) return null;
  return {
    id: Number(last.id),
    kind: last.kind,
    status: last.status,
    finishedAt: last.finished_at?.toISOString() ?? null,
    ageSeconds: last.age === null ? null : Math.round(last.age),
  };
}

/** The newest runs of any kind, with their counts summed over the entities. */
export async function recentRuns(
  db: Kysely<Database>,
  scope: AccountScope,
  limit: number,
): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select id as run, kind, status, started_at,
           round(extract(epoch from finished_at - started_at)::numeric, 1)::float8 as seconds,
           (select coalesce(sum((c.value ->> 'fetched')::int), 0) from jsonb_each(counts) c)::int as fetched,
           (select coalesce(sum((c.value ->> 'inserted')::int), 0) from jsonb_each(counts) c)::int as inserted,
           (select coalesce(sum((c.value ->> 'updated')::int), 0) from jsonb_each(counts) c)::int as updated,
           (select coalesce(sum((c.value ->> 'deleted')::int), 0) from jsonb_each(counts) c)::int as deleted,
           requests_made as requests, error
      from sync_runs where ${inScope(scope)} order by id desc limit ${limit}`.execute(db);
  return rows;
}

/** The service's rate-limit budget as the last run that saw it left it. */
export async function lastRateLimit(
  db: Kysely<Database>,
  scope: AccountScope,
): Promise<{ remaining: number; seenAt: Date } | null> {
  const { rows } = await sql<{ remaining: number; seen_at: Date }>`
    select rate_limit_remaining as remaining, coalesce(finished_at, started_at) as seen_at from sync_runs
     where ${inScope(scope)} and rate_limit_remaining is not null order by id desc limit 1`.execute(db);
  return rows[0] ? { remaining: Number(rows[0].remaining), seenAt: rows[0].seen_at } : null;
}

/**
 * When the last run saw the service's hourly rate limit spent (no request left), if that was
 * within the hour; null otherwise. The budget comes back with the next hour.
 */
export async function rateLimitSpentAt(db: Kysely<Database>, scope: AccountScope): Promise<Date | null> {
  const { rows } = await sql<{ seen_at: Date }>`
    select seen_at from (
      select rate_limit_remaining as remaining, coalesce(finished_at, started_at) as seen_at from sync_runs
       where ${inScope(scope)} and rate_limit_remaining is not null order by id desc limit 1) as last
     where remaining <= 0 and seen_at > now() - interval '1 hour'`.execute(db);
  return rows[0]?.seen_at ?? null;
}

export interface RunDetail {
  id: string;
  kind: string;
  status: string;
  started_at: Date;
  seconds: number | null;
  requests_made: number | null;
  error: string | null;
  counts: Record<string, Record<string, number>> | null;
}

/** The newest runs of any kind with their counts per entity. */
export async function runDetails(db: Kysely<Database>, scope: AccountScope, limit: number): Promise<RunDetail[]> {
  const { rows } = await sql<RunDetail>`
    select id, kind, status, started_at, extract(epoch from finished_at - started_at)::float8 as seconds,
           requests_made, error, counts
      from sync_runs where ${inScope(scope)} order by id desc limit ${limit}`.execute(db);
  return rows;
}

export interface DayActivity {
  day: string;
  fetched: number;
  changes: number;
  failures: number;
}

/** Per day of the last `days` (today included): records fetched, changes detected, runs that failed. */
export async function dailyActivity(db: Kysely<Database>, scope: AccountScope, days: number): Promise<DayActivity[]> {
  const back = days - 1;
  const { rows } = await sql<DayActivity>`
    with runs as (
      select started_at::date as day,
             count(*) filter (where status not in ('succeeded', 'running'))::int as failures,
             coalesce(sum((select sum((entity.value ->> 'fetched')::bigint) from jsonb_each(counts) as entity)), 0)::float8 as fetched
        from sync_runs where ${inScope(scope)} and started_at >= current_date - ${back}::int group by 1),
    changed as (
      select detected_at::date as day, count(*)::int as changes
        from changes where ${inScope(scope)} and detected_at >= current_date - ${back}::int group by 1)
    select to_char(d, 'YYYY-MM-DD') as day, coalesce(r.fetched, 0) as fetched,
           coalesce(c.changes, 0) as changes, coalesce(r.failures, 0) as failures
      from generate_series(current_date - ${back}::int, current_date, interval '1 day') as d
      left join runs r on r.day = d::date left join changed c on c.day = d::date
     order by d`.execute(db);
  return rows.map((row) => ({
    ...row,
    fetched: Number(row.fetched),
    changes: Number(row.changes),
    failures: Number(row.failures),
  }));
}
