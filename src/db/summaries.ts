/**
 * Counts and lists for `status`, the console, `/healthz` and `/metrics`: one row per account, the
 * queue by status, the jobs of a scope and those that touched a record, the rows of each mirror
 * table. Apart from the job kinds and the sync engine so that commands that only read load neither.
 */
import { sql, type Kysely } from 'kysely';
import { ENTITY_NAMES } from '../catalog/index.js';
import type { AccountState, Database, JobStatus } from './schema.js';
import { inScope, type AccountScope } from './scope.js';

/** Jobs per status (statuses without jobs left out). */
export async function countJobsByStatus(
  db: Kysely<Database>,
  scope: AccountScope,
): Promise<Partial<Record<JobStatus, number>>> {
  const { rows } = await sql<{ status: JobStatus; n: number }>`
    select status, count(*)::int as n from jobs where ${inScope(scope)} group by status order by status`.execute(db);
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
}

/** Live and deleted rows of every mirror table in the scope, in pull order. */
export async function mirrorCounts(
  db: Kysely<Database>,
  scope: AccountScope,
): Promise<{ table: string; live: number; deleted: number }[]> {
  return Promise.all(
    ENTITY_NAMES.map(async (table) => {
      const { rows } = await sql<{ live: number; deleted: number }>`
        select count(*) filter (where deleted_at is null)::int as live, count(deleted_at)::int as deleted
          from ${sql.table(table)} where ${inScope(scope)}`.execute(db);
      return { table, live: Number(rows[0]!.live), deleted: Number(rows[0]!.deleted) };
    }),
  );
}

export interface JobListRow {
  id: number;
  account_id: number;
  /** The account's name. */
  account: string;
  kind: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_after: Date;
  created_at: Date;
  finished_at: Date | null;
  last_error: string | null;
}

/** The jobs of the scope, newest first, filtered by status and kind, with their account's name. */
export async function jobsInScope(
  db: Kysely<Database>,
  scope: AccountScope,
  filter: { status?: JobStatus; kind?: string; limit: number; offset: number },
): Promise<JobListRow[]> {
  const status = filter.status ?? null;
  const kind = filter.kind ?? null;
  const { rows } = await sql<JobListRow>`
    select j.id, j.account_id, a.name as account, j.kind, j.status, j.attempts, j.max_attempts, j.run_after,
           j.created_at, j.finished_at, j.last_error
      from jobs j join accounts a on a.id = j.account_id
     where ${inScope(scope, 'j.account_id')}
       and (${status}::text is null or j.status = ${status}) and (${kind}::text is null or j.kind = ${kind})
     order by j.id desc limit ${filter.limit} offset ${filter.offset}`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id), account_id: Number(row.account_id) }));
}

/**
 * The account's newest jobs of these kinds whose payload names the record (`id`, `clientnr` or
 * among `ids`): a record's id is unique only within its account.
 */
export async function jobsTouchingRecord(
  db: Kysely<Database>,
  accountId: number,
  kinds: readonly string[],
  id: number,
): Promise<{ id: string; kind: string; status: JobStatus; created_at: Date; last_error: string | null }[]> {
  if (kinds.length === 0) return [];
  const idText = String(id);
  const { rows } = await sql<{
    id: string;
    kind: string;
    status: JobStatus;
    created_at: Date;
    last_error: string | null;
  }>`
    select id, kind, status, created_at, last_error from jobs
     where account_id = ${accountId} and kind in (${sql.join(kinds)})
       and (payload ->> 'id' = ${idText} or payload ->> 'clientnr' = ${idText} or payload -> 'ids' @> ${JSON.stringify([id])}::jsonb)
     order by id desc limit 50`.execute(db);
  return rows;
}

/** Failed jobs stay failed (only a retry moves them): summaries count the recent ones. */
export const FAILED_JOBS_DAYS = 7;

