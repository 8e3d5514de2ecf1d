import type { Command } from 'commander';
import { addCommand } from './catalogue.js';
import { withApp } from './context.js';

export function registerMigrateCommand(program: Command): void {
  addCommand(program, 'migrate').action(
    withApp({ migrate: 'always' }, async (app) => {
      process.stdout.write(`schema ${app.config.schema} is up to date in ${app.database.location}\n`);
    }),
  );
}
