/**
 * Webhook subscriptions and their deliveries, as the command line and the console steer them.
 * A subscription receives the events written after it was added (the events trigger makes its
 * deliveries, see src/db/event-triggers.ts); `replay` queues older ones again. Its signing secret is
 * sealed like an account's API key (src/accounts/secret.ts, under ACCOUNTS_SECRET): shown once
 * when added, never stored, logged or printed again.
 */
import { sql, type Kysely } from 'kysely';
import { openKey, sealKey } from '../accounts/secret.js';
import { EVENT_TYPE_NAMES } from '../catalog/index.js';
import type { Database, SubscriptionState } from '../db/index.js';
import { ConfigError, RunError, UsageError } from '../errors.js';
import { newWebhookSecret } from './sign.js';

export interface Subscription {
  id: number;
  url: string;
  /** The one account it is for; null: every account. */
  account: string | null;
  event_types: string[] | null;
  state: SubscriptionState;
  state_reason: string | null;
  created_at: Date;
  pending: number;
  delivered: number;
  last_delivered_at: Date | null;
}

/** Event types as `--events` gives them, checked against the catalogue. */
export function eventTypesOf(list: string | undefined): string[] | null {
  if (list === undefined || list.trim() === '' || list.trim() === 'all') return null;
  const types = [...new Set(list.split(',').map((type) => type.trim()))].filter((type) => type !== '');
  const unknown = types.filter((type) => !EVENT_TYPE_NAMES.includes(type));
  if (unknown.length > 0)
    throw new UsageError(
      `--events: unknown event type ${unknown.join(', ')}; the types are: ${EVENT_TYPE_NAMES.join(', ')}`,
    );
  return types;
}

export interface NewSubscription {
  url: string;
  eventTypes: string[] | null;
  accountId: number | null;
}

