import type { Command } from 'commander';
import { sql } from 'kysely';
import { RunError, UsageError, errorMessage } from '../errors.js';
import { OUTPUT_FORMATS, formatRows, type OutputFormat } from '../format.js';
import { choice, withApp } from './context.js';

export function registerSqlCommand(command: Command): void {
  command
    .argument('<query>', 'the SQL query, e.g. "select * from clients limit 5"')
    .option(
      '--format <format>',
      `output format: ${OUTPUT_FORMATS.join(', ')}`,
      choice('--format', OUTPUT_FORMATS),
      'table',
    )
    .action(
      withApp({ readOnly: true }, async (app, query: string, options: { format: OutputFormat }) => {
        let result: { rows: Record<string, unknown>[] };
        try {
          // A read-only transaction on a read-only session (see openApp): nothing can change the mirror.
          result = await app.database.db
            .transaction()
            .setAccessMode('read only')
            .execute((trx) => sql.raw<Record<string, unknown>>(query).execute(trx));
        } catch (error) {
          if (/multiple commands/.test(errorMessage(error))) {
            throw new UsageError('sql: one statement only (the query held several, separated by ;)');
          }
          throw new RunError(`query failed: ${errorMessage(error)}`);
        }
        // No rows, no keys to read the columns from: ask the server what the query returns.
        const columns = result.rows[0] ? Object.keys(result.rows[0]) : await app.database.columnsOf(query);
        process.stdout.write(formatRows(result.rows, options.format, columns));
      }),
    );
}
