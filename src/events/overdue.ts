/**
 * `invoice.overdue`: an open invoice passing its due date changes no field the service sends, so
 * no change shows it; a pass finds them (the daemon's, hourly, and `webhooks run`'s). Once per
 * invoice, however many daemons run the pass (a unique index on the event). Only invoices the
 * mirror saw before their due date: one already overdue when first pulled did not "pass" it here.
 */
import { sql, type Kysely } from 'kysely';
import { EVENT_KEY_FIELDS, invoiceOpenSql } from '../catalog/index.js';
import type { Database } from '../db/index.js';

/** Writes the overdue events due; returns how many. */
export async function markOverdueInvoices(db: Kysely<Database>): Promise<number> {
  const fields = [...(EVENT_KEY_FIELDS.invoices ?? [])];
  const { rows } = await sql<{ n: number }>`
    with due as materialized (
      select i.account_id, i.id::text as record_id,
             jsonb_build_object('record', jsonb_build_object('id', i.id::text) || events_pick(i.raw, ${fields}::text[])) as body
        from invoices i
       where i.deleted_at is null and i.duedate < current_date and i.duedate >= i.first_seen_at::date
         and ${sql.raw(invoiceOpenSql('i.open', 'i.uncollectible'))}
         and not exists (select from events e
                          where e.account_id = i.account_id and e.record_id = i.id::text and e.type = 'invoice.overdue')
    ),
    reserved as (select events_reserve((select count(*) from due)::integer) as base),
    written as (
      insert into events (id, account_id, type, occurred_at, entity, record_id, body)
      select reserved.base + row_number() over (order by d.account_id, d.record_id), d.account_id, 'invoice.overdue', now(),
             'invoices', d.record_id, d.body
        from due d, reserved
      on conflict (account_id, record_id) where type = 'invoice.overdue' do nothing
      returning 1
    )
    select count(*)::int as n from written`.execute(db);
  return rows[0]!.n;
}
