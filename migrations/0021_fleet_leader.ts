/**
 * One leader for the fleet's maintenance (burying dead daemons, the orphan sweep, the overdue
 * pass, SYNC_CRON's all-due): a lease row naming the daemon that leads and until when. A daemon
 * takes it when it is free or run out, and the leader renews it at its heartbeat, so that when the
 * leader dies the next daemon takes it within a lease.
 *
 * Taking or renewing it needs INSERT or UPDATE on the table, which no confined or reporting role is
 * granted (grant_account gives SELECT on every table); and, as for `notification_channels`, only a
 * role that may update `jobs` reads its row, so those roles see none.
 *
 * A literal snapshot: it names tables and columns as they are at this migration.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `
    create table fleet_leader (
      duty       text primary key check (duty = 'maintenance'),
      daemon_id  text not null,
      elected_at timestamptz not null default now(),
      renewed_at timestamptz not null default now(),
      expires_at timestamptz not null
    )`,
  `comment on table fleet_leader is 'The daemon that runs the fleet''s maintenance (burying dead daemons, the orphan sweep, the overdue pass, SYNC_CRON''s all-due), until its lease runs out'`,
  `comment on column fleet_leader.duty is 'maintenance (the one row)'`,
  `comment on column fleet_leader.daemon_id is 'the leading daemon (daemons.id)'`,
  `comment on column fleet_leader.elected_at is 'when that daemon took the lead'`,
  `comment on column fleet_leader.renewed_at is 'when it last renewed its lease (at its heartbeat)'`,
  `comment on column fleet_leader.expires_at is 'until when it leads unless it renews; after that the next daemon to ask takes the lead'`,
  `alter table fleet_leader enable row level security`,
  `create policy leader_readers on fleet_leader for select using (has_table_privilege(current_user, 'jobs'::regclass, 'UPDATE'))`,
  `comment on policy leader_readers on fleet_leader is 'Only a role that may update jobs reads the leader'`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
