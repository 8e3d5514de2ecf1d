/** Which account a new job is for, from what a person named. */
import type { Kysely } from 'kysely';
import { accountNamed, ensureDefaultAccount, listAccounts, type Account } from '../accounts/store.js';
import type { Database } from '../db/index.js';
import { UsageError } from '../errors.js';

/**
 * The account named, or, when none is named, the only account the mirror serves (a mirror of one
 * account needs no `--account`; removed accounts do not count, as in the `jobs_account` trigger).
 * With several, a UsageError listing them: a job is always for one account, never a guess.
 */
export async function accountForJob(db: Kysely<Database>, name: string | undefined): Promise<Account> {
  if (name !== undefined) return accountNamed(db, name);
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
