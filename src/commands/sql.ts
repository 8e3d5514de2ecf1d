import type { Command } from 'commander';
import { sql } from 'kysely';
import { RunError, errorMessage } from '../errors.js';
import { OUTPUT_FORMATS, formatRows, type OutputFormat } from '../format.js';
import { choice, withApp } from './context.js';

export function registerSqlCommand(program: Command): void {
  program
    .command('sql')
    .description('run a read-only query against the mirror and print the rows')
    .argument('<query>', 'the SQL query, e.g. "select * from clients limit 5"')
    .option(
      '--format <format>',
      `output format: ${OUTPUT_FORMATS.join(', ')}`,
      choice('--format', OUTPUT_FORMATS),
      'table',
    )
    .action(
      withApp(async (app, query: string, options: { format: OutputFormat }) => {
        let result: { rows: Record<string, unknown>[] };
        try {
          // A read-only transaction: a typo cannot change the mirror.
          result = await app.database.db
            .transaction()
            .setAccessMode('read only')
            .execute((trx) => sql.raw<Record<string, unknown>>(query).execute(trx));
        } catch (error) {
          throw new RunError(`query failed: ${errorMessage(error)}`);
        }
        process.stdout.write(formatRows(result.rows, options.format));
      }),
    );
}
