/**
 * The bookkeeping tables: `sync_runs` (one row per pull), `changes` (one row per detected change
 * of a mirrored record) and `jobs` (queued outbound actions), with the trigger that wakes a
 * waiting job runner. The tables' types are in src/db/schema.ts.
 */
import { sql, type Kysely } from 'kysely';

/** One statement a string: the embedded database runs a single statement per call. */
const statements = [
  `
    create table sync_runs (
      id            bigserial primary key,
      kind          text not null check (kind in ('backfill', 'sync', 'refresh')),
      status        text not null default 'running' check (status in ('running', 'succeeded', 'failed', 'partial')),
      entities      text[] not null default '{}',
      started_at    timestamptz not null default now(),
      finished_at   timestamptz,
      counts        jsonb not null default '{}',
      requests_made integer not null default 0,
      error         text
    )
  `,
  `
    create index sync_runs_started_at on sync_runs (started_at desc)
  `,
  `
    create table changes (
      id             bigserial primary key,
      sync_run_id    bigint references sync_runs (id) on delete set null,
      entity         text not null,
      entity_id      text not null,
      op             text not null check (op in ('insert', 'update', 'delete', 'restore')),
      changed_fields text[],
      before         jsonb,
      after          jsonb,
      detected_at    timestamptz not null default now()
    )
  `,
  `
    create index changes_entity on changes (entity, entity_id)
  `,
  `
    create index changes_detected_at on changes (detected_at)
  `,
  `
    create index changes_sync_run on changes (sync_run_id)
  `,
  `
    create table jobs (
      id              bigserial primary key,
      kind            text not null,
      payload         jsonb not null default '{}',
      status          text not null default 'queued'
                      check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted')),
      attempts        integer not null default 0,
      max_attempts    integer not null default 5 check (max_attempts > 0),
      run_after       timestamptz not null default now(),
      idempotency_key text unique,
      result          jsonb,
      last_error      text,
      errors          jsonb not null default '[]',
      created_at      timestamptz not null default now(),
      started_at      timestamptz,
      finished_at     timestamptz
    )
  `,
  `
    -- The runner's claim query reads this index: runnable jobs in order.
    create index jobs_runnable on jobs (run_after, id) where status = 'queued'
  `,
  `
    create index jobs_status on jobs (status)
  `,
  `
    -- Wake a waiting runner as soon as a job is queued (by the CLI or by plain SQL).
    create function jobs_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify(tg_table_schema || '_jobs', new.id::text);
      return null;
    end
    $$
  `,
  `
    create trigger jobs_notify after insert or update of status, run_after on jobs
      for each row when (new.status = 'queued') execute function jobs_notify()
  `,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
