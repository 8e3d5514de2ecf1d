/**
 * The fleet's bookkeeping in Postgres, which is the whole of its coordination: no daemon talks to
 * another. A daemon registers itself (`daemons`), claims the accounts whose work is due
 * (`account_leases`, most overdue first, `FOR UPDATE SKIP LOCKED` so that daemons claiming at the
 * same time never take the same account), renews what it holds with each heartbeat, and releases an
 * account when its work is done, saying when its next pull is due. All times are the database's.
 *
 * A daemon whose heartbeat is older than the lease is dead to the others: the fleet's leader
 * (leader.ts) ends its database sessions (named by its id, see connect.ts), so that a daemon that
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
 * run, not parked (an account whose pulls alone are parked is claimed for its jobs), held by no
 * live lease. Most overdue first: by `work_due_at`, the moment its work became due (the earlier of
 * its pull's due time and its oldest queued job's, held to the park's end while parked; see
 * migrations/0022_work_due.ts), which the triggers keep and an index range scan reads.
 *
 * One locking scan holds every condition, so that a row another daemon claimed and committed
 * meanwhile is checked again on its new version (READ COMMITTED re-evaluates the scan's conditions
 * on a row it locks after it changed): two daemons never take one account.
 */
export async function claimDue(
  db: Kysely<Database>,
  daemonId: string,
  limit: number,
  leaseSeconds: number,
  /** What the daemon works on now; an account it still holds but no longer works on is free to it. */
  working: readonly number[] = [],
  /** Accounts this daemon cannot serve for now (its settings, not the account's state): left to the others. */
  skip: readonly number[] = [],
): Promise<Claimed[]> {
  if (limit <= 0) return [];
  const { rows } = await sql<{ account_id: number; pull_due: boolean }>`
    with due as (
      select l.account_id from account_leases l
       where l.work_due_at <= now()
         and (l.leased_until is null or l.leased_until < now()
              or (l.daemon_id = ${daemonId} and not (l.account_id = any(${[...working]}::int[]))))
         and not (l.account_id = any(${[...skip]}::int[]))
       order by l.work_due_at
       limit ${limit}
       for update of l skip locked
    ),
    taken as (
      update account_leases l
         set daemon_id = ${daemonId}, leased_until = now() + make_interval(secs => ${leaseSeconds})
        from due c
       where l.account_id = c.account_id
      returning l.account_id, l.work_due_at,
                (l.due_at <= now() and (l.parked_until is null or l.parked_until <= now())) as pull_due
    )
    select account_id, pull_due from taken order by work_due_at, account_id`.execute(db);
  return rows.map((row) => ({ accountId: Number(row.account_id), pullDue: row.pull_due }));
}

/**
 * Milliseconds until the next account's work falls due (the first `work_due_at` to come, an index
 * read), if that is within `withinMs`; else null. So that a daemon with room claims an account
 * when it falls due rather than at its next claim tick, up to a tick later.
 */
export async function msUntilNextDue(db: Kysely<Database>, withinMs: number): Promise<number | null> {
  const { rows } = await sql<{ ms: number | null }>`
    select (extract(epoch from min(work_due_at) - now()) * 1000)::float8 as ms from account_leases
     where work_due_at > now() and work_due_at <= now() + make_interval(secs => ${withinMs / 1000})`.execute(db);
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Math.max(0, Number(ms));
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
  // A lease row another transaction holds locked (one that queued a job of the account takes it,
  // see migration 0022) is stepped over, not waited for: one account's open transaction must not
  // stall the renewal of every account this daemon holds. It is still this daemon's if the row
  // says so; its lease is renewed at the next beat, and nobody can claim it while it is locked.
  // One statement: its last select reads the rows as they were before the renewal, which changes
  // no holder.
  const { rows: mine } = await sql<{ account_id: number }>`
    with free as (
      select account_id from account_leases
       where daemon_id = ${daemonId} and account_id = any(${[...held]}::int[])
       for no key update skip locked
    ),
    renewed as (
      update account_leases l set leased_until = now() + make_interval(secs => ${leaseSeconds})
        from free where l.account_id = free.account_id
    )
    select account_id from account_leases where daemon_id = ${daemonId} and account_id = any(${[...held]}::int[])`.execute(
    db,
  );
  const still = new Set(mine.map((row) => Number(row.account_id)));
  return { lost: held.filter((id) => !still.has(id)), declaredDead };
}

