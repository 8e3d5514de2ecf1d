/**
 * A fleet of daemons on one database: the daemons alive (`daemons`, with their heartbeats), and
 * each account's work as a row (`account_leases`): when its next pull is due, which daemon holds
 * it and until when, and whether it is parked (its quota spent). A daemon claims due accounts with
 * `FOR UPDATE SKIP LOCKED`, renews what it holds with its heartbeat, and releases each account when
 * its work is done; a daemon that dies or stalls loses its accounts when its leases run out.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `alter table accounts add column sync_interval interval check (sync_interval >= interval '10 seconds')`,
  `comment on column accounts.sync_interval is 'how fresh the daemons keep this account; empty: the SYNC_INTERVAL setting'`,
  `
    create table daemons (
      id           text primary key,
      host         text not null,
      pid          integer not null,
      version      text not null,
      started_at   timestamptz not null default now(),
      heartbeat_at timestamptz not null default now(),
      stopped_at   timestamptz,
      stop_reason  text
    )`,
  `comment on table daemons is 'Every daemon that served this mirror: alive while its heartbeat is younger than LEASE_SECONDS'`,
  `comment on column daemons.id is 'host, process id and a random part: the application_name of its database sessions'`,
  `comment on column daemons.heartbeat_at is 'when it last said it is alive (renewing its leases)'`,
  `comment on column daemons.stopped_at is 'when it stopped, or was found dead by another daemon'`,
  `
    create table account_leases (
      due_at        timestamptz not null default '-infinity',
      daemon_id     text,
      leased_until  timestamptz,
      parked_until  timestamptz,
      parked_reason text,
      account_id    integer primary key references accounts (id) on delete cascade
    )`,
  // The claim reads the due, unleased accounts, most overdue first.
  `create index account_leases_due on account_leases (due_at)`,
  `comment on table account_leases is 'The work of each account as the daemons share it: when its next pull is due, who holds it, whether it is parked'`,
  `comment on column account_leases.due_at is 'when its next scheduled pull is due (-infinity: at once)'`,
  `comment on column account_leases.daemon_id is 'the daemon working on the account (daemons.id); empty: none'`,
  `comment on column account_leases.leased_until is 'until when that daemon holds it, unless it renews'`,
  `comment on column account_leases.parked_until is 'no work for the account before this time (its hourly quota was spent)'`,
  `comment on column account_leases.parked_reason is 'why it is parked'`,
  `insert into account_leases (account_id) select id from accounts`,
  `
    create function account_lease_row() returns trigger language plpgsql as $$
    begin
      execute format('insert into %I.account_leases (account_id) values ($1) on conflict do nothing', tg_table_schema)
        using new.id;
      return null;
    end
    $$`,
  `create trigger account_lease_row after insert on accounts for each row execute function account_lease_row()`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
