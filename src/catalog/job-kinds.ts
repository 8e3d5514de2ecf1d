/**
 * The names of the job kinds: what a row of `jobs.kind` may hold. The database checks it at
 * INSERT (a constraint the repeatable step keeps equal to this list), so a kind misspelled in SQL
 * is refused at once instead of failing when it runs. Each name has its handler in
 * `src/jobs/kinds.ts`, which the type checker holds to this list.
 */
export const JOB_KIND_NAMES = [
  'send_saved_invoices',
  'delete_saved_invoice',
  'delete_repeating_invoice',
  'create_client',
  'update_client',
  'delete_client',
  'create_product',
  'update_product',
  'set_product_stock',
  'delete_product',
  'create_quotation',
  'send_quotation',
  'approve_quotation',
  'remove_quotation_approval',
  'set_quotation_status',
  'delete_quotation',
  'create_invoice',
  'register_payment',
  'send_reminder',
  'delete_invoice',
  'fetch_invoice_pdf',
] as const;

export type JobKindName = (typeof JOB_KIND_NAMES)[number];
