/**
 * What the mirror's own syncs already show about saved invoices whose send may have happened, for
 * the page where a person decides: whether each is still a saved invoice, whether a sync saw it go
 * (a send with delete removes it), and which invoices of its client and total appeared since the
 * call. Read from the mirror only, no call to the service (a retry asks the service itself).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/index.js';

/** What the mirror suggests about one id: sent, not sent, or it cannot tell; in words for the page. */
export interface SendFact {
  verdict: 'sent' | 'unsent' | 'unknown';
  words: string;
}

interface SavedRow {
  id: number;
  deleted_at: Date | null;
  /** Invoice numbers of the saved invoice's client and total that the mirror first saw since the call. */
  lookalikes: string[] | null;
}

/** The facts for `ids` of one account, each id with the time its call started. */
export async function sendFacts(
  db: Kysely<Database>,
  accountId: number,
  calls: ReadonlyMap<number, string>,
  deleting: boolean,
): Promise<Map<number, SendFact>> {
  const facts = new Map<number, SendFact>();
  const ids = [...calls.keys()];
  if (ids.length === 0) return facts;
  const earliest = [...calls.values()].sort()[0]!;
  const [{ rows }, synced] = await Promise.all([
    sql<SavedRow>`
      select s.id, s.deleted_at,
             (select array_agg(coalesce(nullif(i.invoicenr_full, ''), i.invoicenr, i.id::text) order by i.id)
                from invoices i
               where i.account_id = s.account_id and i.deleted_at is null
                 and i.clientnr = s.clientnr and i.totalintax = s.totalintax
                 and i.first_seen_at >= ${earliest}::timestamptz) as lookalikes
        from saved_invoices s
       where s.account_id = ${accountId} and s.id = any(${sql.val(ids)}::int[])`.execute(db),
    lastSyncAt(db, accountId),
  ]);
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  for (const [id, startedAt] of calls) facts.set(id, factOf(byId.get(id), new Date(startedAt), synced, deleting));
  return facts;
}

async function lastSyncAt(db: Kysely<Database>, accountId: number): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | null }>`
    select max(finished_at) as at from sync_runs
     where account_id = ${accountId} and kind in ('backfill', 'sync') and status = 'succeeded'`.execute(db);
  return rows[0]?.at ?? null;
}

function factOf(row: SavedRow | undefined, startedAt: Date, synced: Date | null, deleting: boolean): SendFact {
  if (!row) return { verdict: 'unknown', words: 'the mirror holds no saved invoice with this id' };
  const alike = row.lookalikes ?? [];
  if (alike.length > 0)
    return {
      verdict: 'sent',
      words: `the mirror's sync shows invoice ${alike.join(', ')} of its client and total since the call: most likely sent`,
    };
  if (row.deleted_at && row.deleted_at >= startedAt)
    return deleting
      ? { verdict: 'sent', words: "the mirror's sync saw it leave the saved invoices since the call: most likely sent" }
      : {
          verdict: 'unknown',
          words: 'it left the saved invoices since the call, though the send was not to delete it',
        };
  if (synced && synced > startedAt)
    return {
      verdict: 'unsent',
      words:
        "still a saved invoice at the mirror's last sync, with no invoice of its client and total since the call: most likely not sent",
    };
  return { verdict: 'unknown', words: 'the mirror has not synced since the call, so it cannot tell yet' };
}
