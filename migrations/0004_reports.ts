/**
 * The reporting views and their helper functions, as they were when this migration landed, with
 * their meanings written into the database (`comment on`).
 *
 * A snapshot: the live definitions are src/catalog/reports.ts, re-applied after the migrations
 * whenever they change (src/db/repeatable.ts), so this file only matters for the first build.
 */
import { sql, type Kysely } from 'kysely';

/** One statement a string, exactly as this migration ran them when it landed. */
const statements = [
  `create function sends_per_year(frequency text) returns integer language sql immutable as $$
      select case lower(frequency)
        when 'weekly' then 52 when 'biweekly' then 26 when 'fourweekly' then 13 when 'monthly' then 12
        when 'bimonthly' then 6 when 'quarterly' then 4 when 'halfyearly' then 2 when 'yearly' then 1
      end
    $$`,
  `comment on function sends_per_year(text) is
      'How many invoices a repeating invoice of this frequency sends in a year (weekly 52, biweekly 26, fourweekly 13, monthly 12, bimonthly 6, quarterly 4, halfyearly 2, yearly 1; case-insensitive); NULL for an unknown frequency.'`,
  `create function frequency_step(frequency text) returns interval language sql immutable as $$
      select case lower(frequency)
        when 'weekly' then interval '7 days' when 'biweekly' then interval '14 days'
        when 'fourweekly' then interval '28 days' when 'monthly' then interval '1 month'
        when 'bimonthly' then interval '2 months' when 'quarterly' then interval '3 months'
        when 'halfyearly' then interval '6 months' when 'yearly' then interval '1 year'
      end
    $$`,
  `comment on function frequency_step(text) is
      'The time between two sends of a repeating invoice of this frequency (case-insensitive); NULL for an unknown frequency.'`,
  `create function client_display_name(company text, contact text) returns text language sql immutable as $$
      select coalesce(nullif(company, ''), nullif(contact, ''))
    $$`,
  `comment on function client_display_name(text, text) is
      'The name a client goes by: the company name, or the contact name when there is no company.'`,
  `create view open_quotations as select q.id as quotation_id,
             q.quotationreference as quotation_reference,
             q.savename as saved_name,
             q.clientnr as client_number,
             client_display_name(q.company, q.contact) as client_name,
             q.date as quotation_date,
             q.datedue as valid_until,
             current_date - q.date as days_open,
             coalesce(q.datedue < current_date, false) as expired,
             coalesce(nullif(lower(q.customstatus), ''), 'none') as custom_status,
             q.totalintax as total_incl_tax
        from quotations q
       where q.deleted_at is null
         and q.sent
         and jsonb_typeof(q.approved) is distinct from 'object'
         and coalesce(lower(q.customstatus), '') <> 'declined'`,
  `comment on view open_quotations is 'Quotations sent to the client and still waiting for an answer: sent, not approved, not declined. Age in days since the quotation date.'`,
  `comment on column open_quotations.quotation_id is 'id of the quotation'`,
  `comment on column open_quotations.quotation_reference is 'public reference printed on the quotation'`,
  `comment on column open_quotations.saved_name is 'name the quotation was saved under'`,
  `comment on column open_quotations.client_number is 'number of the client the quotation is for'`,
  `comment on column open_quotations.client_name is 'client name as printed on the document (company, or contact when there is no company)'`,
  `comment on column open_quotations.quotation_date is 'date the quotation was sent'`,
  `comment on column open_quotations.valid_until is 'last day of the quotation period (quotation date plus the period)'`,
  `comment on column open_quotations.days_open is 'days since the quotation date'`,
  `comment on column open_quotations.expired is 'true when the quotation period has ended (valid_until is before today)'`,
  `comment on column open_quotations.custom_status is 'status set by hand: progress, completed or billable; none when not set'`,
  `comment on column open_quotations.total_incl_tax is 'quotation total including tax'`,
  `create view quotation_pipeline as select stage, custom_status, approved,
             count(*)::integer as quotation_count,
             coalesce(sum(totalintax), 0) as total_incl_tax,
             min(date) as oldest_quotation_date
        from (
          select case
                   when not coalesce(q.sent, false) then 'draft'
                   when lower(q.customstatus) = 'declined' then 'declined'
                   when jsonb_typeof(q.approved) = 'object' then 'approved'
                   else 'open'
                 end as stage,
                 coalesce(nullif(lower(q.customstatus), ''), 'none') as custom_status,
                 coalesce(jsonb_typeof(q.approved) = 'object', false) as approved,
                 q.totalintax, q.date
            from quotations q
           where q.deleted_at is null
        ) staged
       group by stage, custom_status, approved`,
  `comment on view quotation_pipeline is 'Live quotations counted by stage and custom status. Stage: draft (not sent), declined (custom status declined), approved (approved by the client), open (sent, waiting for an answer).'`,
  `comment on column quotation_pipeline.stage is 'draft (not sent), open (sent, waiting for an answer), approved, or declined'`,
  `comment on column quotation_pipeline.custom_status is 'status set by hand: progress, completed, billable, declined; none when not set'`,
  `comment on column quotation_pipeline.approved is 'whether the client approved these quotations'`,
  `comment on column quotation_pipeline.quotation_count is 'number of quotations'`,
  `comment on column quotation_pipeline.total_incl_tax is 'sum of their totals including tax'`,
  `comment on column quotation_pipeline.oldest_quotation_date is 'date of the oldest quotation in the group'`,
  `create view saved_invoices_by_client as select s.clientnr as client_number,
             coalesce(client_display_name(c.company, c.contact),
                      (array_agg(client_display_name(s.company, s.contact) order by s.id desc))[1]) as client_name,
             count(*)::integer as saved_invoice_count,
             coalesce(sum(s.totalintax), 0) as total_incl_tax,
             coalesce(sum(s.totaldiscount), 0) as total_discount,
             coalesce(sum(s.alreadypaid), 0) as already_paid,
             coalesce(sum(s.totalintax), 0) - coalesce(sum(s.alreadypaid), 0) as still_to_pay
        from saved_invoices s
        left join clients c on c.clientnr = s.clientnr and c.deleted_at is null
       where s.deleted_at is null
       group by s.clientnr, c.company, c.contact`,
  `comment on view saved_invoices_by_client is 'Saved invoices (drafts not yet sent) per client, with their totals and what is still to be paid.'`,
  `comment on column saved_invoices_by_client.client_number is 'client number on the invoices (0: no client)'`,
  `comment on column saved_invoices_by_client.client_name is 'client name (company, or contact when there is no company); from the client record, or from the newest invoice when the client is gone'`,
  `comment on column saved_invoices_by_client.saved_invoice_count is 'number of saved invoices'`,
  `comment on column saved_invoices_by_client.total_incl_tax is 'sum of the invoice totals including tax'`,
  `comment on column saved_invoices_by_client.total_discount is 'sum of the discounts given on the invoices'`,
  `comment on column saved_invoices_by_client.already_paid is 'sum of the amounts already marked as paid'`,
  `comment on column saved_invoices_by_client.still_to_pay is 'total including tax minus what is already paid'`,
  `create view recurring_revenue as select r.id as repeating_invoice_id,
             r.name as invoice_name,
             r.clientnr as client_number,
             client_display_name(r.company, r.contact) as client_name,
             lower(r.frequency) as frequency,
             sends_per_year(r.frequency) as sends_per_year,
             r.totalintax as amount_per_invoice,
             r.totalintax * sends_per_year(r.frequency) as yearly_amount,
             round(r.totalintax * sends_per_year(r.frequency) / 12, 2) as monthly_amount,
             lower(r.repeattype) = 'auto' as sent_automatically,
             r.nextsenddate as next_send_date,
             r.nextsenddate - current_date as days_until_next_send,
             r.finalsenddate as final_send_date
        from repeating_invoices r
       where r.deleted_at is null`,
  `comment on view recurring_revenue is 'Repeating invoices with their amount converted to a monthly and a yearly amount. Monthly amount = amount per invoice x sends per year / 12, where sends per year by frequency is weekly 52, biweekly 26, fourweekly 13, monthly 12, bimonthly 6, quarterly 4, halfyearly 2, yearly 1 (so weekly x52/12, biweekly x26/12, fourweekly x13/12, monthly x1, bimonthly x1/2, quarterly x1/3, halfyearly x1/6, yearly x1/12). Frequencies compare case-insensitively; an unknown one gives NULL amounts.'`,
  `comment on column recurring_revenue.repeating_invoice_id is 'id of the repeating invoice'`,
  `comment on column recurring_revenue.invoice_name is 'name of the repeating invoice'`,
  `comment on column recurring_revenue.client_number is 'number of the client invoiced'`,
  `comment on column recurring_revenue.client_name is 'client name as printed on the document (company, or contact when there is no company)'`,
  `comment on column recurring_revenue.frequency is 'how often it is sent: weekly, biweekly, fourweekly, monthly, bimonthly, quarterly, halfyearly, yearly'`,
  `comment on column recurring_revenue.sends_per_year is 'invoices sent per year at this frequency'`,
  `comment on column recurring_revenue.amount_per_invoice is 'total including tax of each invoice sent'`,
  `comment on column recurring_revenue.yearly_amount is 'amount per invoice x sends per year'`,
  `comment on column recurring_revenue.monthly_amount is 'yearly amount / 12, rounded to cents'`,
  `comment on column recurring_revenue.sent_automatically is 'true when the service sends it by itself (repeat type auto), false when someone sends it by hand'`,
  `comment on column recurring_revenue.next_send_date is 'date the next invoice is sent'`,
  `comment on column recurring_revenue.days_until_next_send is 'days from today to the next send date (negative when the mirror is behind)'`,
  `comment on column recurring_revenue.final_send_date is 'date of the last invoice; empty when it repeats without end'`,
  `create view recurring_revenue_by_frequency as select case when grouping(lower(frequency)) = 1 then 'all frequencies' else lower(frequency) end as frequency,
             case when grouping(lower(frequency)) = 0 then max(sends_per_year(frequency)) end as sends_per_year,
             count(*)::integer as repeating_invoice_count,
             coalesce(sum(totalintax * sends_per_year(frequency)), 0) as yearly_amount,
             round(coalesce(sum(totalintax * sends_per_year(frequency)), 0) / 12, 2) as monthly_amount
        from repeating_invoices
       where deleted_at is null
       group by rollup (lower(frequency))`,
  `comment on view recurring_revenue_by_frequency is 'Recurring revenue per frequency, plus a final row "all frequencies" with the totals. Monthly amount = sum of (amount per invoice x sends per year) / 12, rounded to cents (see recurring_revenue).'`,
  `comment on column recurring_revenue_by_frequency.frequency is 'how often the invoices are sent; "all frequencies" on the totals row'`,
  `comment on column recurring_revenue_by_frequency.sends_per_year is 'invoices sent per year at this frequency (empty on the totals row)'`,
  `comment on column recurring_revenue_by_frequency.repeating_invoice_count is 'number of repeating invoices'`,
  `comment on column recurring_revenue_by_frequency.yearly_amount is 'sum of amount per invoice x sends per year, including tax'`,
  `comment on column recurring_revenue_by_frequency.monthly_amount is 'yearly amount / 12, rounded to cents'`,
  `create view upcoming_repeating_sends as select r.id as repeating_invoice_id,
             r.name as invoice_name,
             r.clientnr as client_number,
             client_display_name(r.company, r.contact) as client_name,
             d.send_date::date as send_date,
             lower(r.frequency) as frequency,
             r.totalintax as amount_incl_tax,
             lower(r.repeattype) = 'auto' as sent_automatically
        from repeating_invoices r
       cross join lateral generate_series(
               r.nextsenddate::timestamp,
               least(r.finalsenddate::timestamp, current_date + interval '1 year' - interval '1 day'),
               frequency_step(r.frequency)) as d(send_date)
       where r.deleted_at is null`,
  `comment on view upcoming_repeating_sends is 'Every invoice the repeating invoices will send in the coming year: one row per send date, from the next send date on, each one step of the frequency after the previous (weekly 7 days, biweekly 14, fourweekly 28, monthly 1 month, bimonthly 2, quarterly 3, halfyearly 6, yearly 12; a monthly send on the 31st moves to the 28th in February and stays there), up to the final send date and to before the same day next year.'`,
  `comment on column upcoming_repeating_sends.repeating_invoice_id is 'id of the repeating invoice'`,
  `comment on column upcoming_repeating_sends.invoice_name is 'name of the repeating invoice'`,
  `comment on column upcoming_repeating_sends.client_number is 'number of the client invoiced'`,
  `comment on column upcoming_repeating_sends.client_name is 'client name as printed on the document (company, or contact when there is no company)'`,
  `comment on column upcoming_repeating_sends.send_date is 'date this invoice is sent'`,
  `comment on column upcoming_repeating_sends.frequency is 'how often the repeating invoice is sent'`,
  `comment on column upcoming_repeating_sends.amount_incl_tax is 'total including tax of the invoice sent on this date'`,
  `comment on column upcoming_repeating_sends.sent_automatically is 'true when the service sends it by itself, false when someone sends it by hand'`,
  `create view ending_repeating_invoices as select r.id as repeating_invoice_id,
             r.name as invoice_name,
             r.clientnr as client_number,
             client_display_name(r.company, r.contact) as client_name,
             lower(r.frequency) as frequency,
             r.totalintax as amount_per_invoice,
             r.nextsenddate as next_send_date,
             r.finalsenddate as final_send_date,
             r.finalsenddate - current_date as days_until_end,
             remaining.sends as sends_remaining,
             remaining.sends * r.totalintax as remaining_amount
        from repeating_invoices r
       cross join lateral (
               select count(*)::integer as sends
                 from generate_series(r.nextsenddate::timestamp, r.finalsenddate::timestamp, frequency_step(r.frequency))
             ) remaining
       where r.deleted_at is null
         and r.finalsenddate is not null`,
  `comment on view ending_repeating_invoices is 'Repeating invoices that have a final send date: when they end, how many invoices they still send and for how much.'`,
  `comment on column ending_repeating_invoices.repeating_invoice_id is 'id of the repeating invoice'`,
  `comment on column ending_repeating_invoices.invoice_name is 'name of the repeating invoice'`,
  `comment on column ending_repeating_invoices.client_number is 'number of the client invoiced'`,
  `comment on column ending_repeating_invoices.client_name is 'client name as printed on the document (company, or contact when there is no company)'`,
  `comment on column ending_repeating_invoices.frequency is 'how often it is sent'`,
  `comment on column ending_repeating_invoices.amount_per_invoice is 'total including tax of each invoice sent'`,
  `comment on column ending_repeating_invoices.next_send_date is 'date the next invoice is sent'`,
  `comment on column ending_repeating_invoices.final_send_date is 'date of the last invoice; after it the repeating invoice is deleted'`,
  `comment on column ending_repeating_invoices.days_until_end is 'days from today to the final send date'`,
  `comment on column ending_repeating_invoices.sends_remaining is 'invoices still to be sent, from the next send date up to and including the final send date'`,
  `comment on column ending_repeating_invoices.remaining_amount is 'sends remaining x amount per invoice'`,
  `create view product_stock as select p.id as product_id,
             p.code as product_code,
             p.name as product_name,
             p.stock as stock,
             case
               when p.stock is null then 'unknown'
               when p.stock < 0 then 'negative'
               when p.stock = 0 then 'out of stock'
               when p.stock < 5 then 'low'
               else 'in stock'
             end as stock_status,
             p.price as price_excl_tax,
             round(p.stock * p.price, 2) as stock_value_excl_tax
        from products p
       where p.deleted_at is null
         and p.stock_use`,
  `comment on view product_stock is 'Products whose stock is tracked, with stock value and status (negative, out of stock, low = fewer than 5 units, in stock).'`,
  `comment on column product_stock.product_id is 'id of the product'`,
  `comment on column product_stock.product_code is 'your own product code'`,
  `comment on column product_stock.product_name is 'name shown on invoices'`,
  `comment on column product_stock.stock is 'units in stock (can be negative)'`,
  `comment on column product_stock.stock_status is 'negative, out of stock (0), low (fewer than 5), in stock; unknown when the service sent no number'`,
  `comment on column product_stock.price_excl_tax is 'unit price excluding tax'`,
  `comment on column product_stock.stock_value_excl_tax is 'stock x unit price excluding tax, rounded to cents'`,
  `create view low_stock_products as select product_id, product_code, product_name, stock, stock_status, price_excl_tax
        from product_stock
       where stock_status in ('negative', 'out of stock', 'low')`,
  `comment on view low_stock_products is 'Stock-tracked products that need attention: negative stock, out of stock, or fewer than 5 units (see product_stock).'`,
  `comment on column low_stock_products.product_id is 'id of the product'`,
  `comment on column low_stock_products.product_code is 'your own product code'`,
  `comment on column low_stock_products.product_name is 'name shown on invoices'`,
  `comment on column low_stock_products.stock is 'units in stock (can be negative)'`,
  `comment on column low_stock_products.stock_status is 'negative, out of stock (0) or low (fewer than 5)'`,
  `comment on column low_stock_products.price_excl_tax is 'unit price excluding tax'`,
  `create view client_overview as with quotation_counts as (
             select clientnr, count(*) as n from quotations where deleted_at is null group by clientnr
           ),
           open_quotation_counts as (
             select client_number as clientnr, count(*) as n, sum(total_incl_tax) as total from open_quotations group by client_number
           ),
           saved_counts as (
             select clientnr, count(*) as n, sum(totalintax) as total from saved_invoices where deleted_at is null group by clientnr
           ),
           repeating_counts as (
             select clientnr, count(*) as n, sum(totalintax * sends_per_year(frequency)) as yearly
               from repeating_invoices where deleted_at is null group by clientnr
           )
      select c.clientnr as client_number,
             client_display_name(c.company, c.contact) as client_name,
             c.city as city,
             c.active as active,
             c.lastinvoice as last_invoice_date,
             current_date - c.lastinvoice as days_since_last_invoice,
             coalesce(q.n, 0)::integer as quotation_count,
             coalesce(oq.n, 0)::integer as open_quotation_count,
             coalesce(oq.total, 0) as open_quotation_total,
             coalesce(s.n, 0)::integer as saved_invoice_count,
             coalesce(s.total, 0) as saved_invoice_total,
             coalesce(r.n, 0)::integer as repeating_invoice_count,
             round(coalesce(r.yearly, 0) / 12, 2) as monthly_recurring_amount,
             (coalesce(oq.n, 0) + coalesce(s.n, 0) + coalesce(r.n, 0))::integer as open_document_count
        from clients c
        left join quotation_counts q on q.clientnr = c.clientnr
        left join open_quotation_counts oq on oq.clientnr = c.clientnr
        left join saved_counts s on s.clientnr = c.clientnr
        left join repeating_counts r on r.clientnr = c.clientnr
       where c.deleted_at is null`,
  `comment on view client_overview is 'One row per client: documents per client, open work and last invoice date. Open documents = open quotations (see open_quotations) + saved invoices not yet sent + repeating invoices.'`,
  `comment on column client_overview.client_number is 'client number'`,
  `comment on column client_overview.client_name is 'client name (company, or contact when there is no company)'`,
  `comment on column client_overview.city is 'city of the client'`,
  `comment on column client_overview.active is 'false for clients set to non-active (hidden in the web application)'`,
  `comment on column client_overview.last_invoice_date is 'date the last invoice to this client was sent'`,
  `comment on column client_overview.days_since_last_invoice is 'days from the last invoice date to today'`,
  `comment on column client_overview.quotation_count is 'number of quotations (any state)'`,
  `comment on column client_overview.open_quotation_count is 'quotations sent and waiting for an answer'`,
  `comment on column client_overview.open_quotation_total is 'sum of the open quotations, including tax'`,
  `comment on column client_overview.saved_invoice_count is 'saved invoices not yet sent'`,
  `comment on column client_overview.saved_invoice_total is 'sum of the saved invoices, including tax'`,
  `comment on column client_overview.repeating_invoice_count is 'repeating invoices'`,
  `comment on column client_overview.monthly_recurring_amount is 'monthly amount of the repeating invoices (see recurring_revenue)'`,
  `comment on column client_overview.open_document_count is 'open quotations + saved invoices + repeating invoices'`,
  `create view inactive_clients_with_open_documents as select client_number, client_name, city, last_invoice_date,
             open_quotation_count, saved_invoice_count, repeating_invoice_count, open_document_count
        from client_overview
       where active = false
         and open_document_count > 0`,
  `comment on view inactive_clients_with_open_documents is 'Clients set to non-active that still have open documents (open quotations, saved invoices or repeating invoices): work that may be forgotten.'`,
  `comment on column inactive_clients_with_open_documents.client_number is 'client number'`,
  `comment on column inactive_clients_with_open_documents.client_name is 'client name (company, or contact when there is no company)'`,
  `comment on column inactive_clients_with_open_documents.city is 'city of the client'`,
  `comment on column inactive_clients_with_open_documents.last_invoice_date is 'date the last invoice to this client was sent'`,
  `comment on column inactive_clients_with_open_documents.open_quotation_count is 'quotations sent and waiting for an answer'`,
  `comment on column inactive_clients_with_open_documents.saved_invoice_count is 'saved invoices not yet sent'`,
  `comment on column inactive_clients_with_open_documents.repeating_invoice_count is 'repeating invoices'`,
  `comment on column inactive_clients_with_open_documents.open_document_count is 'open quotations + saved invoices + repeating invoices'`,
  `create view recent_changes as select detected_at::date as day,
             entity,
             count(*) filter (where op = 'insert')::integer as inserted,
             count(*) filter (where op = 'update')::integer as updated,
             count(*) filter (where op = 'delete')::integer as deleted,
             count(*) filter (where op = 'restore')::integer as restored,
             count(*)::integer as total_changes
        from changes
       where detected_at >= current_date - 30
       group by detected_at::date, entity`,
  `comment on view recent_changes is 'History: the changes the mirror detected in the last 30 days (and today), counted per day and table, deleted records included. For older history or details, query changes.'`,
  `comment on column recent_changes.day is 'day the changes were detected (time zone of the database session)'`,
  `comment on column recent_changes.entity is 'table the changed records live in, e.g. clients'`,
  `comment on column recent_changes.inserted is 'records that appeared'`,
  `comment on column recent_changes.updated is 'records that changed'`,
  `comment on column recent_changes.deleted is 'records that disappeared from the service'`,
  `comment on column recent_changes.restored is 'records that came back after being deleted'`,
  `comment on column recent_changes.total_changes is 'all changes of the day for this table'`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
