/**
 * One request to an account of the service at a time across every process on the mirror's database.
 *
 * The API client keeps one request in flight within a process; this lock extends that to every
 * process that works on the same mirror (a daemon's sync next to `jobs run`, two daemons), since
 * the service forbids concurrent calls while it sends. Each request takes a session advisory
 * lock on a connection of its own and gives it back when the answer is in: a few hundred
 * microseconds beside an HTTP request. Postgres queues the waiters in order.
 */
import { sql } from 'kysely';
import type { DatabaseHandle } from './connect.js';
import { lockKey } from './locks.js';

export type Exclusive = <T>(attempt: () => Promise<T>) => Promise<T>;

/**
 * The wrapper for the client's `exclusive` option. If the lock's connection is lost while the request runs, the request's answer still
 * counts: the lock ended with the session, and unlocking it fails harmlessly.
 */
export function serviceLock(database: DatabaseHandle, accountId: number): Exclusive {
  const key = lockKey(database.schema, 'service', accountId);
  return (attempt) =>
    database.db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${key})`.execute(conn);
      try {
        return await attempt();
      } finally {
        await sql`select pg_advisory_unlock(${key})`.execute(conn).catch(() => undefined);
      }
    });
}
