/**
 * `invoice-mirror invoice pdf ID [--out FILE] [--account NAME]`: prints or saves the archived PDF
 * of a sent invoice of an account; one not archived yet is fetched through a `fetch_invoice_pdf`
 * job of the account (queued once per account and invoice).
 */
import { resolveAccounts } from '../accounts/resolve.js';
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { RunError, UsageError } from '../errors.js';
import { archivedPdf } from '../db/index.js';
import { addJob, getJob, PrecheckError } from '../jobs/index.js';
import { positiveInteger, withApp } from './context.js';

export function registerInvoiceCommand(invoice: Command): void {
  invoice
    .command('pdf')
    .description('print (or save with --out) the archived PDF of a sent invoice; queue its fetch when not archived')
    .argument('<id>', 'the invoice id (not its number)', positiveInteger('id'))
    .option('--out <file>', 'write the PDF to this file instead of stdout')
    .option('--account <name>', "the invoice's account (required when the mirror holds several)")
    .action(
      withApp({}, async (app, id: number, options: { out?: string; account?: string }) => {
        const { db } = app.database;
        // Invoice ids are the service's, so unique only within an account.
        const account = await resolveAccounts(db, options.account, { one: true });
        const archived = await archivedPdf(db, account.id, id);
        if (!archived) {
          const { id: jobId } = await addJob(db, account.id, {
            kind: 'fetch_invoice_pdf',
            payload: { id },
            idempotencyKey: `fetch_invoice_pdf:${id}`,
            maxAttempts: app.config.jobs.maxAttempts,
          }).catch((error: unknown) => {
            if (error instanceof PrecheckError) throw new RunError(`${error.message}; nothing queued`);
            throw error;
          });
          const job = await getJob(db, jobId);
          const state =
            job.status === 'queued' || job.status === 'running'
              ? `job ${jobId} (fetch_invoice_pdf) is ${job.status}; it runs with 'invoice-mirror jobs run' or the daemon`
              : `job ${jobId} (fetch_invoice_pdf) ended ${job.status}${job.last_error ? ` (${job.last_error})` : ''}; 'invoice-mirror jobs retry ${jobId}' tries again`;
          throw new RunError(`the PDF of invoice ${id} is not archived yet: ${state}; then run this command again`);
        }
        if (options.out) {
          writeFileSync(options.out, archived.pdf);
          process.stderr.write(
            `invoice-mirror: wrote ${archived.size_bytes} bytes (sha256 ${archived.sha256.slice(0, 12)}…, fetched ${archived.fetched_at.toISOString()}) to ${options.out}\n`,
          );
          return;
        }
        if (process.stdout.isTTY)
          throw new UsageError('a PDF is not for the terminal: give --out FILE, or redirect stdout');
        process.stdout.write(archived.pdf);
      }),
    );
}
