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
import { sql, type Kysely } from 'kysely';
import { jsonb } from './json.js';
import type { Database, SyncRunKind, SyncRunStatus } from './schema.js';

/** The kinds of run that pull lists (a refresh reads single records for a job). */
const PULLS: readonly SyncRunKind[] = ['backfill', 'sync'];

export async function startRun(db: Kysely<Database>, kind: SyncRunKind, entities: readonly string[]): Promise<number> {
  const run = await db
    .insertInto('sync_runs')
    .values({ kind, entities: [...entities] })
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
 * Fails every run of these kinds left `running` by a process that died. Only called under the
 * lock that proves no live process is in such a run.
 */
export async function closeOrphanedRuns(
  db: Kysely<Database>,
  kinds: readonly SyncRunKind[],
  error: string,
): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({ status: 'failed', finished_at: sql`clock_timestamp()`, error })
    .where('status', '=', 'running')
    .where('kind', 'in', kinds)
    .execute();
}

/** Seconds since the last pull started (null: never), for the daemon's decision to pull at once. */
export async function secondsSinceLastPullStarted(db: Kysely<Database>): Promise<number | null> {
  const { rows } = await sql<{ age: number | null }>`
    select extract(epoch from now() - max(started_at))::float8 as age
      from sync_runs where kind = any(${sql.val(PULLS)}::text[])`.execute(db);
  return rows[0]?.age ?? null;
}

/** When the last pull that ended `succeeded` finished, and how many seconds ago by the database's clock; null: never. */
export async function lastSucceededPull(db: Kysely<Database>): Promise<{ at: Date; ageSeconds: number } | null> {
  const { rows } = await sql<{ at: Date | null; age: number | null }>`
    select max(finished_at) as at, extract(epoch from now() - max(finished_at))::float8 as age from sync_runs
     where kind = any(${sql.val(PULLS)}::text[]) and status = 'succeeded'`.execute(db);
  const row = rows[0];
  return row?.at ? { at: row.at, ageSeconds: Number(row.age) } : null;
}

/** When the last pull that ended `succeeded` (complete and exact) finished; null: never. */
export async function lastSucceededPullAt(db: Kysely<Database>): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | null }>`
    select max(finished_at) as at from sync_runs
     where kind = any(${sql.val(PULLS)}::text[]) and status = 'succeeded'`.execute(db);
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
export async function lastFinishedPull(db: Kysely<Database>): Promise<FinishedPull | null> {
  const { rows } = await sql<{
    id: number;
    kind: string;
    status: string;
    finished_at: Date | null;
    age: number | null;
  }>`
    select id, kind, status, finished_at, extract(epoch from now() - finished_at)::float8 as age
      from sync_runs where kind = any(${sql.val(PULLS)}::text[]) and status <> 'running'
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
export async function recentRuns(db: Kysely<Database>, limit: number): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select id as run, kind, status, started_at,
           round(extract(epoch from finished_at - started_at)::numeric, 1)::float8 as seconds,
           (select coalesce(sum((c.value ->> 'fetched')::int), 0) from jsonb_each(counts) c)::int as fetched,
           (select coalesce(sum((c.value ->> 'inserted')::int), 0) from jsonb_each(counts) c)::int as inserted,
           (select coalesce(sum((c.value ->> 'updated')::int), 0) from jsonb_each(counts) c)::int as updated,
           (select coalesce(sum((c.value ->> 'deleted')::int), 0) from jsonb_each(counts) c)::int as deleted,
           requests_made as requests, error
      from sync_runs order by id desc limit ${limit}`.execute(db);
  return rows;
}

/** The service's rate-limit budget as the last run that saw it left it. */
export async function lastRateLimit(db: Kysely<Database>): Promise<{ remaining: number; seenAt: Date } | null> {
  const { rows } = await sql<{ remaining: number; seen_at: Date }>`
    select rate_limit_remaining as remaining, coalesce(finished_at, started_at) as seen_at from sync_runs
     where rate_limit_remaining is not null order by id desc limit 1`.execute(db);
  return rows[0] ? { remaining: Number(rows[0].remaining), seenAt: rows[0].seen_at } : null;
}
