/**
 * The built-in reports, as data: each one prints a view of migrations/0004_reports.ts in a fixed
 * order. A report's name is its view's name, so what `invoice-mirror report NAME` prints is also
 * `select * from NAME` in any SQL client.
 */
export interface Report {
  /** What to type after `invoice-mirror report` (also accepted with `-` for `_`). */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** The view it reads. */
  readonly view: string;
  /** The SQL `order by` list. */
  readonly orderBy: string;
}

export const REPORTS: readonly Report[] = [
  {
    name: 'open_quotations',
    title: 'Open quotations',
    description: 'sent, not yet approved or declined; oldest first',
    view: 'open_quotations',
    orderBy: 'days_open desc nulls last, quotation_id',
  },
  {
    name: 'quotation_pipeline',
    title: 'Quotation pipeline',
    description: 'quotations by stage, custom status and approval',
    view: 'quotation_pipeline',
    orderBy: `array_position(array['draft', 'open', 'approved', 'declined'], stage), custom_status, approved`,
  },
  {
    name: 'saved_invoices_by_client',
    title: 'Saved invoices per client',
    description: 'unsent invoices per client: totals, paid, still to pay',
    view: 'saved_invoices_by_client',
    orderBy: 'total_incl_tax desc, client_number',
  },
  {
    name: 'recurring_revenue',
    title: 'Recurring revenue',
    description: 'repeating invoices as monthly and yearly amounts',
    view: 'recurring_revenue',
    orderBy: 'monthly_amount desc nulls last, repeating_invoice_id',
  },
  {
    name: 'recurring_revenue_by_frequency',
    title: 'Recurring revenue per frequency',
    description: 'monthly and yearly amounts per frequency, with a total row',
    view: 'recurring_revenue_by_frequency',
    orderBy: `sends_per_year desc nulls last, frequency = 'all frequencies', frequency`,
  },
  {
    name: 'upcoming_repeating_sends',
    title: 'Upcoming repeating invoices',
    description: 'each invoice repeating invoices send in the next year',
    view: 'upcoming_repeating_sends',
    orderBy: 'send_date, repeating_invoice_id',
  },
  {
    name: 'ending_repeating_invoices',
    title: 'Ending repeating invoices',
    description: 'repeating invoices with an end date, and what remains',
    view: 'ending_repeating_invoices',
    orderBy: 'final_send_date, repeating_invoice_id',
  },
  {
    name: 'product_stock',
    title: 'Product stock',
    description: 'stock-tracked products with stock status and stock value',
    view: 'product_stock',
    orderBy: 'stock nulls first, product_id',
  },
  {
    name: 'low_stock_products',
    title: 'Low stock',
    description: 'tracked products with stock below 5 (or negative)',
    view: 'low_stock_products',
    orderBy: 'stock nulls first, product_id',
  },
  {
    name: 'client_overview',
    title: 'Client overview',
    description: 'documents per client, open work and last invoice date',
    view: 'client_overview',
    orderBy: 'client_number',
  },
  {
    name: 'inactive_clients_with_open_documents',
    title: 'Inactive clients with open documents',
    description: 'non-active clients that still have open documents',
    view: 'inactive_clients_with_open_documents',
    orderBy: 'open_document_count desc, client_number',
  },
  {
    name: 'recent_changes',
    title: 'Recent changes',
    description: 'changes of the last 30 days per day and table (history)',
    view: 'recent_changes',
    orderBy: 'day desc, entity',
  },
];

/** The report of that name (`open-quotations` finds `open_quotations`), or undefined. */
export function findReport(name: string): Report | undefined {
  const wanted = name.trim().toLowerCase().replace(/-/g, '_');
  return REPORTS.find((report) => report.name === wanted);
}
