/**
 * `invoice-mirror export xaf|ubl`: an account's books as files for other tools, read from the
 * mirror only (no job, no request to the service, no quota): the XAF 4.0 auditfile of a year, and
 * Peppol BIS Billing 3.0 UBL invoices and credit notes of a period or of one invoice.
 */
import { resolveAccounts } from '../accounts/resolve.js';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.js';
import { RunError, UsageError } from '../errors.js';
import type { InvoiceProblem } from '../exports/mirror.js';
import { parsePeriod, yearPeriod, type Period } from '../exports/period.js';
import { accountVatCountry, sellerCountryProblem, ublExport, xafExport } from '../exports/run.js';
import type { Seller } from '../exports/model.js';
import { accountSeller, readSeller } from '../exports/seller.js';
import { ublSellerProblem } from '../exports/ubl.js';
import { writeXaf } from '../exports/xaf.js';
import { plural } from '../format.js';
import { positiveInteger, withApp } from './context.js';

const SELLER_HELP =
  "JSON file with the administration's own details (name, vatNumber, country, kvk, address, iban); default: the account's NAME.json in EXPORT_SELLERS";

function reportProblems(problems: readonly InvoiceProblem[], what: string): void {
  for (const p of problems)
    process.stderr.write(`invoice-mirror: invoice ${p.number} (id ${p.id}) ${what}: ${p.problem}\n`);
}

/** The seller must be of the country the account's VAT is classified by (a UsageError otherwise). */
async function checkSellerCountry(db: Kysely<Database>, account: { id: number; name: string }, seller: Seller) {
  const problem = sellerCountryProblem(seller, await accountVatCountry(db, account.id), account.name);
  if (problem) throw new UsageError(`--seller: ${problem}`);
}

interface XafOptions {
  account: string;
  year: Period;
  out?: string;
  seller?: Seller;
}

function registerXaf(exportCommand: Command): void {
  exportCommand
    .command('xaf')
    .description("an account's sales journal of a year as an XML Auditfile Financieel 4.0 (to stdout or --out)")
    .requiredOption('--account <name>', 'the account')
    .requiredOption('--year <year>', 'the fiscal year, e.g. 2026', (value: string) => yearPeriod('--year', value))
    .option('--seller <file>', SELLER_HELP, (value: string) => readSeller(value))
    .option('--out <file>', 'write the auditfile to this file instead of stdout')
    .action(
      withApp({}, async (app, options: XafOptions) => {
        const account = await resolveAccounts(app.database.db, options.account, { one: true });
        const seller = accountSeller(options.seller, app.config.exports.sellers, account.name);
        await checkSellerCountry(app.database.db, account, seller);
        const xaf = await xafExport(app.database.db, account.id, options.year, seller);
        if (xaf.input.invoices.length === 0 && xaf.input.payments.length === 0)
          throw new RunError(
            `account ${account.name} has no sent invoices or payments in ${options.year.label} in the mirror; run 'invoice-mirror sync' first, or choose another --year`,
          );
        reportProblems(xaf.problems, 'booked with the VAT it states, but not classified');
        reportProblems(xaf.notes, 'booked');
        for (const p of xaf.paymentProblems)
          process.stderr.write(
            `invoice-mirror: a payment of invoice ${p.invoiceNumber} (id ${p.invoiceId}) on ${p.date}: ${p.problem}\n`,
          );
        const out = options.out ? createWriteStream(options.out) : process.stdout;
        writeXaf(xaf.input, (chunk) => out.write(chunk));
        if (options.out)
          await new Promise<void>((resolve, reject) =>
            (out as ReturnType<typeof createWriteStream>).end((error?: Error | null) =>
              error ? reject(error) : resolve(),
            ),
          );
        const undated = xaf.undated ? `; ${plural(xaf.undated, 'invoice')} without a date sent belong to no year` : '';
        process.stderr.write(
          `invoice-mirror: ${plural(xaf.input.invoices.length, 'invoice')} and ${plural(xaf.input.payments.length, 'payment')} of ${options.year.label}${options.out ? ` written to ${options.out}` : ''}${xaf.problems.length ? `, ${plural(xaf.problems.length, 'invoice')} not classified (above)` : ''}${undated}\n`,
        );
      }),
    );
}

interface UblOptions {
  account: string;
  invoice?: number;
  period?: Period;
  out?: string;
  seller?: Seller;
}

function registerUbl(exportCommand: Command): void {
  exportCommand
    .command('ubl')
    .description('Peppol BIS Billing 3.0 UBL invoices (credit notes for negative totals) of one invoice or a period')
    .requiredOption('--account <name>', 'the account')
    .option('--invoice <id>', 'one invoice, by its id (not its number)', positiveInteger('--invoice'))
    .option(
      '--period <period>',
      'the invoices sent in a quarter (2026-Q3), a month (2026-07) or a year',
      (value: string) => parsePeriod('--period', value),
    )
    .option('--seller <file>', SELLER_HELP, (value: string) => readSeller(value))
    .option('--out <dir>', 'write one file per invoice (NUMBER.xml) into this directory (default: the current one)')
    .action(
      withApp({}, async (app, options: UblOptions) => {
        if ((options.invoice === undefined) === (options.period === undefined))
          throw new UsageError('give --invoice ID or --period PERIOD (one of them)');
        const account = await resolveAccounts(app.database.db, options.account, { one: true });
        const seller = accountSeller(options.seller, app.config.exports.sellers, account.name);
        const sellerProblem = ublSellerProblem(seller);
        if (sellerProblem) throw new UsageError(`--seller: ${sellerProblem}`);
        await checkSellerCountry(app.database.db, account, seller);
        const period = options.period ?? {
          label: `invoice ${options.invoice}`,
          from: '1900-01-01',
          to: '2999-12-31',
          ids: [options.invoice!],
        };
        const ubl = await ublExport(app.database.db, account.id, period, seller);
        if (ubl.documents.length === 0 && ubl.problems.length === 0)
          throw new RunError(
            `account ${account.name} has no sent invoice ${options.invoice !== undefined ? `with id ${options.invoice}` : `in ${period.label}`} in the mirror; run 'invoice-mirror sync' first`,
          );
        reportProblems(ubl.problems, 'left out');
        const dir = options.out ?? '.';
        mkdirSync(dir, { recursive: true });
        for (const document of ubl.documents)
          writeFileSync(join(dir, `${document.invoice.number.replaceAll(/[^\w.-]/g, '_')}.xml`), document.xml);
        const credit = ubl.documents.filter((document) => document.kind === 'CreditNote').length;
        process.stderr.write(
          `invoice-mirror: ${plural(ubl.documents.length - credit, 'invoice')} and ${plural(credit, 'credit note')} written to ${dir}${ubl.problems.length ? `, ${plural(ubl.problems.length, 'invoice')} left out (above)` : ''}\n`,
        );
        return ubl.problems.length ? 1 : undefined;
      }),
    );
}

export function registerExportCommands(exportCommand: Command): void {
  registerXaf(exportCommand);
  registerUbl(exportCommand);
}