/**
 * Gives an account back after a pull, its next one due an `interval` after that pull started (the
 * account's own interval, or `intervalMs`; `pulledForMs` ago), so that an account is pulled every
 * interval rather than every interval plus the time a pull takes; or at the next SYNC_CRON tick
 * (`cron`); after a pull that gave way (`now`), due at once but behind every account already
 * waiting; after jobs only (null), when it was due.
 */
export async function release(
  db: Kysely<Database>,
  daemonId: string,
  accountId: number,
  next: 'interval' | 'cron' | 'now' | null,
  intervalMs: number,
  pulledForMs = 0,
): Promise<void> {
  const started = sql`now() - make_interval(secs => ${pulledForMs / 1000})`;
  const due =
    next === null
      ? sql`due_at`
      : next === 'now'
        ? sql`now()`
        : next === 'interval'
          ? sql`${started} + coalesce((select a.sync_interval from accounts a where a.id = ${accountId}), make_interval(secs => ${intervalMs / 1000}))`
          : sql`'infinity'::timestamptz`;
  await sql`
    update account_leases set daemon_id = null, leased_until = null, due_at = ${due}
     where account_id = ${accountId} and daemon_id = ${daemonId}`.execute(db);
}

/** An account with a job that may run now, and whether this daemon holds its lease. */
export interface WaitingJobs {
  accountId: number;
  heldHere: boolean;
}

/**
 * The accounts with a job that may run now that are this daemon's to act on: active, not parked,
 * and held by no other daemon's live lease (held here: its pull gives way to the job; else: to be
 * claimed). One query, read from the queued jobs (a partial index), whatever woke the daemon.
 */
export async function accountsWithWaitingJobs(db: Kysely<Database>, daemonId: string): Promise<WaitingJobs[]> {
  const { rows } = await sql<{ account_id: number; held_here: boolean }>`
    select l.account_id, (l.daemon_id = ${daemonId} and l.leased_until >= now()) as held_here
      from (select distinct j.account_id from jobs j where j.status = 'queued' and j.run_after <= now()) w
      join account_leases l on l.account_id = w.account_id
      join accounts a on a.id = w.account_id
     where a.state = 'active'
       and (l.parked_until is null or l.parked_until <= now() or l.parked_pulls_only)
       and (l.leased_until is null or l.leased_until < now() or l.daemon_id = ${daemonId})`.execute(db);
  return rows.map((row) => ({ accountId: Number(row.account_id), heldHere: row.held_here === true }));
}

/**
 * The account's quota is spent: no work for it until `untilMs` from now (a parked item is no
 * attempt); with `pullsOnly` (its budget is spent down to what is kept for actions), no pull, but
 * its jobs still run.
 */
export async function park(
  db: Kysely<Database>,
  accountId: number,
  untilMs: number,
  reason: string,
  pullsOnly = false,
): Promise<void> {
  await sql`
    update account_leases set parked_until = now() + make_interval(secs => ${untilMs / 1000}), parked_reason = ${reason},
           parked_pulls_only = ${pullsOnly}
     where account_id = ${accountId}`.execute(db);
}

/** With SYNC_CRON: every account's pull is due now (but one whose lease row a transaction holds: at the next tick). */
export async function allDueNow(db: Kysely<Database>): Promise<void> {
  await sql`
    update account_leases l set due_at = now()
      from (select account_id from account_leases where due_at > now() for no key update skip locked) due
     where l.account_id = due.account_id`.execute(db);
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

/**
 * A daemon that stops cleanly says so and gives back what it holds: each lease at once, but one
 * whose row another transaction holds locked (see heartbeat), which is left to run out within the
 * lease rather than keep the daemon from stopping.
 */
export async function unregisterDaemon(db: Kysely<Database>, daemonId: string): Promise<void> {
  await sql`
    update account_leases l set daemon_id = null, leased_until = null
      from (select account_id from account_leases where daemon_id = ${daemonId} for no key update skip locked) held
     where l.account_id = held.account_id`.execute(db);
  await sql`update daemons set stopped_at = now(), stop_reason = 'stopped' where id = ${daemonId}`.execute(db);
}
