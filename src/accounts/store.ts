/**
 * The `accounts` table: which accounts of the service the mirror holds, and how to reach each.
 * Every other table carries `account_id` (migrations/0012_accounts.ts); the work of the program
 * (pulls, jobs, reports) is always for a list of accounts resolved from `--account` names (resolve.ts).
 */
import type { Kysely, Selectable } from 'kysely';
import type { Config } from '../config.js';
import { apiCredentials } from '../config.js';
import type { AccountsTable, AccountState, Database } from '../db/schema.js';
import { NEEDS_SECRET, stateLine } from '../db/account-state.js';
import { ConfigError, UsageError } from '../errors.js';
import { masterSecret, openKey } from './secret.js';

export type Account = Selectable<AccountsTable>;
export type { AccountState };
/** Where the state lines live: below the accounts, for db/attention.ts too. */
export { stateLine };

/** The account a database of one account has: its credentials are the INVOICING_API_* settings. */
export const DEFAULT_ACCOUNT = 'default';

/** What a name on the command line must look like (the table's check says the same). */
export const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export function checkAccountName(name: string): string {
  if (!ACCOUNT_NAME.test(name))
    throw new UsageError(
      `account name '${name}': use 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  return name;
}

export async function listAccounts(db: Kysely<Database>): Promise<Account[]> {
  return db.selectFrom('accounts').selectAll().orderBy('name').execute();
}

/** The accounts of these ids (a daemon's claim), in id order. */
export async function accountsWithIds(db: Kysely<Database>, ids: readonly number[]): Promise<Account[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('accounts')
    .selectAll()
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
}

/**
 * A mirror with no account yet gets `default`, whose credentials are the INVOICING_API_*
 * settings: one account works as before, with nothing to add. Once any account exists nothing
 * is made.
 */
export async function ensureDefaultAccount(db: Kysely<Database>): Promise<void> {
  const any = await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  if (any) return;
  await db
    .insertInto('accounts')
    .values({ name: DEFAULT_ACCOUNT, api_url: null, api_user: null, api_key: null })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

export async function setAccountState(
  db: Kysely<Database>,
  id: number,
  state: AccountState,
  reason: string | null,
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ state, state_reason: reason, state_changed_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/**
 * The service refused the account's key (401) `during` a pull or a job: the account becomes
 * `refused` (in the database, so every process and the console see it and say what to do) and is
 * not tried again until a person resumes it. Returns the reason recorded.
 */
export async function markRefused(db: Kysely<Database>, accountId: number, during: string): Promise<string> {
  const reason = refusalReason(during);
  await setAccountState(db, accountId, 'refused', reason);
  return reason;
}

/** `the service answered 401 Unauthorized to pull 12 at 2026-11-26 10:00 UTC`. */
export function refusalReason(during: string): string {
  const at = new Date().toISOString().slice(0, 16).replace('T', ' ');
  return `the service answered 401 Unauthorized to ${during} at ${at} UTC`;
}

/**
 * Whether the account has credentials of its own (a sealed key): then a 401 refuses the account,
 * for every process. Without (`default`) its credentials are each process's INVOICING_API_*
 * settings, so a 401 says something about that process only, and changes nothing in the database.
 */
export function hasStoredCredentials(account: Pick<Account, 'api_user' | 'api_key'>): boolean {
  return account.api_user !== null && account.api_key !== null;
}

/**
 * The line after the service refused an account's key (401): for an account with its own key, its
 * state line (it is `refused` now); for one that takes the settings, what this process can do.
 */
export function refusedLine(account: Pick<Account, 'name' | 'api_user' | 'api_key'>): string {
  if (hasStoredCredentials(account)) return stateLine({ ...account, state: 'refused', state_reason: null });
  return `the service refused the credentials of this process (INVOICING_API_USER and INVOICING_API_KEY, as the account has none of its own), so this run stops; nothing changed for the account or other processes: set them to the account's user and an active API key and run it again, or store the account's own with 'invoice-mirror accounts add ${account.name} --api-user … --api-key-stdin' (${NEEDS_SECRET})`;
}

/** The address and credentials of an account's service. */
export interface AccountCredentials {
  baseUrl: string;
  user: string;
  apiKey: string;
}

/**
 * An account's credentials: its own (the key opened with the master secret), or, for an account
 * with none stored (`default`), the INVOICING_API_* settings. A ConfigError naming what to set
 * when they are missing.
 */
export function credentialsOf(
  account: Pick<Account, 'name' | 'api_url' | 'api_user' | 'api_key'>,
  config: Config,
): AccountCredentials {
  const baseUrl = account.api_url ?? config.api.url;
  if (!hasStoredCredentials(account)) return { baseUrl, ...settingsCredentials(account.name, config) };
  const secret = masterSecret(
    config,
    `use the API key of account ${account.name}`,
    'open',
    `add its key again with 'invoice-mirror accounts add ${account.name} …'`,
  );
  return { baseUrl, user: account.api_user!, apiKey: openKey(account.api_key!, secret, account.name) };
}

/** The INVOICING_API_* credentials an account without its own takes; when missing, why and what to do. */
function settingsCredentials(name: string, config: Config): { user: string; apiKey: string } {
  try {
    return apiCredentials(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(
      `${error.message}, as the account has no credentials of its own; set INVOICING_API_USER and INVOICING_API_KEY, or store the account's own with 'invoice-mirror accounts add ${name} --api-user … --api-key-stdin' (${NEEDS_SECRET})`,
    );
  }
}
