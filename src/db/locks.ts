/**
 * The per-account coordination locks, rows of `coordination_locks` (migration 0016): one pull
 * (`sync`), one job (`jobs`) and one request to the service (`service`) at a time per account,
 * across every process on the mirror's database. They replaced session advisory locks, whose keys
 * any role could compute and hold (a role confined to one account could freeze the others):
 * taking one of these needs UPDATE on the table, which no confined role is granted, and the
 * row-level security policies keep any role to its own accounts' rows.
 *
 * - `sync` and `jobs` are leases of the session that takes them (`coordination_lock_take`): the
 *   row names the holder's backend, role and start time, and a taker finds the lock free when no
 *   such session lives any more. Like an advisory lock it ends with its session (a lost
 *   connection, a process killed), and it holds no transaction open while held. A lease cannot be
 *   waited for in the database, so a taker that wants to wait tries again (`takeWaiting`).
 * - `service` is a row lock held in a transaction of its own connection (service-lock.ts), for
 *   the length of a run of requests (at most a second and one request), so that the waiters are
 *   served in turn, as Postgres grants row locks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export type LeasePurpose = 'sync' | 'jobs';
export type LockPurpose = LeasePurpose | 'service';

/**
 * Takes the account's lease for this connection's session; false when a live session holds it.
 * `inTurn`: when it is held, keep the next turn for this session while it asks again.
 */
export async function takeLease(
  conn: Kysely<Database>,
  accountId: number,
  purpose: LeasePurpose,
  inTurn = false,
): Promise<boolean> {
  const { rows } = await sql<{ taken: boolean }>`
    select coordination_lock_take(${accountId}::integer, ${purpose}::text, ${inTurn}::boolean) as taken`.execute(conn);
  return rows[0]?.taken === true;
}

/**
 * First and longest pause between tries of a lease another session holds. The longest stays well
 * under the 250 ms for which a waiting session keeps its turn (coordination_lock_take).
 */
const FIRST_RETRY_MS = 10;
const LONGEST_RETRY_MS = 100;

/**
 * Takes the lease, trying again while another session holds it, for up to `waitMs`, in turn with
 * the other sessions waiting for it.
 */
export async function takeWaiting(
  conn: Kysely<Database>,
  accountId: number,
  purpose: LeasePurpose,
  waitMs: number,
): Promise<boolean> {
  const until = performance.now() + waitMs;
  for (let pause = FIRST_RETRY_MS; ; pause = Math.min(LONGEST_RETRY_MS, pause * 2)) {
    if (await takeLease(conn, accountId, purpose, true)) return true;
    const left = until - performance.now();
    if (left <= 0) return false;
    await sleep(Math.min(pause, left));
  }
}

/** Gives the lease back. A lost connection took it with it, so a failure here is no harm. */
export async function releaseLease(conn: Kysely<Database>, accountId: number, purpose: LeasePurpose): Promise<void> {
  await sql`select coordination_lock_release(${accountId}::integer, ${purpose}::text)`
    .execute(conn)
    .catch(() => undefined);
}

/**
 * The backend holding an account's lock now, if any: for a lease the live session it names, for
 * the service lock the transaction that has locked its row (the row's xmax). For tests and for
 * people looking (docs/scaling.md says how in SQL).
 */
export async function lockHolder(
  db: Kysely<Database>,
  accountId: number,
  purpose: LockPurpose,
): Promise<number | null> {
  const { rows } =
    purpose === 'service'
      ? await sql<{ pid: number }>`
          select l.pid from coordination_locks c
            join pg_locks l on l.locktype = 'transactionid' and l.transactionid = c.xmax and l.mode = 'ExclusiveLock'
           where c.account_id = ${accountId} and c.purpose = 'service' and l.granted`.execute(db)
      : await sql<{ pid: number }>`
          select c.holder_pid as pid from coordination_locks c
           where c.account_id = ${accountId} and c.purpose = ${purpose}
             and exists (select from pg_stat_get_activity(c.holder_pid) a
                          where a.usesysid = c.holder_role and (a.backend_start = c.holder_started or a.backend_start is null))`.execute(
          db,
        );
  return rows[0] ? Number(rows[0].pid) : null;
}
