/**
 * `accounts rotate-secret`: everything sealed under the master secret (the accounts' API keys, the
 * webhooks' signing secrets) sealed again under a new one. Above both the accounts and the
 * webhooks, so neither imports the other.
 */
import type { Kysely } from 'kysely';
import { resealAccountKeys } from './accounts/manage.js';
import type { Database } from './db/schema.js';
import { UsageError } from './errors.js';
import { resealSubscriptionSecrets } from './webhooks/subscriptions.js';

/**
 * Re-seals every stored key and signing secret under `newSecret`, in one transaction: a key the
 * old secret does not open stops it all, naming the account; nothing is written then. Returns how
 * many API keys it re-sealed.
 */
export async function rotateSecret(db: Kysely<Database>, oldSecret: string, newSecret: string): Promise<number> {
  if (oldSecret === newSecret)
    throw new UsageError('the new secret is the one ACCOUNTS_SECRET gives already; give a new one');
  return db.transaction().execute(async (trx) => {
    const keys = await resealAccountKeys(trx, oldSecret, newSecret);
    await resealSubscriptionSecrets(trx, oldSecret, newSecret);
    return keys;
  });
}
