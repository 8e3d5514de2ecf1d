/**
 * `--account NAME` (repeatable) of `report` and `sql`: the names resolved to the accounts' ids
 * (an unknown name is a UsageError listing the known ones), or every account when none is named.
 */
import type { Kysely } from 'kysely';
import { accountsNamed } from '../accounts/store.js';
import type { Database } from '../db/index.js';
import type { AccountScope } from '../db/scope.js';

export async function accountScope(db: Kysely<Database>, names: readonly string[]): Promise<AccountScope> {
  if (names.length === 0) return 'all';
  const accounts = await accountsNamed(db, names);
  return { ids: accounts.map((account) => account.id) };
}
