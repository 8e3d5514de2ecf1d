/**
 * The in-process fleet tests' accounts and leases: accounts made for the test, and before each
 * test every lease free, unparked and not due, the jobs and daemons gone, then the test's accounts
 * due in their order (the first the most overdue), with daemons registered under the names given.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/index.js';
import { registerDaemon } from '../../src/fleet/leases.js';

/** Makes `count` accounts named `prefix-1` … and returns their ids. */
export async function addAccounts(db: Kysely<Database>, prefix: string, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 1; i <= count; i++) {
    const row = await db
      .insertInto('accounts')
      .values({ name: `${prefix}-${i}` })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(row.id);
  }
  return ids;
}

/** Every lease free and not due (so `default` never is); then `ids` due oldest first, and `daemon <name>` registered for each name. */
export async function resetLeases(
  db: Kysely<Database>,
  ids: readonly number[],
  daemons: readonly string[],
): Promise<void> {
  await sql`delete from jobs`.execute(db);
  await sql`delete from daemons`.execute(db);
  await sql`update account_leases set daemon_id = null, leased_until = null, parked_until = null, parked_reason = null,
            parked_pulls_only = false, due_at = 'infinity'`.execute(db);
  for (const [i, id] of ids.entries())
    await sql`update account_leases set due_at = now() - make_interval(mins => ${60 - i}) where account_id = ${id}`.execute(
      db,
    );
  for (const name of daemons) await registerDaemon(db, { id: `daemon ${name}`, host: 'test', pid: 1 }, 'test');
}
