/**
 * `invoice-mirror report [NAME] [--account A …]`: without a name, lists the built-in reports; with
 * one, prints it: every account's rows, or only the named accounts' (each view has `account_id`).
 */
import { resolveAccounts } from '../accounts/resolve.js';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { isMoneyColumn, isMonthColumn } from '../catalog/index.js';
import { OUTPUT_FORMATS, formatRows, readableRows, type OutputFormat } from '../format.js';
import { REPORTS, findReport, runReport } from '../reports/index.js';
import { didYouMean } from '../suggest.js';
import { choice, collect, withApp } from './context.js';

const REPORT_NAMES = REPORTS.map((report) => report.name);

interface ReportOptions {
  format: OutputFormat;
  account: string[];
  period?: string;
  raw?: boolean;
}

/** A report's money (two decimals) and months (`2026-11`), as the catalogue names them. */
export const REPORT_READABLE = { money: isMoneyColumn, month: isMonthColumn };

export function registerReportCommand(command: Command): void {
  command
    .argument('[name]', 'the report, e.g. open_quotations')
    .option(
      '--format <format>',
      `output format: ${OUTPUT_FORMATS.join(', ')}`,
      choice('--format', OUTPUT_FORMATS),
      'table',
    )
    .option('--account <name>', "only this account's rows (repeat for more; default: every account)", collect, [])
    .option('--period <period>', 'only this quarter (2026-Q1) or month (2026-03), for the reports with periods')
    .option(
      '--raw',
      'the table with the values exactly as stored (money unrounded, months as their first day, ISO times)',
    )
    .action(async (name: string | undefined, options: ReportOptions) => {
      if (name === undefined) {
        // The list needs no database.
        const rows = REPORTS.map(({ name, title, description }) => ({ name, title, description }));
        process.stdout.write(await formatRows(rows, options.format, ['name', 'title', 'description']));
        return;
      }
      const report = findReport(name);
      if (!report)
        throw new UsageError(
          `unknown report '${name}'${didYouMean(name, REPORT_NAMES)} (run 'invoice-mirror report' to list them)`,
        );
      await withApp({}, async (app) => {
        const { scope } = await resolveAccounts(app.database.db, options.account);
        const { columns, rows } = await runReport(app.database.db, app.database.schema, report, {
          scope,
          period: options.period,
        });
        const shown = options.format === 'table' && !options.raw ? readableRows(rows, columns, REPORT_READABLE) : rows;
        process.stdout.write(await formatRows(shown, options.format, columns));
      })();
    });
}
