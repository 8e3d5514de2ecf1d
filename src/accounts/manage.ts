/**
 * Changes to the `accounts` table made by a person through `invoice-mirror accounts`: adding or
 * updating credentials (the key sealed before it reaches the database), pausing, resuming,
 * removing, and re-sealing every key under a new master secret.
 */
import { resealSubscriptionSecrets } from '../webhooks/subscriptions.js';
import { sql, type Kysely } from 'kysely';
import type { AccountState, Database } from '../db/schema.js';
import { ConfigError, UsageError } from '../errors.js';
import { openKey, sealKey } from './secret.js';
import { accountNamed, stateLine, type Account } from './store.js';

export interface AccountInput {
  name: string;
  /** null: the INVOICING_API_URL setting. */
  apiUrl: string | null;
  apiUser: string;
  apiKey: string;
  /** undefined: keep the notes an existing account has. */
  notes?: string;
}

export interface SaveResult {
  outcome: 'added' | 'updated';
  /** The state the account had before (null: new); a removed account comes back active. */
  before: AccountState | null;
}

/**
 * Adds an account, or gives an existing one these credentials (its rows stay). Adding a removed
 * account again serves it again (stateLine tells people so); a paused or refused one stays so
 * until resumed, since pausing was a person's decision and a refusal is lifted on purpose.
 * Called in a transaction, which holds the account's row until it ends.
 */
export async function saveAccount(db: Kysely<Database>, input: AccountInput, secret: string): Promise<SaveResult> {
  const credentials = { api_url: input.apiUrl, api_user: input.apiUser, api_key: sealKey(input.apiKey, secret) };
  const existing = await db
    .selectFrom('accounts')
    .select(['id', 'state'])
    .where('name', '=', input.name)
    .forUpdate()
    .executeTakeFirst();
  if (!existing) {
    const inserted = await db
      .insertInto('accounts')
      .values({ name: input.name, ...credentials, notes: input.notes ?? null })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { outcome: 'added', before: null };
    // Another process added the same name meanwhile: it exists now, so this updates it.
    return saveAccount(db, input, secret);
  }
  const revived =
    existing.state === 'removed' ? { state: 'active' as const, state_reason: null, state_changed_at: new Date() } : {};
  await db
    .updateTable('accounts')
    .set({ ...credentials, ...(input.notes === undefined ? {} : { notes: input.notes }), ...revived })
    .where('id', '=', existing.id)
    .execute();
  return { outcome: 'updated', before: existing.state };
}

/** `2026-11-26 10:00`, the process's local time: when a person did something, in a reason. */
export function stamp(at: Date = new Date()): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
}

/** What a state change did: the account as it was, and whether anything changed. */
export interface StateChange {
  account: Account;
  changed: boolean;
}

async function setState(
  db: Kysely<Database>,
  account: Account,
  state: AccountState,
  reason: string | null,
): Promise<StateChange> {
  if (account.state === state) return { account, changed: false };
  await db
    .updateTable('accounts')
    .set({ state, state_reason: reason, state_changed_at: new Date() })
    .where('id', '=', account.id)
    .execute();
  return { account, changed: true };
}

/** Stops pulls and jobs of the account until it is resumed; a removed account stays removed. */
export async function pauseAccount(db: Kysely<Database>, name: string, why?: string): Promise<StateChange> {
  const account = await accountNamed(db, name, 'account');
  if (account.state === 'removed') throw new UsageError(`account ${name}: ${stateLine(account)}`);
  return setState(db, account, 'paused', `paused by a person on ${stamp()}${why ? `: ${why}` : ''}`);
}

/** Serves the account again, whatever stopped it (a pause, a refused key, a remove). */
export async function resumeAccount(db: Kysely<Database>, name: string): Promise<StateChange> {
  return setState(db, await accountNamed(db, name, 'account'), 'active', null);
}

/** Stops serving the account; its rows stay, read-only, until it is resumed or purged. */
export async function removeAccount(db: Kysely<Database>, name: string): Promise<StateChange> {
  return setState(db, await accountNamed(db, name, 'account'), 'removed', `removed by a person on ${stamp()}`);
}

/**
 * Re-seals every stored key under `newSecret`, in one transaction. The accounts table is locked
 * against writes meanwhile, so no key is added under the old secret after it was read. A key the
 * old secret does not open stops it all, naming the account; nothing is written then.
 */
export async function rotateSecret(db: Kysely<Database>, oldSecret: string, newSecret: string): Promise<number> {
  if (oldSecret === newSecret)
    throw new UsageError('the new secret is the one ACCOUNTS_SECRET gives already; give a new one');
  return db.transaction().execute(async (trx) => {
    await sql`lock table accounts in exclusive mode`.execute(trx);
    const sealed = await trx
      .selectFrom('accounts')
      .select(['id', 'name', 'api_key'])
      .where('api_key', 'is not', null)
      .orderBy('name')
      .execute();
    for (const account of sealed) {
      let key: string;
      try {
        key = openKey(account.api_key!, oldSecret, account.name);
      } catch (error) {
        if (error instanceof ConfigError) throw new ConfigError(`${error.message}; nothing was re-sealed`);
        throw error;
      }
      await trx
        .updateTable('accounts')
        .set({ api_key: sealKey(key, newSecret) })
        .where('id', '=', account.id)
        .execute();
    }
    // The webhooks' signing secrets are sealed under the same master secret.
    await resealSubscriptionSecrets(trx, oldSecret, newSecret);
    return sealed.length;
  });
}
