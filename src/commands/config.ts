import type { Command } from 'commander';
import { resolve } from 'node:path';
import { settingsAccounts } from '../accounts/serve.js';
import { isLocalUrl, loadConfig, settingsSchema, type Config } from '../config.js';
import { openDatabase } from '../db/index.js';
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
    const unsetCredentials = await unsetCredentialsSource(config);
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
        // The service's credentials: the sandbox's for a URL on this machine, else as the accounts need.
        const implied = credentials[setting.env];
        return implied
          ? { setting: setting.env, value: setting.secret ? '[REDACTED]' : implied, source: 'default (the sandbox)' }
          : { setting: setting.env, value: '', source: unsetCredentials };
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

const REQUIRED = 'required (unset; backfill, sync, daemon and jobs run need it)';

/**
 * Whether INVOICING_API_USER and INVOICING_API_KEY, when unset, are needed: the mirror's accounts
 * say (src/accounts/serve.ts). Read only when they are unset and no sandbox on this machine gives
 * them, from a mirror that exists (nothing is created); a mirror not there or not readable has
 * no account, and its first pull makes `default`, which needs them.
 */
async function unsetCredentialsSource(config: Config): Promise<string> {
  if ((config.api.user && config.api.apiKey) || isLocalUrl(config.api.url)) return REQUIRED;
  let needs: Awaited<ReturnType<typeof settingsAccounts>> = null;
  try {
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      embeddedDbDir: config.embeddedDbDir,
      schema: config.schema,
      poolSize: 1,
      create: false,
      readOnly: true,
    });
    try {
      needs = await settingsAccounts(database.db, config.schema);
    } finally {
      await database.close();
    }
  } catch {
    return REQUIRED; // no mirror yet, or none to read: its first pull makes `default`
  }
  if (needs === null || needs.accounts === 0) return REQUIRED;
  if (needs.withoutCredentials.length === 0) return 'not needed: every account has its own credentials';
  return `required (unset; backfill, sync, daemon and jobs run need it for account ${needs.withoutCredentials.join(', ')})`;
}
