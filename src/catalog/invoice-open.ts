/**
 * When a sent invoice is open: something is still to be paid and it is not written off as
 * uncollectible. One rule, given here as SQL (the reports' `invoice_is_open`, the incremental
 * sync's "still changing") and as a test of a row (the payment and reminder pre-checks).
 */

/** A row of `invoices` (its `open` and `uncollectible` are read). */
type InvoiceRow = Readonly<Record<string, unknown>>;

/** What `uncollectible` holds on an invoice not written off (the service sends a date or a flag otherwise). */
const NOT_WRITTEN_OFF = ['', '0', 'false'] as const;

/** The rule as an SQL expression over the two columns named. */
export function invoiceOpenSql(open: string, uncollectible: string): string {
  return `coalesce(${open}, 0) > 0 and coalesce(${uncollectible}, '') in (${NOT_WRITTEN_OFF.map((v) => `'${v}'`).join(', ')})`;
}

/** Whether the invoice is written off (`uncollectible` set). */
export function isWrittenOff(invoice: InvoiceRow): boolean {
  return !(NOT_WRITTEN_OFF as readonly string[]).includes(String(invoice.uncollectible ?? ''));
}

/** The rule for a row of `invoices`. */
export function invoiceIsOpen(invoice: InvoiceRow): boolean {
  return Number(invoice.open ?? 0) > 0 && !isWrittenOff(invoice);
}
