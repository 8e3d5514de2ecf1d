/**
 * The `accounts` table: which accounts of the service the mirror holds, and how to reach each.
 * Every other table carries `account_id` (migrations/0012_accounts.ts); the work of the program
 * (pulls, jobs, reports) is always for a list of accounts resolved here from `--account` names.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Config } from '../config.js';
import { apiCredentials } from '../config.js';
import type { AccountsTable, AccountState, Database } from '../db/schema.js';
import { UsageError } from '../errors.js';
import { masterSecret, openKey } from './secret.js';

export type Account = Selectable<AccountsTable>;
export type { AccountState };

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

/**
 * The accounts named (all, when none are named), in name order. An unknown name is a UsageError
 * listing the known ones, starting with `label` (the option the names came from).
 */
export async function accountsNamed(
  db: Kysely<Database>,
  names: readonly string[] = [],
  label = '--account',
): Promise<Account[]> {
  const all = await listAccounts(db);
  if (names.length === 0) return all;
  const unknown = names.filter((name) => !all.some((account) => account.name === name));
  if (unknown.length > 0) {
    const known = all.map((account) => account.name).join(', ') || 'none yet';
    throw new UsageError(
      `${label}: no account named '${unknown[0]}' (known: ${known}); 'invoice-mirror accounts list' shows them`,
    );
  }
  return all.filter((account) => names.includes(account.name));
}

/** One account; `label` names where the name came from in the error (an option, or `account`). */
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

export async function accountNamed(db: Kysely<Database>, name: string, label = '--account'): Promise<Account> {
  return (await accountsNamed(db, [name], label))[0]!;
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

/**
 * The accounts a pull or the job runner serves: those named, or every active one. A named
 * account that is not active is a UsageError saying why and what to do.
 */
export async function accountsToServe(db: Kysely<Database>, names: readonly string[] = []): Promise<Account[]> {
  await ensureDefaultAccount(db);
  const accounts = await accountsNamed(db, names);
  if (names.length === 0) return accounts.filter((account) => account.state === 'active');
  const inactive = accounts.find((account) => account.state !== 'active');
  if (inactive) throw new UsageError(`account ${inactive.name}: ${stateLine(inactive)}`);
  return accounts;
}

/** Why an account is not served, and what to do, in one line. */
export function stateLine(account: Pick<Account, 'name' | 'state' | 'state_reason'>): string {
  const reason = account.state_reason ? ` (${account.state_reason})` : '';
  switch (account.state) {
    case 'active':
      return 'active';
    case 'paused':
      return `paused${reason}; 'invoice-mirror accounts resume ${account.name}' serves it again`;
    case 'refused':
      return `the service refused its API key${reason}; make the key active again in the service (a key can be made inactive without being deleted) or add a new one with 'invoice-mirror accounts add ${account.name} --api-user … --api-key-stdin', then 'invoice-mirror accounts resume ${account.name}'`;
    case 'removed':
      return `removed${reason}: its rows are kept, read-only; 'invoice-mirror accounts resume ${account.name}' serves it again`;
  }
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
  const at = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const reason = `the service answered 401 Unauthorized to ${during} at ${at} UTC`;
  await setAccountState(db, accountId, 'refused', reason);
  return reason;
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
export function credentialsOf(account: Account, config: Config): AccountCredentials {
  const baseUrl = account.api_url ?? config.api.url;
  if (account.api_user === null || account.api_key === null) return { baseUrl, ...apiCredentials(config) };
  const secret = masterSecret(config, `use the API key of account ${account.name}`);
  return { baseUrl, user: account.api_user, apiKey: openKey(account.api_key, secret, account.name) };
}
