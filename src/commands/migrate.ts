import type { Command } from 'commander';
import { withApp } from './context.js';

export function registerMigrateCommand(command: Command): void {
  command.action(
    withApp({ migrate: 'always' }, async (app) => {
      process.stdout.write(`schema ${app.config.schema} is up to date in ${app.database.location}\n`);
    }),
  );
}
