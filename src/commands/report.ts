/**
 * `invoice-mirror report [NAME]`: without a name, lists the built-in reports; with one, prints it.
 */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { OUTPUT_FORMATS, formatRows, type OutputFormat } from '../format.js';
import { REPORTS, findReport, runReport } from '../reports/index.js';
import { didYouMean } from '../suggest.js';
import { choice, withApp } from './context.js';

const REPORT_NAMES = REPORTS.map((report) => report.name);

export function registerReportCommand(command: Command): void {
  command
    .argument('[name]', 'the report, e.g. open_quotations')
    .option(
      '--format <format>',
      `output format: ${OUTPUT_FORMATS.join(', ')}`,
      choice('--format', OUTPUT_FORMATS),
      'table',
    )
    .action(async (name: string | undefined, options: { format: OutputFormat }) => {
      if (name === undefined) {
        // The list needs no database.
        const rows = REPORTS.map(({ name, title, description }) => ({ name, title, description }));
        process.stdout.write(formatRows(rows, options.format, ['name', 'title', 'description']));
        return;
      }
      const report = findReport(name);
      if (!report)
        throw new UsageError(
          `unknown report '${name}'${didYouMean(name, REPORT_NAMES)} (run 'invoice-mirror report' to list them)`,
        );
      await withApp({}, async (app) => {
        const { columns, rows } = await runReport(app.database.db, app.database.schema, report);
        process.stdout.write(formatRows(rows, options.format, columns));
      })();
    });
}
