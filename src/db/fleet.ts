/**
 * The fleet read back (see src/fleet/leases.ts for how it is written): daemons alive, accounts
 * being worked on, accounts overdue, and parked accounts with why. For `status` and `/metrics`.
 */
import { sql, type Kysely } from 'kysely';
import { PULLS } from './runs.js';
import type { Database } from './schema.js';
import { inScope, type AccountScope } from './scope.js';

export interface FleetStatus {
  /** Daemons whose heartbeat is younger than the lease. */
  daemonsAlive: number;
  /** Accounts of the scope a daemon works on now (a lease not run out). */
  leasesHeld: number;
  /** Active accounts of the scope whose pull is due and that no daemon works on. */
  overdue: number;
  /** Active accounts of the scope without a sync or backfill that succeeded yet. */
  neverComplete: number;
  parked: { account: string; until: Date; reason: string | null }[];
}

/**
 * Each active account's seconds since its last sync or backfill that succeeded (null: none yet),
 * in one statement: what the freshness histogram of /metrics is made of.
 */
export async function pullAges(db: Kysely<Database>): Promise<(number | null)[]> {
  const { rows } = await sql<{ age: number | null }>`
    select (select extract(epoch from now() - max(r.finished_at))::float8 from sync_runs r
             where r.account_id = a.id and r.kind = any(${sql.val(PULLS)}::text[]) and r.status = 'succeeded') as age
      from accounts a where a.state = 'active'`.execute(db);
  return rows.map((row) => row.age);
}

export async function fleetStatus(
  db: Kysely<Database>,
  scope: AccountScope,
  leaseSeconds: number,
): Promise<FleetStatus> {
  const { rows } = await sql<{ alive: number; held: number; overdue: number; never_complete: number }>`
    select (select count(*) from daemons
             where stopped_at is null and heartbeat_at > now() - make_interval(secs => ${leaseSeconds}))::int as alive,
           (select count(*) from account_leases l
             where ${inScope(scope, 'l.account_id')} and l.leased_until > now())::int as held,
           (select count(*) from account_leases l join accounts a on a.id = l.account_id
             where ${inScope(scope, 'l.account_id')} and a.state = 'active' and l.due_at < now()
               and (l.leased_until is null or l.leased_until < now())
               and (l.parked_until is null or l.parked_until <= now()))::int as overdue,
           (select count(*) from accounts a
             where ${inScope(scope, 'a.id')} and a.state = 'active'
               and not exists (select from sync_runs r where r.account_id = a.id and r.kind = any(${sql.val(PULLS)}::text[])
                                 and r.status = 'succeeded'))::int as never_complete`.execute(db);
  const parked = await sql<{ account: string; until: Date; reason: string | null }>`
    select a.name as account, l.parked_until as until, l.parked_reason as reason
      from account_leases l join accounts a on a.id = l.account_id
     where ${inScope(scope, 'l.account_id')} and l.parked_until > now()
     order by a.name`.execute(db);
  const row = rows[0]!;
  return {
    daemonsAlive: row.alive,
    leasesHeld: row.held,
    overdue: row.overdue,
    neverComplete: row.never_complete,
    parked: parked.rows,
  };
}
