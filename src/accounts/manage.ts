/**
 * Changes to the `accounts` table made by a person through `invoice-mirror accounts`: adding or
 * updating credentials (the key sealed before it reaches the database), pausing, resuming,
 * removing, and re-sealing every key under a new master secret.
 */
import { resolveAccounts } from './resolve.js';
import { sql, type Kysely } from 'kysely';
import type { AccountState, Database } from '../db/schema.js';
import { ConfigError, UsageError } from '../errors.js';
import { ENTITY_NAMES } from '../catalog/index.js';
import { failJobsForOtherServices } from '../jobs/queue.js';
import { openKey, sealKey } from './secret.js';
import { sameService, serviceOf } from './service.js';
import { stateLine, type Account } from './store.js';

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
  /**
   * The service the account's rows come from, when its new address is another: it is not served
   * until `accounts rebind` (service.ts). Undefined otherwise.
   */
  boundElsewhere?: string;
}

/**
 * Adds an account, or gives an existing one these credentials (its rows stay). A new account is
 * bound to the service it is reached at now (its api_url, or `settingUrl`: INVOICING_API_URL); an
 * existing one keeps its binding. Adding a removed account again serves it again (stateLine tells
 * people so); a paused or refused one stays so until resumed, since pausing was a person's
 * decision and a refusal is lifted on purpose. Called in a transaction, which holds the account's
 * row until it ends.
 */
export async function saveAccount(
  db: Kysely<Database>,
  input: AccountInput,
  secret: string,
  settingUrl: string,
): Promise<SaveResult> {
  const credentials = { api_url: input.apiUrl, api_user: input.apiUser, api_key: sealKey(input.apiKey, secret) };
  const address = input.apiUrl ?? settingUrl;
  const existing = await db
    .selectFrom('accounts')
    .select(['id', 'state', 'service_url'])
    .where('name', '=', input.name)
    .forUpdate()
    .executeTakeFirst();
  if (!existing) {
    const inserted = await db
      .insertInto('accounts')
      .values({ name: input.name, ...credentials, notes: input.notes ?? null, service_url: serviceOf(address) })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { outcome: 'added', before: null };
    // Another process added the same name meanwhile: it exists now, so this updates it.
    return saveAccount(db, input, secret, settingUrl);
  }
  const revived =
    existing.state === 'removed' ? { state: 'active' as const, state_reason: null, state_changed_at: new Date() } : {};
  // Bound to where its rows and jobs came from; an account that holds none yet moves with its address.
  const keeps = existing.service_url !== null && !(await holdsNothing(db, existing.id));
  await db
    .updateTable('accounts')
    .set({
      ...credentials,
      ...(input.notes === undefined ? {} : { notes: input.notes }),
      ...revived,
      service_url: keeps ? existing.service_url : serviceOf(address),
    })
    .where('id', '=', existing.id)
    .execute();
  const moved = keeps && !sameService(existing.service_url, address);
  return { outcome: 'updated', before: existing.state, ...(moved ? { boundElsewhere: existing.service_url! } : {}) };
}

/** Whether nothing came from the account's service yet: no pull ran and no job was queued. */
async function holdsNothing(db: Kysely<Database>, accountId: number): Promise<boolean> {
  const { rows } = await sql<{ nothing: boolean }>`
    select not exists (select from sync_runs where account_id = ${accountId})
       and not exists (select from jobs where account_id = ${accountId}) as nothing`.execute(db);
  return rows[0]?.nothing === true;
}

/** What `accounts rebind` did. */
export interface Rebinding {
  account: Account;
  /** The service it is bound to now. */
  service: string;
  /** False when it was bound to that service already. */
  changed: boolean;
  /** Its queued jobs for the service it was bound to, failed unsent. */
  failedJobs: number;
  /** Its live records (from the service it was bound to). */
  records: number;
}

/**
 * Binds the account to the service this process reaches it at (its api_url, or `settingUrl`), on
 * purpose: its queued jobs for the old service fail unsent, in the same transaction, and its rows
 * stay until the next pull replaces them with the new service's.
 */
export async function rebindAccount(db: Kysely<Database>, name: string, settingUrl: string): Promise<Rebinding> {
  return db.transaction().execute(async (trx) => {
    const account = await resolveAccounts(trx, name, { one: true, label: 'account' });
    await trx.selectFrom('accounts').select('id').where('id', '=', account.id).forUpdate().execute();
    const service = serviceOf(account.api_url ?? settingUrl);
    const counts = ENTITY_NAMES.map(
      (table) =>
        sql`select count(*) as n from ${sql.table(table)} where account_id = ${account.id} and deleted_at is null`,
    );
    const { rows } = await sql<{
      n: number;
    }>`select coalesce(sum(n), 0)::int as n from (${sql.join(counts, sql` union all `)}) c`.execute(trx);
    const records = Number(rows[0]?.n ?? 0);
    if (account.service_url !== null && sameService(account.service_url, service))
      return { account, service, changed: false, failedJobs: 0, records };
    await trx.updateTable('accounts').set({ service_url: service }).where('id', '=', account.id).execute();
    const failed = await failJobsForOtherServices(trx, account.id, service);
    return { account, service, changed: true, failedJobs: failed.length, records };
  });
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
  const account = await resolveAccounts(db, name, { one: true, label: 'account' });
  if (account.state === 'removed') throw new UsageError(`account ${name}: ${stateLine(account)}`);
  return setState(db, account, 'paused', `paused by a person on ${stamp()}${why ? `: ${why}` : ''}`);
}

/** Serves the account again, whatever stopped it (a pause, a refused key, a remove). */
export async function resumeAccount(db: Kysely<Database>, name: string): Promise<StateChange> {
  return setState(db, await resolveAccounts(db, name, { one: true, label: 'account' }), 'active', null);
}

/** Stops serving the account; its rows stay, read-only, until it is resumed or purged. */
export async function removeAccount(db: Kysely<Database>, name: string): Promise<StateChange> {
  return setState(
    db,
    await resolveAccounts(db, name, { one: true, label: 'account' }),
    'removed',
    `removed by a person on ${stamp()}`,
  );
}

/**
 * Re-seals every stored key under `newSecret`, in the caller's transaction (see rotateSecret in
 * src/secret-rotation.ts). The accounts table is locked against writes meanwhile, so no key is
 * added under the old secret after it was read. A key the old secret does not open stops it all,
 * naming the account. Returns how many keys it re-sealed.
 */
export async function resealAccountKeys(trx: Kysely<Database>, oldSecret: string, newSecret: string): Promise<number> {
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
  return sealed.length;
}
