/**
 * Sending webhook deliveries: at least once, in order per record, retried with growing delays.
 *
 * A deliverer claims due deliveries with `FOR UPDATE SKIP LOCKED` in a short transaction and
 * leases them (their `due_at` moves past the send's deadline), so several daemons never send the
 * same attempt at once, and a daemon killed while sending loses nothing: its lease runs out and
 * another sends the delivery again, with the same `webhook-id`. A delivery waits (due at infinity)
 * while an earlier event of its record is pending for the subscription; delivering that one makes
 * it due. A 2xx answer delivers it; anything
 * else (or no answer) is an attempt recorded with what came back, and the delivery is due again
 * after the next of WEBHOOK_RETRY_DELAYS; after the last the subscription is paused, its
 * deliveries kept for when a person resumes it.
 */
import { Agent, request } from 'undici';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/index.js';
import { durationMs } from '../config.js';
import { ConfigError, errorMessage } from '../errors.js';
import { scrub } from '../log.js';
import { checkLiteralHost, guardedLookup } from './address.js';
import { signedHeaders } from './sign.js';
import { openSecret, repairChains } from './subscriptions.js';

export interface DeliveryOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  /** The wait before each retry; after the last failure the subscription is paused. */
  retryDelaysMs: readonly number[];
  /** Deliveries sent at once. */
  concurrency: number;
  /** ACCOUNTS_SECRET, which opens the signing secrets. */
  masterSecret: string;
}

/** WEBHOOK_RETRY_DELAYS read: `5s,30s,2m`. */
export function retryDelaysOf(text: string): number[] {
  const delays = text.split(',').map((part) => durationMs(part.trim()));
  if (delays.length === 0 || delays.some((ms) => ms === null || ms < 0))
    throw new ConfigError(
      `WEBHOOK_RETRY_DELAYS: must be durations separated by commas, like 5s,30s,2m (got '${text}')`,
    );
  return delays as number[];
}

/** How much of an answer an attempt keeps. */
const ANSWER_BYTES = 512;

interface Claimed {
  id: number;
  account_id: number;
  account: string;
  subscription_id: number;
  url: string;
  secret: string;
  event_id: string;
  type: string;
  occurred_at: Date;
  entity: string;
  record_id: string;
  body: Record<string, unknown>;
  failures: number;
}

interface Outcome {
  status: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
}

/** What a receiver gets: Standard Webhooks' `type`, `timestamp` and `data`, plus the event's id and account. */
function payloadOf(event: {
  event_id: string;
  type: string;
  occurred_at: Date;
  account: string;
  entity: string;
  record_id: string;
  body: Record<string, unknown>;
}): string {
  return JSON.stringify({
    id: `evt_${event.event_id}`,
    type: event.type,
    timestamp: event.occurred_at.toISOString(),
    account: event.account,
    data: { entity: event.entity, record_id: event.record_id, ...event.body },
  });
}

