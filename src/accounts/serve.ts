/**
 * Which settings serving accounts needs is decided by the accounts: INVOICING_API_USER and
 * INVOICING_API_KEY (and, for a URL not on this machine, that they are given at all) only for an
 * account without stored credentials (`default`, which the first pull of a mirror with no account
 * makes), ACCOUNTS_SECRET only for one with them; and no account is served at another service
 * than the one its rows come from (service.ts). A mirror of stored accounts runs with none of the
 * INVOICING_API_* settings.
 *
 * The check needs the accounts, so it runs once the mirror is open, before any call: the commands
 * first check the settings' shapes (loadConfig), then open the database (migrating it, which only
 * brings the schema up to date), then call `servableAccounts`. A mirror that does not exist yet
 * has no account: the `default` its first pull would make is checked before anything is created
 * (`checkFirstAccount`).
 */
import { sql, type Kysely } from 'kysely';
import type { App } from '../app.js';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { ConfigError } from '../errors.js';
import { checkService, serviceUrlFor } from './service.js';
import { resolveAccounts } from './resolve.js';
import { credentialsOf, DEFAULT_ACCOUNT, hasStoredCredentials, type Account } from './store.js';

type Served = Pick<Account, 'name' | 'api_url' | 'api_user' | 'api_key' | 'service_url'>;

/** The problem, starting with `account NAME: ` (once: some messages name the account already). */
export function accountProblem(account: Pick<Account, 'name'>, error: ConfigError): ConfigError {
  const prefix = `account ${account.name}: `;
  return error.message.startsWith(prefix) ? error : new ConfigError(`${prefix}${error.message}`);
}

/**
 * Why this process cannot serve the account (its credentials cannot be had, or its settings point
 * it at another service than its rows come from), or null when it can.
 */
export function servingProblem(account: Served, config: Config): ConfigError | null {
  try {
    credentialsOf(account, config);
    checkService(account, serviceUrlFor(account, config));
    return null;
  } catch (error) {
    if (error instanceof ConfigError) return accountProblem(account, error);
    throw error;
  }
}

/** The accounts a command serves, and those it cannot (each with its one line). */
export interface Servable {
  servable: Account[];
  skipped: ConfigError[];
}

/**
 * The accounts a command serves (those named, or every active one: see resolveAccounts's `serve`), checked
 * before any call to the service. Accounts named, or the only one, must all be servable: the
 * first problem is thrown (exit code 2). Of several, one that is not is in `skipped` for the
 * command to name, and the others are served; its problem is thrown when none can be.
 */
export async function servableAccounts(
  app: Pick<App, 'config' | 'database'>,
  names: readonly string[] = [],
): Promise<Servable> {
  const { accounts } = await resolveAccounts(app.database.db, names, { serve: true });
  const servable: Account[] = [];
  const skipped: ConfigError[] = [];
  for (const account of accounts) {
    const problem = servingProblem(account, app.config);
    if (problem) skipped.push(problem);
    else servable.push(account);
  }
  if (skipped.length > 0 && (names.length > 0 || servable.length === 0)) throw skipped[0]!;
  return { servable, skipped };
}

/** The `default` a mirror's first pull makes: no stored credentials, not bound to a service yet. */
const FIRST_ACCOUNT: Served = {
  name: DEFAULT_ACCOUNT,
  api_url: null,
  api_user: null,
  api_key: null,
  service_url: null,
};

/**
 * For a mirror about to be created (no database or schema yet): it has no account, so the first
 * pull serves the `default` it makes, which needs the INVOICING_API_* settings. Throws its problem.
 */
export function checkFirstAccount(config: Config): void {
  const problem = servingProblem(FIRST_ACCOUNT, config);
  if (problem) throw problem;
}

/**
 * What the mirror's accounts (all but removed ones) ask of the INVOICING_API_* settings: the names
 * of those without credentials of their own, and how many there are in all (0: none yet, and the
 * first pull makes `default`, which takes the settings). Null when the schema holds no accounts table.
 */
export async function settingsAccounts(
  db: Kysely<Database>,
  schema: string,
): Promise<{ accounts: number; withoutCredentials: string[] } | null> {
  const { rows } = await sql<{ present: boolean }>`
    select to_regclass(format('%I.accounts', ${schema}::text)) is not null as present`.execute(db);
  if (!rows[0]?.present) return null;
  const accounts = await db
    .selectFrom('accounts')
    .select(['name', 'api_user', 'api_key'])
    .where('state', '<>', 'removed')
    .orderBy('name')
    .execute();
  const without = accounts.filter((account) => !hasStoredCredentials(account)).map((account) => account.name);
  return { accounts: accounts.length, withoutCredentials: without };
}
