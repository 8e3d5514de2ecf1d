/**
 * The built-in reports, as data: each one is a view of the mirror schema, answered over live
 * records only (`deleted_at is null`) unless the name says otherwise (`recent_changes` is history),
 * with what it shows and what each column means. "Today" is always the database's `current_date`.
 *
 * The views and their meanings (`comment on`, so `\d+` in psql says the same as docs/schema.md)
 * are re-applied after the migrations whenever this list changes (src/db/repeatable.ts). A
 * report's name is its view's name: what `invoice-mirror report NAME` prints is also
 * `select * from NAME` in any SQL client, in the report's `orderBy`.
 *
 * Every view carries the account: `account_id` and `account_name` end each view of one account's
 * figures (appended, so views people built on ours stay in place) and begin the cross-account
 * ones. A client number or an id is unique only within an account, so every join between mirror
 * tables matches `account_id` too and every grouping includes it. The views read with the rights
 * of whoever queries them (`security_invoker`, src/db/repeatable.ts), so a role confined to one
 * account by row-level security sees only that account's rows through them.
 *
 * Adding a report: an entry here (after the views it reads), its section in docs/schema.md and
 * its oracle in test/reports/expected.ts. A view's columns may be appended to in place; renaming
 * or removing one needs the views other people built on it dropped first (migrate says which).
 */
import { ENTITIES } from './entity-list.js';
import { invoiceOpenSql } from './invoice-open.js';
import { ACCOUNT_COLUMNS, type Report } from './report-shared.js';
import { PAYMENT_REPORTS } from './payments.js';
import { VAT_FUNCTIONS, VAT_REPORTS } from './vat.js';

export type { Report, ReportChart } from './report-shared.js';

/** Helpers shared by the views; simple SQL functions, which the planner inlines. */
export const REPORT_FUNCTIONS: readonly string[] = [
  `
    create or replace function invoice_is_open(open numeric, uncollectible text) returns boolean language sql immutable as $$
      select ${invoiceOpenSql('open', 'uncollectible')}
    $$
  `,
  `
    comment on function invoice_is_open(numeric, text) is
      'Whether a sent invoice is still to be paid: something open, and not written off as uncollectible.'
  `,
  `
    create or replace function sends_per_year(frequency text) returns integer language sql immutable as $$
      select case lower(frequency)
        when 'weekly' then 52 when 'biweekly' then 26 when 'fourweekly' then 13 when 'monthly' then 12
        when 'bimonthly' then 6 when 'quarterly' then 4 when 'halfyearly' then 2 when 'yearly' then 1
      end
    $$
  `,
  `
    comment on function sends_per_year(text) is
      'How many invoices a repeating invoice of this frequency sends in a year (weekly 52, biweekly 26, fourweekly 13, monthly 12, bimonthly 6, quarterly 4, halfyearly 2, yearly 1; case-insensitive); NULL for an unknown frequency.'
  `,
  `
    create or replace function frequency_step(frequency text) returns interval language sql immutable as $$
      select case lower(frequency)
        when 'weekly' then interval '7 days' when 'biweekly' then interval '14 days'
        when 'fourweekly' then interval '28 days' when 'monthly' then interval '1 month'
        when 'bimonthly' then interval '2 months' when 'quarterly' then interval '3 months'
        when 'halfyearly' then interval '6 months' when 'yearly' then interval '1 year'
      end
    $$
  `,
  `
    comment on function frequency_step(text) is
      'The time between two sends of a repeating invoice of this frequency (case-insensitive); NULL for an unknown frequency.'
  `,
  `
    create or replace function client_display_name(company text, contact text) returns text language sql immutable as $$
      select coalesce(nullif(company, ''), nullif(contact, ''))
    $$
  `,
  `
    comment on function client_display_name(text, text) is
      'The name a client goes by: the company name, or the contact name when there is no company.'
  `,
  ...VAT_FUNCTIONS,
];

/**
 * The mirror tables, whose live rows accounts_overview counts: the catalogue's entities, named
 * from the catalogue's one list (entity-list.ts).
 */
const MIRROR_ENTITIES: readonly string[] = ENTITIES.map((entity) => entity.name);

const CLIENT_NAME_ON_DOCUMENT = 'client name as printed on the document (company, or contact when there is no company)';
const CLIENT_NAME = 'client name (company, or contact when there is no company)';

