import type { Command } from 'commander';
import { resolve } from 'node:path';
import { loadConfig, settingsSchema } from '../config.js';
import { formatRows } from '../format.js';
import { scrub } from '../log.js';
import { addCommand } from './catalogue.js';

/** Settings whose values are never printed. */
const SECRET = new Set(['INVOICING_API_KEY', 'CONSOLE_PASSWORD', 'CONSOLE_TOKEN']);

/** `invoice-mirror config`: every setting's effective value and where it came from. */
export function registerConfigCommand(program: Command): void {
  addCommand(program, 'config')
    .option('--json', 'print one JSON object, for scripts')
    .action((options: { json?: boolean }) => {
      const config = loadConfig(); // a bad setting stops here, with its one line
      const parsed = settingsSchema.parse(process.env) as Record<string, unknown>;
      const rows = Object.keys(settingsSchema.shape).map((name) => {
        const given = process.env[name];
        const fromEnvironment = given !== undefined && given.trim() !== '';
        const value = parsed[name];
        const shown =
          value === undefined
            ? ''
            : SECRET.has(name)
              ? '[REDACTED]'
              : name === 'DATABASE_URL'
                ? scrub(String(value))
                : Array.isArray(value)
                  ? value.join(',') || 'none'
                  : String(value);
        return {
          setting: name,
          value: shown,
          source: fromEnvironment ? 'environment' : value === undefined ? 'unset' : 'default',
        };
      });
      const database = config.databaseUrl
        ? `PostgreSQL at ${scrub(config.databaseUrl)}, schema ${config.schema}`
        : `the embedded server in ${resolve(config.embeddedDbDir)}, schema ${config.schema}`;
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ database, settings: rows }, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${formatRows(rows, 'table')}\nDatabase: ${database}\n`);
    });
}
