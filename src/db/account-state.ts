/**
 * How an account's state reads to a person: why it is not served and what to do, in one line.
 * Here, below the accounts, since db/attention.ts says it too (the accounts re-export it).
 */
import type { AccountState } from './schema.js';

/** Said wherever `accounts add` is advised: a stored key needs the master secret. */
export const NEEDS_SECRET = 'that needs ACCOUNTS_SECRET, under which the key is then stored sealed';

/** What the line is made of (a row of `accounts`, or as much of one). */
type StateOf = { name: string; state: AccountState; state_reason: string | null };

/** Why an account is not served, and what to do, in one line. */
export function stateLine(account: StateOf): string {
  const reason = account.state_reason ? ` (${account.state_reason})` : '';
  switch (account.state) {
    case 'active':
      return 'active';
    case 'paused':
      return `paused${reason}; 'invoice-mirror accounts resume ${account.name}' serves it again`;
    case 'refused':
      return `the service refused its API key${reason}; make the key active again in the service (a key can be made inactive without being deleted) or add a new one with 'invoice-mirror accounts add ${account.name} --api-user … --api-key-stdin' (${NEEDS_SECRET}), then 'invoice-mirror accounts resume ${account.name}'`;
    case 'removed':
      return `removed${reason}: its rows are kept, read-only; 'invoice-mirror accounts resume ${account.name}' serves it again`;
  }
}
