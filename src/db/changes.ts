/**
 * `changes` read back: the feed, filtered and paged, and one record's versions. The sync and the
 * job refreshes write it.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { inScope, type AccountScope } from './scope.js';

export interface ChangeRow {
  id: string;
  account_id: number;
  sync_run_id: string | null;
  entity: string;
  entity_id: string;
  op: string;
  changed_fields: string[] | null;
  detected_at: Date;
}

export interface VersionRow extends ChangeRow {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface ChangeFilter {
  entity: string | null;
  op: string | null;
  /** Days as YYYY-MM-DD, both included. */
  from: string | null;
  to: string | null;
}

/** Changes in the scope matching the filter, newest first. */
export async function changeFeed(
  db: Kysely<Database>,
  scope: AccountScope,
  filter: ChangeFilter,
  page: { limit: number; offset: number },
): Promise<ChangeRow[]> {
  const { entity, op, from, to } = filter;
  const { rows } = await sql<ChangeRow>`
    select id, account_id, sync_run_id, entity, entity_id, op, changed_fields, detected_at from changes
     where ${inScope(scope)}
       and (${entity}::text is null or entity = ${entity})
       and (${op}::text is null or op = ${op})
       and (${from}::date is null or detected_at >= ${from}::date)
       and (${to}::date is null or detected_at < ${to}::date + 1)
     order by id desc limit ${page.limit} offset ${page.offset}`.execute(db);
  return rows.map((row) => ({ ...row, account_id: Number(row.account_id) }));
}

/**
 * One record's last 200 versions, newest first; a record's id is unique only within its account.
 * A fill's insert, stored without `after`, comes with the record as inserted (change_after, see
 * change-after.ts).
 */
export async function recordHistory(
  db: Kysely<Database>,
  accountId: number,
  entity: string,
  id: string,
): Promise<VersionRow[]> {
  const { rows } = await sql<VersionRow>`
    select id, account_id, sync_run_id, entity, entity_id, op, changed_fields, detected_at, before,
           change_after(account_id, entity, entity_id, op, id, after) as after from changes
     where account_id = ${accountId} and entity = ${entity} and entity_id = ${id}
     order by id desc limit 200`.execute(db);
  return rows.map((row) => ({ ...row, account_id: Number(row.account_id) }));
}