export interface AccountSummary {
  id: number;
  name: string;
  state: AccountState;
  state_reason: string | null;
  /** When the last pull that ended `succeeded` (complete and exact) finished; null: never. */
  last_complete_sync_at: Date | null;
  /** Its age by the database's clock. */
  sync_age_seconds: number | null;
  /** Live records in all mirror tables. */
  records: number;
  queued_jobs: number;
  running_jobs: number;
  /** Jobs failed in the last FAILED_JOBS_DAYS days. */
  failed_jobs: number;
  interrupted_jobs: number;
  held_deletes: number;
  rejected_values: number;
  /** The status of the last pull that is over (null: none yet). */
  last_pull_status: string | null;
  /** The entities whose list that pull could not read completely. */
  failing_lists: string[];
  /** The account's own freshness target (`accounts.sync_interval`); null: the SYNC_INTERVAL setting. */
  sync_interval_seconds: number | null;
  /** While its quota is spent: until when no daemon works on it, and why (see account_leases). */
  parked_until: Date | null;
  parked_reason: string | null;
  /** Full pulls under way over several runs (pull_cursors): `clients: 59500 read`, by entity. */
  pulls_under_way: string[];
}

/** Live rows of one account in every mirror table, as one SQL sum. */
const LIVE_RECORDS = sql.join(
  ENTITY_NAMES.map(
    (table) => sql`(select count(*) from ${sql.table(table)} t where t.account_id = a.id and t.deleted_at is null)`,
  ),
  sql` + `,
);

/**
 * One row per account of the scope, in name order, in one statement (every table leads its key
 * with `account_id`, so each count reads one index range). A failing list is an entity the last
 * finished pull names in its error: the sync engine writes an entity's failure as
 * `entity: message`, joined by `; ` (a pull that gave way, `entity: gave way …`, did not fail,
 * nor did one that only held deletes, `entity: 3 deletes held …`: those are the held deletes).
 */
export async function accountSummaries(db: Kysely<Database>, scope: AccountScope): Promise<AccountSummary[]> {
  const { rows } = await sql<AccountSummary>`
    select a.id, a.name, a.state, a.state_reason, p.at as last_complete_sync_at,
           extract(epoch from now() - p.at)::float8 as sync_age_seconds,
           (${LIVE_RECORDS})::float8 as records,
           (select count(*) from jobs j where j.account_id = a.id and j.status = 'queued')::int as queued_jobs,
           (select count(*) from jobs j where j.account_id = a.id and j.status = 'running')::int as running_jobs,
           (select count(*) from jobs j where j.account_id = a.id and j.status = 'failed'
               and j.finished_at > now() - make_interval(days => ${FAILED_JOBS_DAYS}))::int as failed_jobs,
           (select count(*) from jobs j where j.account_id = a.id and j.status = 'interrupted')::int as interrupted_jobs,
           (select count(*) from held_deletes h where h.account_id = a.id)::int as held_deletes,
           (select count(*) from rejected_values r where r.account_id = a.id)::int as rejected_values,
           l.status as last_pull_status,
           coalesce(array(select e from unnest(l.entities) e where l.error ~ ('(^|; )' || e || ': (?!gave way|\d+ deletes held)') order by e), '{}') as failing_lists,
           extract(epoch from a.sync_interval)::float8 as sync_interval_seconds,
           case when w.parked_until > now() then w.parked_until end as parked_until,
           case when w.parked_until > now() then w.parked_reason end as parked_reason,
           array(select c.entity || ': ' || c.fetched || ' read' from pull_cursors c
                  where c.account_id = a.id order by c.entity) as pulls_under_way
      from accounts a
      left join account_leases w on w.account_id = a.id
      left join lateral (
        select max(finished_at) as at from sync_runs s
         where s.account_id = a.id and s.kind in ('backfill', 'sync') and s.status = 'succeeded') p on true
      left join lateral (
        select status, entities, error from sync_runs s
         where s.account_id = a.id and s.kind in ('backfill', 'sync') and s.status <> 'running'
         order by s.id desc limit 1) l on true
     where ${inScope(scope, 'a.id')}
     order by a.name`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id), records: Number(row.records) }));
}
