/**
 * Events are published once every transaction that began before them has ended, on the whole
 * server (src/events/store.ts). Test files run side by side on one server, so a test that reads
 * the events it just caused first waits for the transactions of the other files to move past them.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/index.js';
import { publishedBelow } from '../../src/events/store.js';
import { waitFor } from './daemon.js';

/** Waits until every event committed so far is published (at most 30 s). */
export async function eventsSettled(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ xid: string }>`select pg_current_xact_id()::text as xid`.execute(db);
  const mark = BigInt(rows[0]!.xid);
  await waitFor(
    'the events committed so far to be published',
    async () => {
      const { rows: horizon } = await sql<{ below: string }>`select ${publishedBelow()}::text as below`.execute(db);
      return BigInt(horizon[0]!.below) > mark;
    },
    30_000,
  );
}
