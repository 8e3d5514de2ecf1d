/**
 * One request to an account of the service at a time across every process on the mirror's database.
 *
 * The API client keeps one request in flight within a process; this lock extends that to every
 * process that works on the same mirror (a daemon's sync next to `jobs run`, two daemons), since
 * the service forbids concurrent calls while it sends. The lock is the account's `service` row of
 * `coordination_locks` (locks.ts), locked in a transaction on a connection of its own. Taking and
 * giving it back for each request cost three round trips per request, so it is held for a run of
 * requests: from the first until no request follows at once (a pull asks for its next page as soon
 * as an answer is in, so it holds the lock while it reads a list), and for at most HOLD_MS, after
 * which it is given back and taken again. Postgres grants a row lock to its waiters in order, so
 * another process waits at most that long plus one request. The transaction holds an xid, and so
 * vacuum's horizon, for as long: at most HOLD_MS and one request (REQUEST_TIMEOUT_MS).
 *
 * The bound is also what keeps a process that was stopped (SIGSTOP, a suspended VM) from calling
 * on a lock it lost meanwhile: the monotonic clock runs on while it is stopped, so its next request
 * takes the lock again first, on a live session, and the fleet ends a stopped daemon's sessions
 * only long after (a lease).
 */
import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle } from './connect.js';
import type { Database } from './schema.js';

export type Exclusive = <T>(attempt: () => Promise<T>) => Promise<T>;

/** The longest a run of requests holds the lock before giving it back and taking it again. */
const HOLD_MS = 1_000;

/** The lock as held: since when, how to give it back, and the end of its connection's use. */
interface Held {
  since: number;
  giveBack: () => void;
  over: Promise<void>;
}

/**
 * The wrapper for the client's `exclusive` option. If the lock's connection is lost while a
 * request runs, the request's answer still counts: the lock ended with the session, giving it
 * back fails harmlessly, and it is taken again on another connection by the next run of requests.
 */
export function serviceLock(database: DatabaseHandle, accountId: number): Exclusive {
  let held: Promise<Held> | null = null;
  let idle: NodeJS.Immediate | undefined;

  const letGo = async (holding: Promise<Held>): Promise<void> => {
    if (held === holding) held = null;
    const lock = await holding.catch(() => null);
    lock?.giveBack();
    await lock?.over;
  };

  return async (attempt) => {
    if (idle) clearImmediate(idle);
    idle = undefined;
    if (held && performance.now() - (await held.catch(() => ({ since: -Infinity }))).since > HOLD_MS) await letGo(held);
    const holding = (held ??= take(database.db, accountId));
    try {
      await holding;
    } catch (error) {
      if (held === holding) held = null;
      throw error;
    }
    try {
      return await attempt();
    } finally {
      // Given back unless another request starts before the event loop turns.
      idle = setImmediate(() => {
        idle = undefined;
        void letGo(holding);
      });
    }
  };
}

/**
 * Takes the lock on a pool connection kept until it is given back; settles once it is held. Given
 * back by COMMIT (the transaction wrote nothing but the lock, and commits without waiting for the
 * disk, see coordination_lock_wait); a lost connection ended the transaction, and the lock, already.
 */
function take(db: Kysely<Database>, accountId: number): Promise<Held> {
  return new Promise<Held>((resolve, reject) => {
    let giveBack!: () => void;
    const givenBack = new Promise<void>((done) => {
      giveBack = done;
    });
    const over = db
      .connection()
      .execute(async (conn) => {
        await sql`begin`.execute(conn);
        try {
          await sql`select coordination_lock_wait(${accountId}::integer, 'service')`.execute(conn);
        } catch (error) {
          await sql`rollback`.execute(conn).catch(() => undefined);
          throw error;
        }
        resolve({ since: performance.now(), giveBack, over });
        await givenBack;
        await sql`commit`.execute(conn).catch(() => undefined);
      })
      .catch(reject);
  });
}
