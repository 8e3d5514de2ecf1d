/**
 * The claim as a range read: each account's lease row says when its work is next due
 * (`work_due_at`, indexed), so that a daemon claims with an index range scan on it instead of
 * computing every account's due time (its oldest queued job, its state, its park) and sorting.
 *
 * `work_due_at` is a stored generated column of the row's own columns: the pull's due time
 * (`due_at`), the park (`parked_until`, `parked_pulls_only`), and two columns that triggers keep
 * true from the other tables — `first_job_at`, the run_after of the account's oldest queued job
 * (from every change of `jobs`, plain SQL included: statement triggers over the changed rows), and
 * `account_active`, whether `accounts.state` is active. It is the first moment the account may be
 * claimed:
 *
 * - not active: empty (never claimed);
 * - parked (all its work): the later of the park's end and the earlier of its pull and first job;
 * - else the earlier of its first job and its pull (held back to the park's end when its pulls
 *   alone are parked).
 *
 * The jobs trigger locks the lease rows it recomputes (in account order) before reading the jobs
 * again, so that two transactions changing one account's jobs at once cannot leave a value that
 * misses one of them: the second reads after the first has committed.
 *
 * A trigger on the lease row itself (BEFORE ROW) would keep scripts/partition-by-account.mjs from
 * partitioning the table; a generated column does not. The functions are security definers, as a
 * confined role may queue jobs but not write account_leases; they name tables through the
 * trigger's schema.
 *
 * A literal snapshot: it names tables and columns as they are at this migration.
 */
import { sql, type Kysely } from 'kysely';

const WORK_DUE = `
  case when not account_active then null
       when parked_until is not null and not parked_pulls_only then greatest(parked_until, least(due_at, first_job_at))
       else least(greatest(due_at, parked_until), first_job_at)
  end`;

const COLUMNS = [
  `alter table account_leases add column first_job_at timestamptz`,
  `alter table account_leases add column account_active boolean not null default true`,
  `update account_leases l set account_active = (a.state = 'active'),
          first_job_at = (select min(j.run_after) from jobs j where j.account_id = l.account_id and j.status = 'queued')
     from accounts a where a.id = l.account_id`,
  `alter table account_leases add column work_due_at timestamptz generated always as (${WORK_DUE}) stored`,
  // The claim: due rows, most overdue first.
  `create index account_leases_work_due on account_leases (work_due_at)`,
  `comment on column account_leases.first_job_at is 'when the oldest queued job of the account may run (its run_after); empty: none queued. Kept by triggers on jobs'`,
  `comment on column account_leases.account_active is 'whether the account is active (accounts.state); kept by a trigger on accounts'`,
  `comment on column account_leases.work_due_at is 'when the account''s work is next due, the first moment a daemon may claim it: the earlier of its pull (held to the park''s end while parked) and its first queued job (held too unless only its pulls are parked); empty: not active'`,
];

/** Recomputes first_job_at for the accounts of the jobs a statement changed that were or are queued. */
const FOLLOW_JOBS = [
  `
    create function account_leases_follow_jobs() returns trigger language plpgsql security definer
      set search_path = pg_catalog, pg_temp as $$
    declare
      touched integer[];
    begin
      if tg_op = 'INSERT' then
        select array_agg(distinct n.account_id order by n.account_id) into touched from new_jobs n where n.status = 'queued';
      elsif tg_op = 'DELETE' then
        select array_agg(distinct o.account_id order by o.account_id) into touched from old_jobs o where o.status = 'queued';
      else
        select array_agg(distinct t.account_id order by t.account_id) into touched
          from (select o.account_id from old_jobs o where o.status = 'queued'
                union all
                select n.account_id from new_jobs n where n.status = 'queued') t;
      end if;
      if touched is null then
        return null;
      end if;
      execute format('select from %I.account_leases where account_id = any ($1) order by account_id for no key update',
                     tg_table_schema) using touched;
      execute format($q$
        update %1$I.account_leases l set first_job_at = f.first_job_at
          from (select t.id, (select min(j.run_after) from %1$I.jobs j where j.account_id = t.id and j.status = 'queued') as first_job_at
                  from unnest($1::integer[]) t (id)) f
         where l.account_id = f.id and l.first_job_at is distinct from f.first_job_at$q$, tg_table_schema) using touched;
      return null;
    end
    $$`,
  `create trigger account_leases_follow_job_inserts after insert on jobs referencing new table as new_jobs
     for each statement execute function account_leases_follow_jobs()`,
  `create trigger account_leases_follow_job_updates after update on jobs referencing old table as old_jobs new table as new_jobs
     for each statement execute function account_leases_follow_jobs()`,
  `create trigger account_leases_follow_job_deletes after delete on jobs referencing old table as old_jobs
     for each statement execute function account_leases_follow_jobs()`,
];

/** `account_active` follows accounts.state; a new account's lease row is made with it. */
const FOLLOW_STATE = [
  `
    create function account_leases_follow_state() returns trigger language plpgsql security definer
      set search_path = pg_catalog, pg_temp as $$
    begin
      execute format('update %I.account_leases set account_active = $2 where account_id = $1 and account_active is distinct from $2', tg_table_schema)
        using new.id, new.state = 'active';
      return null;
    end
    $$`,
  `create trigger account_leases_follow_state after update of state on accounts for each row
     when (old.state is distinct from new.state) execute function account_leases_follow_state()`,
  `
    create or replace function account_lease_row() returns trigger language plpgsql as $$
    begin
      execute format('insert into %I.account_leases (account_id, account_active) values ($1, $2) on conflict do nothing', tg_table_schema)
        using new.id, new.state = 'active';
      return null;
    end
    $$`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of [...COLUMNS, ...FOLLOW_JOBS, ...FOLLOW_STATE]) await sql.raw(statement).execute(db);
}
