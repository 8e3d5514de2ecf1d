import type { Command } from 'commander';
import { withApp } from './context.js';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply pending migrations to the mirror schema (every other command does this first)')
    .action(
      withApp(async (app) => {
        process.stdout.write(
          `schema ${app.config.schema} is up to date (${app.database.kind === 'embedded' ? `embedded database in ${app.config.embeddedDbDir}` : 'postgres'})\n`,
        );
      }),
    );
}
