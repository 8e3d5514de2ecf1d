/** `invoice_pdfs` read back: an invoice's archived PDF (the `fetch_invoice_pdf` job writes it). */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** One account's invoice: an invoice id is unique only within its account. */
export function archivedPdf(db: Kysely<Database>, accountId: number, invoiceId: number) {
  return db
    .selectFrom('invoice_pdfs')
    .select(['pdf', 'size_bytes', 'sha256', 'fetched_at'])
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .executeTakeFirst();
}