/** Adds a subscription; returns its id and the signing secret, which only this caller ever sees. */
export async function addSubscription(
  db: Kysely<Database>,
  subscription: NewSubscription,
  masterSecret: string,
): Promise<{ id: number; secret: string }> {
  const secret = newWebhookSecret();
  const row = await db
    .insertInto('webhook_subscriptions')
    .values({
      url: subscription.url,
      secret: sealKey(secret, masterSecret),
      event_types: subscription.eventTypes,
      account_id: subscription.accountId,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, secret };
}

/** The signing secret of a subscription (kept in memory by the deliverer, never printed). */
export function openSecret(sealed: string, masterSecret: string, subscriptionId: number): string {
  try {
    return openKey(sealed, masterSecret, `webhook ${subscriptionId}`);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(
      `webhook ${subscriptionId}: ACCOUNTS_SECRET does not open its signing secret; set the master secret it was added under (or remove it and add it again)`,
    );
  }
}

export async function listSubscriptions(db: Kysely<Database>, id?: number): Promise<Subscription[]> {
  const { rows } = await sql<Subscription>`
    select s.id, s.url, a.name as account, s.event_types, s.state, s.state_reason, s.created_at,
           coalesce(d.pending, 0)::int as pending, coalesce(d.delivered, 0)::int as delivered, d.last_delivered_at
      from webhook_subscriptions s
      left join accounts a on a.id = s.account_id
      left join lateral (
        select count(*) filter (where state = 'pending') as pending, count(*) filter (where state = 'delivered') as delivered,
               max(delivered_at) as last_delivered_at
          from webhook_deliveries where subscription_id = s.id) d on true
     where ${id === undefined ? sql`true` : sql`s.id = ${id}`}
     order by s.id`.execute(db);
  return rows;
}

/** Refuses an id no subscription has (one row read, not the delivery counts of listSubscriptions). */
async function subscriptionMustExist(db: Kysely<Database>, id: number): Promise<void> {
  const found = await db.selectFrom('webhook_subscriptions').select('id').where('id', '=', id).executeTakeFirst();
  if (!found) throw new RunError(`no webhook ${id} (invoice-mirror webhooks list shows them)`);
}

export async function removeSubscription(db: Kysely<Database>, id: number): Promise<void> {
  await subscriptionMustExist(db, id);
  await db.deleteFrom('webhook_subscriptions').where('id', '=', id).execute();
}

/** Pauses deliveries to a subscription (by a person, or after a day of failures): they wait, none is lost. */
export async function pauseSubscription(db: Kysely<Database>, id: number, reason: string): Promise<void> {
  await subscriptionMustExist(db, id);
  await db
    .updateTable('webhook_subscriptions')
    .set({ state: 'paused', state_reason: reason, state_changed_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/**
 * Puts deliveries back in line: of each record's pending deliveries to a subscription, the first
 * is due (now, if it was waiting behind another) and the rest wait (due at infinity). What the
 * events trigger and the deliverer keep as they go; needed after a replay or a retry put an
 * earlier event back, and after a delivery was made behind one being delivered at that moment.
 * Returns how many deliveries it moved.
 */
export async function repairChains(db: Kysely<Database>, subscriptionId?: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with ranked as (
      select account_id, id, due_at,
             row_number() over (partition by account_id, subscription_id, entity, record_id order by event_id) = 1 as head
        from webhook_deliveries
       where state = 'pending' and ${subscriptionId === undefined ? sql`true` : sql`subscription_id = ${subscriptionId}`}
    ),
    moved as (
      update webhook_deliveries d set due_at = case when r.head then now() else 'infinity' end
        from ranked r
       where d.account_id = r.account_id and d.id = r.id
         and ((r.head and r.due_at = 'infinity') or (not r.head and r.due_at <> 'infinity'))
      returning 1
    )
    select count(*)::int as n from moved`.execute(db);
  return rows[0]!.n;
}

/** Resumes a subscription: what waited is sent at once, its delays starting again from the first. */
export async function resumeSubscription(db: Kysely<Database>, id: number): Promise<number> {
  await subscriptionMustExist(db, id);
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhook_subscriptions')
      .set({ state: 'active', state_reason: null, state_changed_at: sql`now()` })
      .where('id', '=', id)
      .execute();
    // The first of each record's; the others still wait behind it.
    const waiting = await trx
      .updateTable('webhook_deliveries')
      .set({ failures: 0, due_at: sql`now()` })
      .where('subscription_id', '=', id)
      .where('state', '=', 'pending')
      .where('due_at', '<>', sql<Date>`'infinity'`)
      .executeTakeFirst();
    return Number(waiting.numUpdatedRows);
  });
}

/**
 * Queues the subscription's events after an event again (those it matches, of its account), as
 * deliveries due now; one already delivered is sent again, with the same webhook-id.
 */
export async function replayEvents(db: Kysely<Database>, id: number, afterEventId: string): Promise<number> {
  await subscriptionMustExist(db, id);
  const { rows } = await sql<{ n: number }>`
    with wanted as (
      select e.account_id, s.id as subscription_id, e.id as event_id, e.entity, e.record_id
        from webhook_subscriptions s
        join events e on (s.account_id is null or e.account_id = s.account_id)
                     and (s.event_types is null or e.type = any (s.event_types))
       where s.id = ${id} and e.id > ${afterEventId}::bigint
    ),
    again as (
      update webhook_deliveries d set state = 'pending', failures = 0, due_at = now(), delivered_at = null
        from wanted w where d.subscription_id = w.subscription_id and d.event_id = w.event_id
      returning d.event_id
    ),
    added as (
      insert into webhook_deliveries (account_id, subscription_id, event_id, entity, record_id)
      select w.account_id, w.subscription_id, w.event_id, w.entity, w.record_id from wanted w
       where not exists (select from webhook_deliveries d where d.subscription_id = w.subscription_id and d.event_id = w.event_id)
      returning event_id
    ),
    queued as (select event_id from again union all select event_id from added)
    select count(*)::int as n from queued`.execute(db);
  await repairChains(db, id);
  return rows[0]!.n;
}

/** Sends a subscription's delivery of an event again now (the console's retry): pending or delivered alike. */
export async function retryDelivery(db: Kysely<Database>, subscriptionId: number, eventId: string): Promise<void> {
  const retried = await db
    .updateTable('webhook_deliveries')
    .set({ state: 'pending', failures: 0, due_at: sql`now()`, delivered_at: null })
    .where('subscription_id', '=', subscriptionId)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  if (Number(retried.numUpdatedRows) === 0)
    throw new RunError(`webhook ${subscriptionId} has no delivery of event ${eventId}`);
  // Sent now if it is the first of its record's pending ones; else after those before it.
  await repairChains(db, subscriptionId);
}

export interface DeliveryRow {
  id: number;
  event_id: string;
  type: string;
  account: string;
  entity: string;
  record_id: string;
  state: 'pending' | 'delivered';
  attempts: number;
  due_at: Date;
  delivered_at: Date | null;
  last_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  last_response: string | null;
}

/** The newest deliveries of a subscription, with their last attempt. */
export async function listDeliveries(db: Kysely<Database>, id: number, limit = 50): Promise<DeliveryRow[]> {
  await subscriptionMustExist(db, id);
  const { rows } = await sql<DeliveryRow>`
    select d.id, d.event_id::text as event_id, e.type, a.name as account, d.entity, d.record_id, d.state, d.attempts,
           d.due_at, d.delivered_at, t.attempted_at as last_attempt_at, t.status as last_status, t.error as last_error,
           t.response as last_response
      from webhook_deliveries d
      join accounts a on a.id = d.account_id
      left join events e on e.account_id = d.account_id and e.id = d.event_id
      left join lateral (
        select attempted_at, status, error, response from webhook_attempts w
         where w.account_id = d.account_id and w.delivery_id = d.id order by w.id desc limit 1) t on true
     where d.subscription_id = ${id}
     order by d.event_id desc
     limit ${limit}`.execute(db);
  return rows;
}

/** Seals every signing secret again under a new master secret (`accounts rotate-secret`, in its transaction). */
export async function resealSubscriptionSecrets(
  db: Kysely<Database>,
  oldSecret: string,
  newSecret: string,
): Promise<number> {
  const sealed = await db.selectFrom('webhook_subscriptions').select(['id', 'secret']).orderBy('id').execute();
  for (const subscription of sealed) {
    const secret = openSecret(subscription.secret, oldSecret, subscription.id);
    await db
      .updateTable('webhook_subscriptions')
      .set({ secret: sealKey(secret, newSecret) })
      .where('id', '=', subscription.id)
      .execute();
  }
  return sealed.length;
}