export class Deliverer {
  private readonly agent: Agent;
  private readonly secrets = new Map<string, string>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: DeliveryOptions,
    private readonly log: Logger,
  ) {
    this.agent = new Agent({
      connect: options.allowPrivate ? {} : { lookup: guardedLookup },
      keepAliveTimeout: 10_000,
      connections: options.concurrency,
    });
  }

  /** Sends one batch of due deliveries; returns how many were sent (0: nothing was due). */
  async deliverDue(): Promise<{ sent: number; failed: number }> {
    let claimed = await this.claim();
    // Nothing due: a delivery made behind one delivered at that moment may wait for nothing.
    if (claimed.length === 0 && (await repairChains(this.db)) > 0) claimed = await this.claim();
    const results = await Promise.all(
      claimed.map(async (delivery) => ({ delivery, outcome: await this.send(delivery) })),
    );
    return { sent: claimed.length, failed: await this.record(results) };
  }

  /** Delivers until nothing is due (`webhooks run`); returns the totals. */
  async deliverAllDue(): Promise<{ sent: number; failed: number }> {
    const total = { sent: 0, failed: 0 };
    for (;;) {
      const batch = await this.deliverDue();
      total.sent += batch.sent;
      total.failed += batch.failed;
      if (batch.sent === 0) return total;
    }
  }

  /** Whether a pending delivery of an active subscription is due now. */
  async anyDue(): Promise<boolean> {
    const { rows } = await sql<{ due: boolean }>`
      select exists (select from webhook_deliveries d
                      where d.state = 'pending' and d.due_at <= now()
                        and d.subscription_id in (select id from webhook_subscriptions where state = 'active')) as due`.execute(
      this.db,
    );
    return rows[0]?.due === true;
  }

  /** When the next pending delivery of an active subscription is due (null: none is pending). */
  async nextDueAt(): Promise<Date | null> {
    const { rows } = await sql<{ due: Date | null }>`
      select min(d.due_at) as due from webhook_deliveries d
        join webhook_subscriptions s on s.id = d.subscription_id and s.state = 'active'
       where d.state = 'pending' and d.due_at < 'infinity'`.execute(this.db);
    return rows[0]?.due ?? null;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /**
   * Claims and leases up to `concurrency` due deliveries. Only the first pending delivery of a
   * record is ever due (the others wait at infinity, see src/db/event-triggers.ts), so a batch holds
   * at most one per record and subscription, and this reads the due rows only.
   */
  private async claim(): Promise<Claimed[]> {
    // Past the send's deadline, with time to record its outcome.
    const leaseMs = this.options.timeoutMs + 5_000;
    const { rows } = await sql<Claimed>`
      with due as (
        select d.account_id, d.id from webhook_deliveries d
         where d.state = 'pending' and d.due_at <= now()
           and d.subscription_id in (select id from webhook_subscriptions where state = 'active')
         order by d.due_at
         limit ${this.options.concurrency}
         for update of d skip locked
      ),
      leased as (
        update webhook_deliveries w
           set due_at = now() + make_interval(secs => ${leaseMs / 1000}), attempts = w.attempts + 1
          from due where w.account_id = due.account_id and w.id = due.id
        returning w.id, w.account_id, w.subscription_id, w.event_id, w.failures
      )
      select l.id, l.account_id, a.name as account, l.subscription_id, s.url, s.secret, l.event_id::text as event_id,
             e.type, e.occurred_at, e.entity, e.record_id, e.body, l.failures
        from leased l
        join webhook_subscriptions s on s.id = l.subscription_id
        join accounts a on a.id = l.account_id
        join events e on e.account_id = l.account_id and e.id = l.event_id
       order by l.event_id`.execute(this.db);
    return rows;
  }

  private secretOf(delivery: Claimed): string {
    let secret = this.secrets.get(delivery.secret);
    if (secret === undefined) {
      secret = openSecret(delivery.secret, this.options.masterSecret, delivery.subscription_id);
      this.secrets.set(delivery.secret, secret);
    }
    return secret;
  }

  private async send(delivery: Claimed): Promise<Outcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const url = new URL(delivery.url);
      checkLiteralHost(url, this.options.allowPrivate);
      const body = payloadOf(delivery);
      const answer = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'invoice-mirror-webhooks',
          ...signedHeaders(this.secretOf(delivery), `evt_${delivery.event_id}`, body),
        },
        body,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const response = await firstBytes(answer.body);
      const outcome = { status: answer.statusCode, durationMs: elapsed(), response, error: null };
      return accepted(outcome) ? outcome : { ...outcome, error: `the receiver answered ${answer.statusCode}` };
    } catch (error) {
      const message =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${this.options.timeoutMs} ms`
          : errorMessage(error);
      return { status: null, durationMs: elapsed(), response: null, error: scrub(message) };
    }
  }

  /**
   * Records a batch's outcomes in one statement (one round trip, no transaction held across
   * statements): every attempt; the deliveries accepted; the others due again after their next
   * delay, or given up, their subscription paused.
   */
  private async record(results: readonly { delivery: Claimed; outcome: Outcome }[]): Promise<number> {
    const delays = this.options.retryDelaysMs;
    const rows = results.map(({ delivery, outcome }) => {
      const ok = accepted(outcome);
      const failures = ok ? 0 : delivery.failures + 1;
      const giveUp = !ok && failures > delays.length;
      if (giveUp)
        this.log.warn(
          { subscription: delivery.subscription_id, event: delivery.event_id, error: outcome.error },
          `webhook ${delivery.subscription_id} paused: its receiver failed every attempt`,
        );
      else if (!ok)
        this.log.info(
          { subscription: delivery.subscription_id, event: delivery.event_id, failures, error: outcome.error },
          'webhook delivery failed; retrying later',
        );
      return {
        account_id: delivery.account_id,
        delivery_id: delivery.id,
        subscription_id: delivery.subscription_id,
        event_id: delivery.event_id,
        entity: delivery.entity,
        record_id: delivery.record_id,
        status: outcome.status,
        duration_ms: outcome.durationMs,
        response: outcome.response,
        error: outcome.error,
        ok,
        failures,
        // Given up: due at once, for when a person resumes the subscription.
        wait_ms: ok || giveUp ? 0 : delays[failures - 1]!,
        give_up: giveUp,
        reason: giveUp
          ? `paused after ${failures} failed attempts of event ${delivery.event_id} (last: ${outcome.error}); resume it once the receiver answers`
          : null,
      };
    });
    if (rows.length === 0) return 0;
    await sql`
      with outcome as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) as o(
          account_id integer, delivery_id bigint, subscription_id integer, event_id bigint, entity text, record_id text,
          status integer, duration_ms integer,
          response text, error text, ok boolean, failures integer, wait_ms integer, give_up boolean, reason text)
      ),
      attempts as (
        insert into webhook_attempts (account_id, delivery_id, status, duration_ms, response, error)
        select account_id, delivery_id, status, duration_ms, response, error from outcome
      ),
      deliveries as (
        update webhook_deliveries d
           set state = case when o.ok then 'delivered' else d.state end,
               delivered_at = case when o.ok then now() else d.delivered_at end,
               failures = o.failures,
               due_at = case when o.ok then d.due_at else now() + make_interval(secs => o.wait_ms / 1000.0) end
          from outcome o
         where d.account_id = o.account_id and d.id = o.delivery_id and d.state = 'pending'
      ),
      -- The record's next delivery is due once this one is delivered.
      promoted as (
        update webhook_deliveries n set due_at = now()
          from outcome o
          cross join lateral (
            select p.account_id, p.id from webhook_deliveries p
             where p.account_id = o.account_id and p.subscription_id = o.subscription_id and p.entity = o.entity
               and p.record_id = o.record_id and p.state = 'pending' and p.event_id > o.event_id
             order by p.event_id limit 1) next
         where o.ok and n.account_id = next.account_id and n.id = next.id
      )
      update webhook_subscriptions s
         set state = 'paused', state_reason = o.reason, state_changed_at = now()
        from (select distinct on (subscription_id) subscription_id, reason from outcome where give_up) o
       where s.id = o.subscription_id and s.state = 'active'`.execute(this.db);
    return rows.filter((row) => !row.ok).length;
  }
}

/** Whether the receiver accepted it: a 2xx answer. */
function accepted(outcome: Outcome): boolean {
  return outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
}

/** The answer's first bytes as text; the rest is read and dropped. */
async function firstBytes(body: AsyncIterable<Buffer>): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < ANSWER_BYTES) chunks.push(chunk);
    size += chunk.length;
  }
  if (size === 0) return null;
  return Buffer.concat(chunks).subarray(0, ANSWER_BYTES).toString('utf8');
}
