/**
 * One row per account for `accounts list`: its state, its last complete pull, its queue and what
 * needs a person, counted per account from the bookkeeping tables in one statement (each table
 * leads its key with `account_id`, so every group is read from an index range). The problems are
 * those src/db/attention.ts knows for one account, plus the account's own state.
 */
import { sql, type Kysely } from 'kysely';
import type { AccountState, Database } from '../db/schema.js';
import { plural, relativeTime } from '../format.js';

/** Failed jobs stay failed (only a retry moves them): the list counts the recent ones. */
export const FAILED_JOBS_DAYS = 7;

export interface AccountOverview {
  id: number;
  name: string;
  state: AccountState;
  state_reason: string | null;
  /** When the last pull that ended `succeeded` (complete and exact) finished; null: never. */
  last_complete_sync_at: Date | null;
  sync_age_seconds: number | null;
  queued_jobs: number;
  running_jobs: number;
  failed_jobs: number;
  interrupted_jobs: number;
  held_deletes: number;
  rejected_values: number;
  /** The status of the last pull that is over (null: none yet). */
  last_pull_status: string | null;
  /** The entities whose list that pull could not read completely. */
  failing_lists: string[];
}

/**
 * Per account, in name order. A failing list is an entity the last finished pull names in its
 * error: the sync engine writes each entity's failure as `entity: message`, joined by `; `.
 */
export async function accountsOverview(db: Kysely<Database>, onlyId?: number): Promise<AccountOverview[]> {
  // One account (`accounts show`): each group reads that account's index range only.
  const only = onlyId === undefined ? sql`true` : sql`account_id = ${onlyId}`;
  const { rows } = await sql<AccountOverview>`
    with pulls as (
      select account_id, max(finished_at) filter (where status = 'succeeded') as last_complete_sync_at
        from sync_runs where kind in ('backfill', 'sync') and ${only} group by account_id),
    last_pull as (
      select distinct on (account_id) account_id, status, entities, error
        from sync_runs where kind in ('backfill', 'sync') and status <> 'running' and ${only}
       order by account_id, id desc),
    queue as (
      select account_id,
             count(*) filter (where status = 'queued')::int as queued,
             count(*) filter (where status = 'running')::int as running,
             count(*) filter (where status = 'failed'
                               and finished_at > now() - make_interval(days => ${FAILED_JOBS_DAYS}))::int as failed,
             count(*) filter (where status = 'interrupted')::int as interrupted
        from jobs where ${only} group by account_id),
    held as (select account_id, count(*)::int as n from held_deletes where ${only} group by account_id),
    rejected as (select account_id, count(*)::int as n from rejected_values where ${only} group by account_id)
    select a.id, a.name, a.state, a.state_reason, p.last_complete_sync_at,
           extract(epoch from now() - p.last_complete_sync_at)::float8 as sync_age_seconds,
           coalesce(q.queued, 0) as queued_jobs, coalesce(q.running, 0) as running_jobs,
           coalesce(q.failed, 0) as failed_jobs, coalesce(q.interrupted, 0) as interrupted_jobs,
           coalesce(h.n, 0) as held_deletes, coalesce(r.n, 0) as rejected_values,
           l.status as last_pull_status,
           coalesce(array(select e from unnest(l.entities) e
                           where l.error ~ ('(^|; )' || e || ': ') order by e), '{}') as failing_lists
      from accounts a
      left join pulls p on p.account_id = a.id
      left join last_pull l on l.account_id = a.id
      left join queue q on q.account_id = a.id
      left join held h on h.account_id = a.id
      left join rejected r on r.account_id = a.id
     where ${onlyId === undefined ? sql`true` : sql`a.id = ${onlyId}`}
     order by a.name`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/** `12 min`, `3 h`, `2 d`: how long ago, without the "ago" (the column says it). */
export function ageText(seconds: number | null): string {
  if (seconds === null) return '';
  return relativeTime(new Date(0), Math.max(0, seconds) * 1000).replace(/ ago$/, '');
}

/** `paused by a person on …` says its state already; `refused: the service answered 401` does not. */
function stateProblem({ state, state_reason: reason }: AccountOverview): string {
  if (!reason) return state;
  return reason.startsWith(state) ? reason : `${state}: ${reason}`;
}

/** What needs a person, as one line: the state's reason first, then counts of things to look at. */
export function problemsText(row: AccountOverview): string {
  const problems: string[] = [];
  if (row.state !== 'active') problems.push(stateProblem(row));
  if (row.failing_lists.length > 0) problems.push(`failing lists: ${row.failing_lists.join(', ')}`);
  else if (row.last_pull_status === 'failed') problems.push('last pull failed');
  if (row.held_deletes > 0) problems.push(plural(row.held_deletes, 'held delete'));
  if (row.rejected_values > 0) problems.push(plural(row.rejected_values, 'rejected value'));
  if (row.failed_jobs > 0) problems.push(`${plural(row.failed_jobs, 'failed job')} (${FAILED_JOBS_DAYS} d)`);
  if (row.interrupted_jobs > 0) problems.push(plural(row.interrupted_jobs, 'interrupted job'));
  return problems.join('; ');
}

/** The table a person reads: name, state, last complete sync, its age, queue, problems. */
export function overviewTableRows(rows: readonly AccountOverview[]): Record<string, unknown>[] {
  return rows.map((row) => ({
    name: row.name,
    state: row.state,
    last_complete_sync: row.last_complete_sync_at,
    age: ageText(row.sync_age_seconds),
    queue: row.queued_jobs,
    problems: problemsText(row),
  }));
}

/** Every field, for programs (CSV, JSON): the counts as numbers, the problems line too. */
export function overviewDataRows(rows: readonly AccountOverview[]): Record<string, unknown>[] {
  return rows.map((row) => {
    const { id, ...fields } = row;
    return { ...fields, problems: problemsText(row) };
  });
}
