/**
 * Archived PDFs of sent invoices, fetched by the `fetch_invoice_pdf` job.
 * A literal snapshot: it names tables and columns as they are at this migration.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table invoice_pdfs (
      invoice_id   integer primary key,
      invoicenr    text,
      pdf          bytea not null,
      size_bytes   integer not null,
      sha256       text not null,
      fetched_at   timestamptz not null default now(),
      job_id       bigint
    )`.execute(db);
}
