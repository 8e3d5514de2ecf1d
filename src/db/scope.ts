/**
 * Which accounts a read covers. Every table carries `account_id`; what the program writes is always
 * for one account (an id), what it reads is for a scope: some accounts, or all of them (the
 * overview of a mirror of many accounts, `status` without `--account`).
 */
import { sql, type RawBuilder } from 'kysely';

export type AccountScope = 'all' | { readonly ids: readonly number[] };

/** One account, as a scope. */
export function oneAccount(id: number): AccountScope {
  return { ids: [id] };
}

/** The SQL condition `column` is in the scope (`true` for all); `column` may be qualified, e.g. `r.account_id`. */
export function inScope(scope: AccountScope, column = 'account_id'): RawBuilder<boolean> {
  if (scope === 'all') return sql<boolean>`true`;
  return sql<boolean>`${sql.ref(column)} = any(${[...scope.ids]}::int[])`;
}