export const REPORTS: readonly Report[] = [
  {
    name: 'open_quotations',
    title: 'Open quotations',
    description: 'sent, not yet approved or declined; oldest first',
    orderBy: 'account_name, days_open desc nulls last, quotation_id',
    comment:
      'Quotations sent to the client and still waiting for an answer: sent, not approved, not declined. Age in days since the quotation date.',
    select: `
      select q.id as quotation_id,
             q.quotationreference as quotation_reference,
             q.savename as saved_name,
             q.clientnr as client_number,
             client_display_name(q.company, q.contact) as client_name,
             q.date as quotation_date,
             q.datedue as valid_until,
             current_date - q.date as days_open,
             coalesce(q.datedue < current_date, false) as expired,
             coalesce(nullif(lower(q.customstatus), ''), 'none') as custom_status,
             q.totalintax as total_incl_tax,
             q.account_id,
             a.name as account_name
        from quotations q
        join accounts a on a.id = q.account_id
       where q.deleted_at is null
         and q.sent
         and jsonb_typeof(q.approved) is distinct from 'object'
         and coalesce(lower(q.customstatus), '') <> 'declined'`,
    columns: {
      quotation_id: 'id of the quotation',
      quotation_reference: 'public reference printed on the quotation',
      saved_name: 'name the quotation was saved under',
      client_number: 'number of the client the quotation is for',
      client_name: CLIENT_NAME_ON_DOCUMENT,
      quotation_date: 'date the quotation was sent',
      valid_until: 'last day of the quotation period (quotation date plus the period)',
      days_open: 'days since the quotation date',
      expired: 'true when the quotation period has ended (valid_until is before today)',
      custom_status: 'status set by hand: progress, completed or billable; none when not set',
      total_incl_tax: 'quotation total including tax',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'quotation_pipeline',
    title: 'Quotation pipeline',
    description: 'quotations by stage, custom status and approval',
    orderBy: `account_name, array_position(array['draft', 'open', 'approved', 'declined'], stage), custom_status, approved`,
    comment:
      'Live quotations counted by stage and custom status. Stage: draft (not sent), declined (custom status declined), approved (approved by the client), open (sent, waiting for an answer).',
    select: `
      select stage, custom_status, approved,
             count(*)::integer as quotation_count,
             coalesce(sum(totalintax), 0) as total_incl_tax,
             min(date) as oldest_quotation_date,
             account_id,
             account_name
        from (
          select case
                   when not coalesce(q.sent, false) then 'draft'
                   when lower(q.customstatus) = 'declined' then 'declined'
                   when jsonb_typeof(q.approved) = 'object' then 'approved'
                   else 'open'
                 end as stage,
                 coalesce(nullif(lower(q.customstatus), ''), 'none') as custom_status,
                 coalesce(jsonb_typeof(q.approved) = 'object', false) as approved,
                 q.totalintax, q.date, q.account_id, a.name as account_name
            from quotations q
            join accounts a on a.id = q.account_id
           where q.deleted_at is null
        ) staged
       group by account_id, account_name, stage, custom_status, approved`,
    chart: { kind: 'bars', x: 'stage', y: ['total_incl_tax'] },
    columns: {
      stage: 'draft (not sent), open (sent, waiting for an answer), approved, or declined',
      custom_status: 'status set by hand: progress, completed, billable, declined; none when not set',
      approved: 'whether the client approved these quotations',
      quotation_count: 'number of quotations',
      total_incl_tax: 'sum of their totals including tax',
      oldest_quotation_date: 'date of the oldest quotation in the group',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'saved_invoices_by_client',
    title: 'Saved invoices per client',
    description: 'unsent invoices per client: totals, paid, still to pay',
    orderBy: 'account_name, total_incl_tax desc, client_number',
    comment: 'Saved invoices (drafts not yet sent) per client, with their totals and what is still to be paid.',
    select: `
      select s.clientnr as client_number,
             coalesce(client_display_name(c.company, c.contact),
                      (array_agg(client_display_name(s.company, s.contact) order by s.id desc))[1]) as client_name,
             count(*)::integer as saved_invoice_count,
             coalesce(sum(s.totalintax), 0) as total_incl_tax,
             coalesce(sum(s.totaldiscount), 0) as total_discount,
             coalesce(sum(s.alreadypaid), 0) as already_paid,
             coalesce(sum(s.totalintax), 0) - coalesce(sum(s.alreadypaid), 0) as still_to_pay,
             s.account_id,
             a.name as account_name
        from saved_invoices s
        join accounts a on a.id = s.account_id
        left join clients c on c.account_id = s.account_id and c.clientnr = s.clientnr and c.deleted_at is null
       where s.deleted_at is null
       group by s.account_id, a.name, s.clientnr, c.company, c.contact`,
    columns: {
      client_number: 'client number on the invoices (0: no client)',
      client_name: `${CLIENT_NAME}; from the client record, or from the newest invoice when the client is gone`,
      saved_invoice_count: 'number of saved invoices',
      total_incl_tax: 'sum of the invoice totals including tax',
      total_discount: 'sum of the discounts given on the invoices',
      already_paid: 'sum of the amounts already marked as paid',
      still_to_pay: 'total including tax minus what is already paid',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'recurring_revenue',
    title: 'Recurring revenue',
    description: 'repeating invoices as monthly and yearly amounts',
    orderBy: 'account_name, monthly_amount desc nulls last, repeating_invoice_id',
    comment:
      'Repeating invoices with their amount converted to a monthly and a yearly amount. Monthly amount = amount per invoice x sends per year / 12, where sends per year by frequency is weekly 52, biweekly 26, fourweekly 13, monthly 12, bimonthly 6, quarterly 4, halfyearly 2, yearly 1 (so weekly x52/12, biweekly x26/12, fourweekly x13/12, monthly x1, bimonthly x1/2, quarterly x1/3, halfyearly x1/6, yearly x1/12). Frequencies compare case-insensitively; an unknown one gives NULL amounts.',
    select: `
      select r.id as repeating_invoice_id,
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
             r.finalsenddate as final_send_date,
             r.account_id,
             a.name as account_name
        from repeating_invoices r
        join accounts a on a.id = r.account_id
       where r.deleted_at is null`,
    columns: {
      repeating_invoice_id: 'id of the repeating invoice',
      invoice_name: 'name of the repeating invoice',
      client_number: 'number of the client invoiced',
      client_name: CLIENT_NAME_ON_DOCUMENT,
      frequency:
        'how often it is sent: weekly, biweekly, fourweekly, monthly, bimonthly, quarterly, halfyearly, yearly',
      sends_per_year: 'invoices sent per year at this frequency',
      amount_per_invoice: 'total including tax of each invoice sent',
      yearly_amount: 'amount per invoice x sends per year',
      monthly_amount: 'yearly amount / 12, rounded to cents',
      sent_automatically:
        'true when the service sends it by itself (repeat type auto), false when someone sends it by hand',
      next_send_date: 'date the next invoice is sent',
      days_until_next_send: 'days from today to the next send date (negative when the mirror is behind)',
      final_send_date: 'date of the last invoice; empty when it repeats without end',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'recurring_revenue_by_frequency',
    title: 'Recurring revenue per frequency',
    description: 'monthly and yearly amounts per frequency, with a total row',
    orderBy: `account_name, sends_per_year desc nulls last, frequency = 'all frequencies', frequency`,
    comment:
      'Recurring revenue per frequency, plus a final row "all frequencies" with the totals, per account. Monthly amount = sum of (amount per invoice x sends per year) / 12, rounded to cents (see recurring_revenue).',
    select: `
      select case when grouping(lower(r.frequency)) = 1 then 'all frequencies' else lower(r.frequency) end as frequency,
             case when grouping(lower(r.frequency)) = 0 then max(sends_per_year(r.frequency)) end as sends_per_year,
             count(*)::integer as repeating_invoice_count,
             coalesce(sum(r.totalintax * sends_per_year(r.frequency)), 0) as yearly_amount,
             round(coalesce(sum(r.totalintax * sends_per_year(r.frequency)), 0) / 12, 2) as monthly_amount,
             r.account_id,
             a.name as account_name
        from repeating_invoices r
        join accounts a on a.id = r.account_id
       where r.deleted_at is null
       group by r.account_id, a.name, rollup (lower(r.frequency))`,
    columns: {
      frequency: 'how often the invoices are sent; "all frequencies" on the totals row',
      sends_per_year: 'invoices sent per year at this frequency (empty on the totals row)',
      repeating_invoice_count: 'number of repeating invoices',
      yearly_amount: 'sum of amount per invoice x sends per year, including tax',
      monthly_amount: 'yearly amount / 12, rounded to cents',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'upcoming_repeating_sends',
    title: 'Upcoming repeating invoices',
    description: 'every invoice the repeating invoices will send in the next year',
    orderBy: 'account_name, send_date, repeating_invoice_id',
    comment:
      'Every invoice the repeating invoices will send in the coming year: one row per send date from today on (a next send date in the past, which the service has not moved on yet, is stepped forward), each one step of the frequency after the previous (weekly 7 days, biweekly 14, fourweekly 28, monthly 1 month, bimonthly 2, quarterly 3, halfyearly 6, yearly 12; a monthly send on the 31st moves to the 28th in February and stays there), up to the final send date and to before the same day next year.',
    select: `
      select r.id as repeating_invoice_id,
             r.name as invoice_name,
             r.clientnr as client_number,
             client_display_name(r.company, r.contact) as client_name,
             d.send_date::date as send_date,
             lower(r.frequency) as frequency,
             r.totalintax as amount_incl_tax,
             lower(r.repeattype) = 'auto' as sent_automatically,
             r.account_id,
             a.name as account_name
        from repeating_invoices r
        join accounts a on a.id = r.account_id
       cross join lateral generate_series(
               r.nextsenddate::timestamp,
               least(r.finalsenddate::timestamp, current_date + interval '1 year' - interval '1 day'),
               frequency_step(r.frequency)) as d(send_date)
       where r.deleted_at is null and d.send_date >= current_date`,
    columns: {
      repeating_invoice_id: 'id of the repeating invoice',
      invoice_name: 'name of the repeating invoice',
      client_number: 'number of the client invoiced',
      client_name: CLIENT_NAME_ON_DOCUMENT,
      send_date: 'date this invoice is sent',
      frequency: 'how often the repeating invoice is sent',
      amount_incl_tax: 'total including tax of the invoice sent on this date',
      sent_automatically: 'true when the service sends it by itself, false when someone sends it by hand',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'ending_repeating_invoices',
    title: 'Ending repeating invoices',
    description: 'repeating invoices with an end date, and what remains',
    orderBy: 'account_name, final_send_date, repeating_invoice_id',
    comment:
      'Repeating invoices that have a final send date: when they end, how many invoices they still send and for how much.',
    select: `
      select r.id as repeating_invoice_id,
             r.name as invoice_name,
             r.clientnr as client_number,
             client_display_name(r.company, r.contact) as client_name,
             lower(r.frequency) as frequency,
             r.totalintax as amount_per_invoice,
             r.nextsenddate as next_send_date,
             r.finalsenddate as final_send_date,
             r.finalsenddate - current_date as days_until_end,
             remaining.sends as sends_remaining,
             remaining.sends * r.totalintax as remaining_amount,
             r.account_id,
             a.name as account_name
        from repeating_invoices r
        join accounts a on a.id = r.account_id
       cross join lateral (
               select count(*)::integer as sends
                 from generate_series(r.nextsenddate::timestamp, r.finalsenddate::timestamp, frequency_step(r.frequency))
             ) remaining
       where r.deleted_at is null
         and r.finalsenddate is not null`,
    columns: {
      repeating_invoice_id: 'id of the repeating invoice',
      invoice_name: 'name of the repeating invoice',
      client_number: 'number of the client invoiced',
      client_name: CLIENT_NAME_ON_DOCUMENT,
      frequency: 'how often it is sent',
      amount_per_invoice: 'total including tax of each invoice sent',
      next_send_date: 'date the next invoice is sent',
      final_send_date: 'date of the last invoice; after it the repeating invoice is deleted',
      days_until_end: 'days from today to the final send date',
      sends_remaining: 'invoices still to be sent, from the next send date up to and including the final send date',
      remaining_amount: 'sends remaining x amount per invoice',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'product_stock',
    title: 'Product stock',
    description: 'stock-tracked products with stock status and stock value',
    orderBy: 'account_name, stock nulls first, product_id',
    comment:
      'Products whose stock is tracked, with stock value and status (negative, out of stock, low = fewer than 5 units, in stock).',
    select: `
      select p.id as product_id,
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
             round(p.stock * p.price, 2) as stock_value_excl_tax,
             p.account_id,
             a.name as account_name
        from products p
        join accounts a on a.id = p.account_id
       where p.deleted_at is null
         and p.stock_use`,
    chart: { kind: 'bars', x: 'stock_status', y: ['stock_value_excl_tax'] },
    columns: {
      product_id: 'id of the product',
      product_code: 'your own product code',
      product_name: 'name shown on invoices',
      stock: 'units in stock (can be negative)',
      stock_status: 'negative, out of stock (0), low (fewer than 5), in stock; unknown when the service sent no number',
      price_excl_tax: 'unit price excluding tax',
      stock_value_excl_tax: 'stock x unit price excluding tax, rounded to cents',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'low_stock_products',
    title: 'Low stock',
    description: 'tracked products with stock below 5 (or negative)',
    orderBy: 'account_name, stock nulls first, product_id',
    comment:
      'Stock-tracked products that need attention: negative stock, out of stock, or fewer than 5 units (see product_stock).',
    select: `
      select product_id, product_code, product_name, stock, stock_status, price_excl_tax, account_id, account_name
        from product_stock
       where stock_status in ('negative', 'out of stock', 'low')`,
    columns: {
      product_id: 'id of the product',
      product_code: 'your own product code',
      product_name: 'name shown on invoices',
      stock: 'units in stock (can be negative)',
      stock_status: 'negative, out of stock (0) or low (fewer than 5)',
      price_excl_tax: 'unit price excluding tax',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'client_overview',
    title: 'Client overview',
    description: 'documents per client, open work and last invoice date',
    orderBy: 'account_name, client_number',
    comment:
      'One row per client: documents per client, open work and last invoice date. Open documents = open quotations (see open_quotations) + saved invoices not yet sent + repeating invoices.',
    select: `
      with quotation_counts as (
             select account_id, clientnr, count(*) as n
               from quotations where deleted_at is null group by account_id, clientnr
           ),
           invoice_sums as (
             select account_id, clientnr, count(*) as n, sum(totalintax) as invoiced,
                    sum(open) filter (where invoice_is_open(open, uncollectible)) as open
               from invoices where deleted_at is null group by account_id, clientnr
           ),
           open_quotation_counts as (
             select account_id, client_number as clientnr, count(*) as n, sum(total_incl_tax) as total
               from open_quotations group by account_id, client_number
           ),
           saved_counts as (
             select account_id, clientnr, count(*) as n, sum(totalintax) as total
               from saved_invoices where deleted_at is null group by account_id, clientnr
           ),
           repeating_counts as (
             select account_id, clientnr, count(*) as n, sum(totalintax * sends_per_year(frequency)) as yearly
               from repeating_invoices where deleted_at is null group by account_id, clientnr
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
             (coalesce(oq.n, 0) + coalesce(s.n, 0) + coalesce(r.n, 0))::integer as open_document_count,
             coalesce(i.n, 0)::integer as invoice_count,
             coalesce(i.invoiced, 0) as invoiced_incl_tax,
             coalesce(i.open, 0) as open_invoice_amount,
             c.account_id,
             a.name as account_name
        from clients c
        join accounts a on a.id = c.account_id
        left join quotation_counts q on q.account_id = c.account_id and q.clientnr = c.clientnr
        left join open_quotation_counts oq on oq.account_id = c.account_id and oq.clientnr = c.clientnr
        left join saved_counts s on s.account_id = c.account_id and s.clientnr = c.clientnr
        left join repeating_counts r on r.account_id = c.account_id and r.clientnr = c.clientnr
        left join invoice_sums i on i.account_id = c.account_id and i.clientnr = c.clientnr
       where c.deleted_at is null`,
    columns: {
      client_number: 'client number',
      client_name: CLIENT_NAME,
      city: 'city of the client',
      active: 'false for clients set to non-active (hidden in the web application)',
      last_invoice_date: 'date the last invoice to this client was sent',
      days_since_last_invoice: 'days from the last invoice date to today',
      quotation_count: 'number of quotations (any state)',
      open_quotation_count: 'quotations sent and waiting for an answer',
      open_quotation_total: 'sum of the open quotations, including tax',
      saved_invoice_count: 'saved invoices not yet sent',
      saved_invoice_total: 'sum of the saved invoices, including tax',
      repeating_invoice_count: 'repeating invoices',
      monthly_recurring_amount: 'monthly amount of the repeating invoices (see recurring_revenue)',
      open_document_count: 'open quotations + saved invoices + repeating invoices',
      invoice_count: 'sent invoices (any state)',
      invoiced_incl_tax: 'sum of the sent invoices, including tax',
      open_invoice_amount: 'what is still to be paid on the sent invoices (not counting those written off)',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'inactive_clients_with_open_documents',
    title: 'Inactive clients with open documents',
    description: 'non-active clients that still have open documents',
    orderBy: 'account_name, open_document_count desc, client_number',
    comment:
      'Clients set to non-active that still have open documents (open quotations, saved invoices or repeating invoices): work that may be forgotten.',
    select: `
      select client_number, client_name, city, last_invoice_date,
             open_quotation_count, saved_invoice_count, repeating_invoice_count, open_document_count,
             account_id, account_name
        from client_overview
       where active = false
         and open_document_count > 0`,
    columns: {
      client_number: 'client number',
      client_name: CLIENT_NAME,
      city: 'city of the client',
      last_invoice_date: 'date the last invoice to this client was sent',
      open_quotation_count: 'quotations sent and waiting for an answer',
      saved_invoice_count: 'saved invoices not yet sent',
      repeating_invoice_count: 'repeating invoices',
      open_document_count: 'open quotations + saved invoices + repeating invoices',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'invoice_revenue_per_month',
    title: 'Invoiced per month',
    description: 'sent invoices per month: totals excluding and including tax, still open',
    orderBy: 'account_name, month desc',
    comment:
      'Sent invoices per calendar month of their send date: how many, their totals excluding tax, the tax and including tax, and what of them is still to be paid. Invoices without a send date (some old ones) are left out.',
    select: `
      select date_trunc('month', i.sent)::date as month,
             count(*)::integer as invoice_count,
             coalesce(sum(i.totalintax - coalesce(i.tax, 0)), 0) as total_excl_tax,
             coalesce(sum(i.tax), 0) as tax,
             coalesce(sum(i.totalintax), 0) as total_incl_tax,
             coalesce(sum(i.open) filter (where invoice_is_open(i.open, i.uncollectible)), 0) as still_open,
             i.account_id,
             a.name as account_name
        from invoices i
        join accounts a on a.id = i.account_id
       where i.deleted_at is null and i.sent is not null
       group by i.account_id, a.name, date_trunc('month', i.sent)`,
    chart: { kind: 'lines', x: 'month', y: ['total_incl_tax', 'still_open'] },
    columns: {
      month: 'first day of the month the invoices were sent in',
      invoice_count: 'invoices sent that month',
      total_excl_tax: 'their totals excluding tax',
      tax: 'their tax',
      total_incl_tax: 'their totals including tax',
      still_open: 'what of them is still to be paid (not counting those written off)',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'open_receivables',
    title: 'Open receivables',
    description: 'sent invoices still to be paid, with days overdue and aging bucket',
    orderBy: 'account_name, days_overdue desc, invoice_id',
    comment:
      'Sent invoices with something still to be paid (not written off as uncollectible), with how many days they are past their due date and their aging bucket (0-30, 31-60, 61-90, 90+ days overdue; not yet due counts as 0).',
    select: `
      select i.id as invoice_id,
             i.invoicenr as invoice_number,
             i.clientnr as client_number,
             client_display_name(i.company, i.contact) as client_name,
             i.sent as sent_date,
             i.duedate as due_date,
             coalesce(i.duedate < current_date, false) as overdue,
             greatest(coalesce(current_date - i.duedate, 0), 0) as days_overdue,
             case
               when coalesce(current_date - i.duedate, 0) <= 30 then '0-30'
               when current_date - i.duedate <= 60 then '31-60'
               when current_date - i.duedate <= 90 then '61-90'
               else '90+'
             end as aging_bucket,
             i.totalintax as total_incl_tax,
             i.open as open_amount,
             i.account_id,
             a.name as account_name
        from invoices i
        join accounts a on a.id = i.account_id
       where i.deleted_at is null and invoice_is_open(i.open, i.uncollectible)`,
    columns: {
      invoice_id: 'id of the invoice',
      invoice_number: 'invoice number',
      client_number: 'number of the client the invoice is for',
      client_name: CLIENT_NAME_ON_DOCUMENT,
      sent_date: 'date the invoice was sent',
      due_date: 'date payment was due',
      overdue: 'true when the due date has passed',
      days_overdue: 'days since the due date (0 when not yet due, or without a due date)',
      aging_bucket: '0-30, 31-60, 61-90 or 90+ days overdue',
      total_incl_tax: 'invoice total including tax',
      open_amount: 'what is still to be paid',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'receivables_aging',
    title: 'Receivables by age',
    description: 'what is still to be paid, per aging bucket',
    orderBy: `account_name, array_position(array['0-30', '31-60', '61-90', '90+'], aging_bucket)`,
    comment:
      'Open receivables (see open_receivables) summed per aging bucket: 0-30, 31-60, 61-90 and 90+ days overdue.',
    select: `
      select aging_bucket,
             count(*)::integer as invoice_count,
             coalesce(sum(open_amount), 0) as open_amount,
             max(days_overdue) as most_days_overdue,
             account_id,
             account_name
        from open_receivables
       group by account_id, account_name, aging_bucket`,
    columns: {
      aging_bucket: '0-30, 31-60, 61-90 or 90+ days overdue',
      invoice_count: 'invoices in the bucket',
      open_amount: 'what they still have to be paid',
      most_days_overdue: 'days overdue of the oldest one',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'client_payment_behaviour',
    title: 'Payment behaviour per client',
    description: 'per client: invoices paid, average days to pay and late, what is open',
    orderBy: 'account_name, average_days_late desc nulls last, client_number',
    comment:
      'Per client with sent invoices: how many were paid in full, how many days after sending they were paid on average, how many days after the due date (negative: early), and what is still open.',
    select: `
      select i.clientnr as client_number,
             client_display_name(c.company, c.contact) as client_name,
             count(*)::integer as invoice_count,
             count(*) filter (where i.paiddate is not null)::integer as paid_invoice_count,
             round(avg(i.paiddate - i.sent) filter (where i.paiddate is not null and i.sent is not null), 1)
               as average_days_to_pay,
             round(avg(i.paiddate - i.duedate) filter (where i.paiddate is not null and i.duedate is not null), 1)
               as average_days_late,
             count(*) filter (where invoice_is_open(i.open, i.uncollectible))::integer as open_invoice_count,
             coalesce(sum(i.open) filter (where invoice_is_open(i.open, i.uncollectible)), 0) as open_amount,
             i.account_id,
             a.name as account_name
        from invoices i
        join accounts a on a.id = i.account_id
        left join clients c on c.account_id = i.account_id and c.clientnr = i.clientnr and c.deleted_at is null
       where i.deleted_at is null
       group by i.account_id, a.name, i.clientnr, c.company, c.contact`,
    columns: {
      client_number: 'client number (0: invoices without a client, on old records)',
      client_name: CLIENT_NAME,
      invoice_count: 'sent invoices',
      paid_invoice_count: 'of which paid in full',
      average_days_to_pay: 'average days from sending to payment in full (one decimal)',
      average_days_late: 'average days from the due date to payment in full; negative when paid early (one decimal)',
      open_invoice_count: 'invoices still to be paid (not counting those written off)',
      open_amount: 'what they still have to be paid',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'repeating_invoice_sends',
    title: 'Invoices sent per repeating invoice',
    description: 'per repeating invoice: the sent invoices that match it, their total and what is open',
    orderBy: 'account_name, matched_invoice_count desc, repeating_invoice_id',
    comment:
      'Per repeating invoice, the sent invoices that match it: same client, same total including tax, sent on or after its initial date. The service records no link from a sent invoice to the repeating invoice that made it, so this is a match, not a link: an invoice sent by hand with the same client and total counts too.',
    select: `
      select r.id as repeating_invoice_id,
             r.name as invoice_name,
             r.clientnr as client_number,
             client_display_name(r.company, r.contact) as client_name,
             lower(r.frequency) as frequency,
             r.totalintax as amount_per_invoice,
             r.initialdate as initial_date,
             count(i.id)::integer as matched_invoice_count,
             max(i.sent) as last_sent_date,
             coalesce(sum(i.totalintax), 0) as matched_total_incl_tax,
             coalesce(sum(i.open) filter (where invoice_is_open(i.open, i.uncollectible)), 0) as open_amount,
             r.account_id,
             a.name as account_name
        from repeating_invoices r
        join accounts a on a.id = r.account_id
        left join invoices i
          on i.account_id = r.account_id and i.deleted_at is null and i.clientnr = r.clientnr
             and i.totalintax = r.totalintax and i.sent >= r.initialdate
       where r.deleted_at is null
       group by r.account_id, r.id, a.name`,
    columns: {
      repeating_invoice_id: 'id of the repeating invoice',
      invoice_name: 'name of the repeating invoice',
      client_number: 'number of the client invoiced',
      client_name: CLIENT_NAME_ON_DOCUMENT,
      frequency: 'how often it is sent',
      amount_per_invoice: 'total including tax of each invoice sent',
      initial_date: 'date the first invoice is (or was) sent',
      matched_invoice_count: 'sent invoices that match it (same client and total, sent since the initial date)',
      last_sent_date: 'send date of the latest of them',
      matched_total_incl_tax: 'their totals including tax',
      open_amount: 'what of them is still to be paid',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'recent_changes',
    title: 'Recent changes',
    description: 'changes of the last 30 days per day and table (history)',
    orderBy: 'account_name, day desc, entity',
    comment:
      'History: the changes the mirror detected in the last 30 days (and today), counted per account, day and table, deleted records included. For older history or details, query changes.',
    select: `
      select detected_at::date as day,
             entity,
             count(*) filter (where op = 'insert')::integer as inserted,
             count(*) filter (where op = 'update')::integer as updated,
             count(*) filter (where op = 'delete')::integer as deleted,
             count(*) filter (where op = 'restore')::integer as restored,
             count(*)::integer as total_changes,
             ch.account_id,
             a.name as account_name
        from changes ch
        join accounts a on a.id = ch.account_id
       where detected_at >= current_date - 30
       group by ch.account_id, a.name, detected_at::date, entity`,
    columns: {
      day: 'day the changes were detected (time zone of the database session)',
      entity: 'table the changed records live in, e.g. clients',
      inserted: 'records that appeared',
      updated: 'records that changed',
      deleted: 'records that disappeared from the service',
      restored: 'records that came back after being deleted',
      total_changes: 'all changes of the day for this table',
      ...ACCOUNT_COLUMNS,
    },
  },
  {
    name: 'receivables_by_account',
    title: 'Receivables per account and client',
    description: 'per account and client: open invoices, what is open and overdue, the oldest due date',
    orderBy: 'account_name, open_amount desc, client_number',
    comment:
      'Open receivables (see open_receivables) per account and client: how many invoices are still to be paid and for how much, how much of it is overdue, and the oldest due date.',
    select: `
      select r.account_id,
             r.account_name,
             r.client_number,
             coalesce(client_display_name(c.company, c.contact),
                      (array_agg(r.client_name order by r.invoice_id desc))[1]) as client_name,
             count(*)::integer as open_invoices,
             coalesce(sum(r.open_amount), 0) as open_amount,
             count(*) filter (where r.overdue)::integer as overdue_invoices,
             coalesce(sum(r.open_amount) filter (where r.overdue), 0) as overdue_amount,
             min(r.due_date) as oldest_due_date,
             max(r.days_overdue) as most_days_overdue
        from open_receivables r
        left join clients c on c.account_id = r.account_id and c.clientnr = r.client_number and c.deleted_at is null
       group by r.account_id, r.account_name, r.client_number, c.company, c.contact`,
    columns: {
      account_id: ACCOUNT_COLUMNS.account_id,
      account_name: ACCOUNT_COLUMNS.account_name,
      client_number: 'client number on the invoices (0: invoices without a client)',
      client_name: `${CLIENT_NAME}; from the client record, or from the newest invoice when the client is gone`,
      open_invoices: 'invoices still to be paid (not counting those written off)',
      open_amount: 'what they still have to be paid',
      overdue_invoices: 'of which past their due date',
      overdue_amount: 'what the overdue ones still have to be paid',
      oldest_due_date: 'the earliest due date among them',
      most_days_overdue: 'days overdue of the oldest one (0 when none is overdue)',
    },
  },
  {
    name: 'revenue_per_account_month',
    title: 'Revenue per account and month',
    description: 'sent-invoice revenue per month and account, with each account’s share of the month',
    orderBy: 'month desc, account_name',
    comment:
      'Sent invoices per calendar month and account (see invoice_revenue_per_month), side by side per month, with each account’s share of the month’s total including tax over all the accounts the querying role may read.',
    select: `
      select m.account_id,
             m.account_name,
             m.month,
             m.invoice_count,
             m.total_excl_tax,
             m.tax,
             m.total_incl_tax,
             m.still_open,
             round(100 * m.total_incl_tax / nullif(sum(m.total_incl_tax) over (partition by m.month), 0), 1)
               as share_of_month_pct
        from invoice_revenue_per_month m`,
    columns: {
      account_id: ACCOUNT_COLUMNS.account_id,
      account_name: ACCOUNT_COLUMNS.account_name,
      month: 'first day of the month the invoices were sent in',
      invoice_count: 'invoices the account sent that month',
      total_excl_tax: 'their totals excluding tax',
      tax: 'their tax',
      total_incl_tax: 'their totals including tax',
      still_open: 'what of them is still to be paid (not counting those written off)',
      share_of_month_pct:
        'the account’s part of the month’s total including tax over all the accounts the querying role may read (also when the report shows fewer), in percent (one decimal); empty when that total is 0',
    },
  },
  {
    name: 'accounts_overview',
    title: 'Accounts',
    description: 'one row per account: state, last complete sync, records, jobs and what needs a person',
    orderBy: 'account_name',
    comment:
      'One row per account of the mirror: its state, when a complete pull (backfill or sync) last succeeded and how long ago, how many live records it holds, its job queue, and what waits for a person (held deletes, values not stored as sent).',
    select: `
      with live as (
             ${MIRROR_ENTITIES.map((table) => `select account_id, count(*) as n from ${table} where deleted_at is null group by account_id`).join('\n             union all ')}
           ),
           records as (select account_id, sum(n)::bigint as n from live group by account_id),
           pulls as (
             select account_id, max(finished_at) as at from sync_runs
              where status = 'succeeded' and kind in ('backfill', 'sync') group by account_id
           ),
           queue as (
             select account_id,
                    count(*) filter (where status = 'queued')::integer as queued,
                    count(*) filter (where status in ('failed', 'interrupted'))::integer as failed
               from jobs group by account_id
           ),
           held as (select account_id, count(*)::integer as n from held_deletes group by account_id),
           rejected as (select account_id, count(*)::integer as n from rejected_values group by account_id)
      select a.id as account_id,
             a.name as account_name,
             a.state,
             a.state_reason,
             p.at as last_complete_sync_at,
             date_trunc('second', now() - p.at) as sync_age,
             coalesce(r.n, 0)::bigint as records,
             coalesce(q.queued, 0) as queued_jobs,
             coalesce(q.failed, 0) as failed_jobs,
             coalesce(h.n, 0) as held_deletes,
             coalesce(x.n, 0) as rejected_values
        from accounts a
        left join records r on r.account_id = a.id
        left join pulls p on p.account_id = a.id
        left join queue q on q.account_id = a.id
        left join held h on h.account_id = a.id
        left join rejected x on x.account_id = a.id`,
    columns: {
      account_id: 'id of the account (accounts.id)',
      account_name: 'name of the account',
      state: 'active (pulled and running jobs), paused, refused (the service refused its key) or removed',
      state_reason: 'why it is paused, refused or removed',
      last_complete_sync_at:
        'when the newest backfill or sync of the account that succeeded (every entity pulled completely) finished; empty: never',
      sync_age: 'how long ago that was, to the second',
      records: `live records of the account in the mirror tables (${MIRROR_ENTITIES.join(', ')}; lines not counted)`,
      queued_jobs: 'jobs waiting to run',
      failed_jobs: 'jobs that failed or were interrupted (they wait for a person: jobs retry or cancel)',
      held_deletes: 'deletes held by the delete safeguard (see held_deletes)',
      rejected_values: 'values not stored as the service sent them (see rejected_values)',
    },
  },
  ...VAT_REPORTS,
  ...PAYMENT_REPORTS,
];

/** The report of that name (`open-quotations` finds `open_quotations`), or undefined. */
export function findReport(name: string): Report | undefined {
  const wanted = name.trim().toLowerCase().replace(/-/g, '_');
  return REPORTS.find((report) => report.name === wanted);
}
