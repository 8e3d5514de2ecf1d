/**
 * The fleet's leader in Postgres (`fleet_leader`, migration 0021): one row naming the daemon that
 * runs the maintenance duties and until when. Asking to lead is one statement that takes the row
 * when it is free or run out and renews it when it is the caller's own; anyone else's live lease
 * is left alone. All times are the database's, so the daemons' clocks need not agree.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';

export interface Leadership {
  /** Whether the caller leads now (until `expiresAt`). */
  leads: boolean;
  /** The leading daemon, whoever it is (undefined: none, or the lease ran out). */
  leader: string | undefined;
}

/** Takes or renews the lead for `daemonId` for `leaseSeconds`, unless another daemon's lease lives. */
export async function askToLead(db: Kysely<Database>, daemonId: string, leaseSeconds: number): Promise<Leadership> {
  const { rows } = await sql<{ daemon_id: string; leads: boolean }>`
    with asked as (
      insert into fleet_leader as f (duty, daemon_id, expires_at)
      values ('maintenance', ${daemonId}, now() + make_interval(secs => ${leaseSeconds}))
      on conflict (duty) do update
         set daemon_id = excluded.daemon_id,
             elected_at = case when f.daemon_id = excluded.daemon_id then f.elected_at else now() end,
             renewed_at = now(),
             expires_at = excluded.expires_at
       where f.daemon_id = excluded.daemon_id or f.expires_at < now()
      returning f.daemon_id, true as leads
    )
    select daemon_id, leads from asked
    union all
    select daemon_id, false from fleet_leader where expires_at >= now() and not exists (select from asked)`.execute(db);
  const row = rows[0];
  return { leads: row?.leads === true, leader: row?.daemon_id };
}

/** Gives the lead up (a daemon that stops): the next daemon to ask takes it at once. */
export async function resignLead(db: Kysely<Database>, daemonId: string): Promise<void> {
  await sql`delete from fleet_leader where daemon_id = ${daemonId}`.execute(db);
}

/** The leading daemon now, if its lease lives; for `status`, tests and people looking. */
export async function currentLeader(
  db: Kysely<Database>,
): Promise<{ daemonId: string; electedAt: Date; expiresAt: Date } | undefined> {
  const { rows } = await sql<{ daemon_id: string; elected_at: Date; expires_at: Date }>`
    select daemon_id, elected_at, expires_at from fleet_leader where expires_at >= now()`.execute(db);
  const row = rows[0];
  return row ? { daemonId: row.daemon_id, electedAt: row.elected_at, expiresAt: row.expires_at } : undefined;
}
