/**
 * The fleet's bookkeeping in Postgres, which is the whole of its coordination: no daemon talks to
 * another. A daemon registers itself (`daemons`), claims the accounts whose work is due
 * (`account_leases`, most overdue first, `FOR UPDATE SKIP LOCKED` so that daemons claiming at the
 * same time never take the same account), renews what it holds with each heartbeat, and releases an
 * account when its work is done, saying when its next pull is due. All times are the database's.
 *
 * A daemon whose heartbeat is older than the lease is dead to the others: the first to claim one of
 * its accounts ends its database sessions (named by its id, see connect.ts), so that a daemon that
 * was only stopped (SIGSTOP) and comes back holds no lock, and its work in flight fails instead of
 * running beside the new holder's.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';

export interface DaemonIdentity {
  id: string;
  host: string;
  pid: number;
}

/**
 * A new daemon's identity: host, pid and a random part (a restarted process is a new daemon). It
 * is also the application_name of its database sessions, which Postgres cuts at 63 bytes.
 */
export function newDaemonIdentity(): DaemonIdentity {
  const host = hostname();
  const id = `invoice-mirror daemon ${host.slice(0, 24)}:${process.pid}:${randomBytes(3).toString('hex')}`;
  return { id, host, pid: process.pid };
}

/** Says the daemon is alive: a new row, or its own again after the fleet found it dead. */
export async function registerDaemon(db: Kysely<Database>, daemon: DaemonIdentity, version: string): Promise<void> {
  await db
    .insertInto('daemons')
    .values({ id: daemon.id, host: daemon.host, pid: daemon.pid, version })
    .onConflict((oc) => oc.column('id').doUpdateSet({ stopped_at: null, stop_reason: null, heartbeat_at: sql`now()` }))
    .execute();
}

export interface Claimed {
  accountId: number;
  /** Whether its scheduled pull is due (else it was claimed for its queued jobs). */
  pullDue: boolean;
}

/**
 * Claims up to `limit` accounts whose work is due: a pull whose time has come or a job that may
 * run, not parked, held by no live lease. Most overdue first: the earlier of its pull's due time
 * and its oldest runnable job's.
 */
export async function claimDue(
  db: Kysely<Database>,
  daemonId: string,
  limit: number,
  leaseSeconds: number,
  /** What the daemon works on now; an account it still holds but no longer works on is free to it. */
  working: readonly number[] = [],
): Promise<Claimed[]> {
  if (limit <= 0) return [];
  const { rows } = await sql<{ account_id: number; pull_due: boolean }>`
    with due as (
      select l.account_id,
             least(l.due_at, (select min(j.run_after) from jobs j
                               where j.account_id = l.account_id and j.status = 'queued')) as due
        from account_leases l join accounts a on a.id = l.account_id
       where a.state = 'active'
         and (l.leased_until is null or l.leased_until < now()
              or (l.daemon_id = ${daemonId} and not (l.account_id = any(${[...working]}::int[]))))
         and (l.parked_until is null or l.parked_until <= now())
       order by 2
       limit ${limit * 4}
    ),
    chosen as (
      select l.account_id from account_leases l join due d on d.account_id = l.account_id
       where d.due <= now()
       order by d.due
       limit ${limit}
       for update of l skip locked
    )
    update account_leases l
       set daemon_id = ${daemonId}, leased_until = now() + make_interval(secs => ${leaseSeconds})
      from chosen c
     where l.account_id = c.account_id
    returning l.account_id, (l.due_at <= now()) as pull_due`.execute(db);
  return rows.map((row) => ({ accountId: Number(row.account_id), pullDue: row.pull_due }));
}

/**
 * The heartbeat: says the daemon is alive and renews the leases of the accounts it holds. Returns
 * the accounts it no longer holds (taken over while it could not renew), and whether the fleet
 * found it dead (then it must start again as a new daemon).
 */
