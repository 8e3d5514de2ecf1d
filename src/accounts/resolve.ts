/**
 * The one resolver of accounts from the names a person gave (`--account NAME`, repeatable; an
 * argument; the console's `?account=`): every command, job, report and the console asks here, so
 * an unknown name, an account not served and a job without an account read the same everywhere.
 */
import type { Kysely } from 'kysely';
import { stateLine } from '../db/account-state.js';
import type { Database } from '../db/schema.js';
import type { AccountScope } from '../db/scope.js';
import { UsageError } from '../errors.js';
import { ensureDefaultAccount, listAccounts, type Account } from './store.js';

/** A name that is no account of the mirror; the line names the known ones. */
export class UnknownAccountError extends UsageError {
  constructor(
    /** The name given. */
    readonly unknown: string,
    /** The names of the mirror's accounts, in name order. */
    readonly known: readonly string[],
    /** Where the name came from: an option (`--account`) or `account`. */
    label: string,
  ) {
    super(
      `${label}: no account named '${unknown}' (known: ${known.join(', ') || 'none yet'}); 'invoice-mirror accounts list' shows them`,
    );
  }
}

export interface ResolveOptions {
  /** Where the names came from, for the error line: an option (default `--account`) or `account`. */
  label?: string;
  /**
   * For serving (a pull, the job runner): those named must be active (else a UsageError saying why
   * and what to do), none named is every active one, and a mirror with no account gets `default`.
   */
  serve?: boolean;
  /** The mirror's accounts, when the caller has read them already (the console, per request). */
  among?: readonly Account[];
}

export interface OneAccountOptions {
  label?: string;
  /**
   * Exactly one account: the one named, or, when none is, the only account the mirror serves (a
   * mirror of one account needs no `--account`; removed accounts do not count, as in the
   * `jobs_account` trigger). With several, a UsageError listing them: a job is always for one
   * account, never a guess.
   */
  one: true;
}

export interface ResolvedAccounts {
  /** The accounts resolved, in name order. */
  readonly accounts: Account[];
  /** What reads of them cover: `all` when none was named (and not serving), else their ids. */
  readonly scope: AccountScope;
}

/** The accounts named (all, when none are named), in name order; an unknown name is an UnknownAccountError. */
export async function resolveAccounts(
  db: Kysely<Database>,
  names: readonly string[],
  options?: ResolveOptions,
): Promise<ResolvedAccounts>;
/** The one account named, or the only one (see OneAccountOptions). */
export async function resolveAccounts(
  db: Kysely<Database>,
  name: string | undefined,
  options: OneAccountOptions,
): Promise<Account>;
export async function resolveAccounts(
  db: Kysely<Database>,
  names: readonly string[] | string | undefined,
  options: ResolveOptions | OneAccountOptions = {},
): Promise<ResolvedAccounts | Account> {
  const label = options.label ?? '--account';
  if ('one' in options) return typeof names === 'string' ? (await named(db, [names], label))[0]! : onlyAccount(db);
  const given = typeof names === 'string' ? [names] : (names ?? []);
  const serve = 'serve' in options && options.serve === true;
  if (serve) await ensureDefaultAccount(db);
  const accounts = await named(db, given, label, 'among' in options ? options.among : undefined);
  if (!serve) return { accounts, scope: given.length === 0 ? 'all' : idsOf(accounts) };
  if (given.length === 0) {
    const active = accounts.filter((account) => account.state === 'active');
    return { accounts: active, scope: idsOf(active) };
  }
  const inactive = accounts.find((account) => account.state !== 'active');
  if (inactive) throw new UsageError(`account ${inactive.name}: ${stateLine(inactive)}`);
  return { accounts, scope: idsOf(accounts) };
}

/** The accounts of these names (all, when none are named), in name order. */
async function named(
  db: Kysely<Database>,
  names: readonly string[],
  label: string,
  among?: readonly Account[],
): Promise<Account[]> {
  const all = among ? [...among] : await listAccounts(db);
  if (names.length === 0) return all;
  const unknown = names.find((name) => !all.some((account) => account.name === name));
  if (unknown !== undefined)
    throw new UnknownAccountError(
      unknown,
      all.map((account) => account.name),
      label,
    );
  return all.filter((account) => names.includes(account.name));
}

/** The only account not removed (a mirror with none gets `default`); else a UsageError saying what to do. */
async function onlyAccount(db: Kysely<Database>): Promise<Account> {
  await ensureDefaultAccount(db);
  const accounts = (await listAccounts(db)).filter((account) => account.state !== 'removed');
  if (accounts.length === 1) return accounts[0]!;
  if (accounts.length === 0)
    throw new UsageError(
      "no account to queue the job for (every one is removed); 'invoice-mirror accounts list' shows them",
    );
  throw new UsageError(
    `--account: required, as the mirror holds ${accounts.length} accounts (${accounts.map((a) => a.name).join(', ')}); name one`,
  );
}

function idsOf(accounts: readonly Account[]): AccountScope {
  return { ids: accounts.map((account) => account.id) };
}
