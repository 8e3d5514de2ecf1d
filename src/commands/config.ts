import type { Command } from 'commander';
import { resolve } from 'node:path';
import { loadConfig, settingsSchema } from '../config.js';
import { formatRows } from '../format.js';
import { scrub } from '../log.js';
import { SETTING_LIST } from '../settings.js';

/** `invoice-mirror config`: every setting's effective value and where it came from. */
export function registerConfigCommand(command: Command): void {
  command.option('--json', 'print one JSON object, for scripts').action(async (options: { json?: boolean }) => {
    const config = loadConfig(); // a bad setting stops here, with its one line
    const parsed = settingsSchema.parse(process.env) as Record<string, unknown>;
    const credentials: Record<string, string | undefined> = {
      INVOICING_API_USER: config.api.user,
      INVOICING_API_KEY: config.api.apiKey,
    };
    const rows = SETTING_LIST.map(({ setting }) => {
      const given = process.env[setting.env];
      const fromEnvironment = given !== undefined && given.trim() !== '';
      const value = parsed[setting.env];
      const shown =
        value === undefined
          ? ''
          : setting.secret
            ? '[REDACTED]'
            : setting.type === 'postgres-url' // its password hidden
              ? scrub(String(value))
              : Array.isArray(value)
                ? value.join(',') || 'none'
                : String(value);
      if (!fromEnvironment && setting.env in credentials) {
        // The service's credentials: the sandbox's for a URL on this machine, else required.
        const implied = credentials[setting.env];
        return implied
          ? { setting: setting.env, value: setting.secret ? '[REDACTED]' : implied, source: 'default (the sandbox)' }
          : {
              setting: setting.env,
              value: '',
              source: 'required (unset; backfill, sync, daemon and jobs run need it)',
            };
      }
      return {
        setting: setting.env,
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
    process.stdout.write(`${await formatRows(rows, 'table')}\nDatabase: ${database}\n`);
  });
}