export async function heartbeat(
  db: Kysely<Database>,
  daemonId: string,
  held: readonly number[],
  leaseSeconds: number,
): Promise<{ lost: number[]; declaredDead: boolean }> {
  const { rows } = await sql<{ stopped: boolean }>`
    update daemons set heartbeat_at = now() where id = ${daemonId} returning stopped_at is not null as stopped`.execute(
    db,
  );
  const declaredDead = rows[0]?.stopped !== false;
  if (held.length === 0) return { lost: [], declaredDead };
  const { rows: renewed } = await sql<{ account_id: number }>`
    update account_leases set leased_until = now() + make_interval(secs => ${leaseSeconds})
     where daemon_id = ${daemonId} and account_id = any(${[...held]}::int[])
    returning account_id`.execute(db);
  const still = new Set(renewed.map((row) => Number(row.account_id)));
  return { lost: held.filter((id) => !still.has(id)), declaredDead };
}

/**
 * Gives an account back after a pull, its next one due an `interval` later (the account's own, or
 * `intervalMs`) or at the next SYNC_CRON tick (`cron`); after a pull that gave way (`now`), due at
 * once but behind every account already waiting; after jobs only (null), when it was due.
 */
export async function release(
  db: Kysely<Database>,
  daemonId: string,
  accountId: number,
  next: 'interval' | 'cron' | 'now' | null,
  intervalMs: number,
): Promise<void> {
  const due =
    next === null
      ? sql`due_at`
      : next === 'now'
        ? sql`now()`
        : next === 'interval'
          ? sql`now() + coalesce((select a.sync_interval from accounts a where a.id = ${accountId}), make_interval(secs => ${intervalMs / 1000}))`
          : sql`'infinity'::timestamptz`;
  await sql`
    update account_leases set daemon_id = null, leased_until = null, due_at = ${due}
     where account_id = ${accountId} and daemon_id = ${daemonId}`.execute(db);
}

/** Of the given accounts, those with a job that may run now (a pull of theirs gives way to it). */
export async function withRunnableJobs(db: Kysely<Database>, accountIds: readonly number[]): Promise<number[]> {
  if (accountIds.length === 0) return [];
  const { rows } = await sql<{ account_id: number }>`
    select distinct account_id from jobs
     where account_id = any(${[...accountIds]}::int[]) and status = 'queued' and run_after <= now()`.execute(db);
  return rows.map((row) => Number(row.account_id));
}

/** The account's quota is spent: no work for it until `untilMs` from now (a parked item is no attempt). */
export async function park(db: Kysely<Database>, accountId: number, untilMs: number, reason: string): Promise<void> {
  await sql`
    update account_leases set parked_until = now() + make_interval(secs => ${untilMs / 1000}), parked_reason = ${reason}
     where account_id = ${accountId}`.execute(db);
}

/** With SYNC_CRON: every account's pull is due now. */
export async function allDueNow(db: Kysely<Database>): Promise<void> {
  await sql`update account_leases set due_at = now() where due_at > now()`.execute(db);
}

/**
 * Daemons whose heartbeat is older than the lease are dead: marked so, and their database sessions
 * ended (a stopped process that comes back must not go on with locks it held). Returns how many.
 */
export async function buryDeadDaemons(db: Kysely<Database>, leaseSeconds: number): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    update daemons set stopped_at = now(), stop_reason = 'no heartbeat for longer than the lease'
     where stopped_at is null and heartbeat_at < now() - make_interval(secs => ${leaseSeconds})
    returning id`.execute(db);
  const dead = rows.map((row) => row.id);
  if (dead.length > 0)
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = any(${dead}::text[])`.execute(
      db,
    );
  return dead;
}

/** A daemon that stops cleanly says so and gives back what it holds. */
export async function unregisterDaemon(db: Kysely<Database>, daemonId: string): Promise<void> {
  await sql`update account_leases set daemon_id = null, leased_until = null where daemon_id = ${daemonId}`.execute(db);
  await sql`update daemons set stopped_at = now(), stop_reason = 'stopped' where id = ${daemonId}`.execute(db);
}
