/**
 * Reading events back: `events` on the command line, the console, and what the webhooks send.
 * A reader sees only the events of transactions older than every transaction still running that
 * may write events: their ids (txid * 2^24 + n, see src/db/event-triggers.ts) are below every id still to come,
 * so a reader that goes on after the last id it saw never misses one committed late.
 *
 * A transaction that holds rows of `coordination_locks` locked writes none (it is an account's
 * service lock, held for a run of requests, or the take of a lease: db/locks.ts), so it does not
 * hold the others back: without that, every event would wait for the service locks of the moment
 * (up to a second and a request each). They are the transactions holding a ROW SHARE lock on that
 * table (SELECT … FOR UPDATE takes one), which pg_locks shows to every role.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/index.js';
import { inScope, type AccountScope } from '../db/scope.js';
import { PER_TRANSACTION } from '../db/event-triggers.js';

export interface EventRow {
  /** Text: ids pass 2^53 on a database that has run 537 million transactions. */
  id: string;
  account: string;
  type: string;
  occurred_at: Date;
  entity: string;
  record_id: string;
  body: Record<string, unknown>;
}

export interface EventQuery {
  /** Only events after this id. */
  after?: string | null;
  types?: readonly string[];
  scope: AccountScope;
  limit?: number;
  /** Newest first (the console); default oldest first, as `--after` reads on. */
  newestFirst?: boolean;
}

/** An event id as the command line gives it: digits. */
export function isEventId(text: string): boolean {
  return /^\d{1,19}$/.test(text);
}

/**
 * The oldest transaction id (64-bit) still running that may write events, else the snapshot's xmax:
 * events of transactions below it are published. Any transaction of the server counts (but a
 * holder of the coordination locks, which writes none), so a long one elsewhere holds them back.
 */
export function publishedBelow(): RawBuilder<number> {
  return sql<number>`(
    select coalesce(
             (select min(xip::text::bigint) from pg_snapshot_xip(snap.s) xip
               where (xip::text::bigint & 4294967295) not in (
                 select t.transactionid::text::bigint from pg_locks r
                   join pg_locks t on t.pid = r.pid and t.locktype = 'transactionid' and t.mode = 'ExclusiveLock' and t.granted
                  where r.locktype = 'relation' and r.relation = 'coordination_locks'::regclass
                    and r.mode = 'RowShareLock' and r.granted)),
             pg_snapshot_xmax(snap.s)::text::bigint)
      from (select pg_current_snapshot() as s) snap)`;
}

/** The published events of the query, oldest first (or newest first). */
export async function readEvents(db: Kysely<Database>, query: EventQuery): Promise<EventRow[]> {
  const types = query.types && query.types.length > 0 ? [...query.types] : null;
  const { rows } = await sql<EventRow & { id: string | number }>`
    select e.id::text as id, a.name as account, e.type, e.occurred_at, e.entity, e.record_id, e.body
      from events e join accounts a on a.id = e.account_id
     where e.id > ${query.after ?? '0'}::bigint
       and e.id < ${publishedBelow()} * ${sql.lit(PER_TRANSACTION)}
       and ${inScope(query.scope, 'e.account_id')}
       and (${types}::text[] is null or e.type = any(${types}::text[]))
     order by e.id ${sql.raw(query.newestFirst ? 'desc' : 'asc')}
     limit ${query.limit ?? 1000}`.execute(db);
  return rows.map((row) => ({ ...row, id: String(row.id) }));
}

/** One event as a JSON line of `events` (and the console's raw view). */
export function eventJson(event: EventRow): string {
  return JSON.stringify({
    id: event.id,
    account: event.account,
    type: event.type,
    occurred_at: event.occurred_at.toISOString(),
    entity: event.entity,
    record_id: event.record_id,
    data: event.body,
  });
}
