/**
 * Sending webhook deliveries: at least once, in order per record, retried with growing delays.
 *
 * A deliverer claims due deliveries with `FOR UPDATE SKIP LOCKED` in a short transaction and
 * leases them (their `due_at` moves past the send's deadline), so several daemons never send the
 * same attempt at once, and a daemon killed while sending loses nothing: its lease runs out and
 * another sends the delivery again, with the same `webhook-id`. A delivery waits while an earlier
 * event of the same record is pending for the subscription. A 2xx answer delivers it; anything
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
import { openSecret } from './subscriptions.js';

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
export function payloadOf(event: {
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
    const claimed = await this.claim();
    let failed = 0;
    await Promise.all(
      claimed.map(async (delivery) => {
        const outcome = await this.send(delivery);
        if (!(outcome.status !== null && outcome.status >= 200 && outcome.status < 300)) failed++;
        await this.record(delivery, outcome);
      }),
    );
    return { sent: claimed.length, failed };
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

  /** When the next pending delivery of an active subscription is due (null: none is pending). */
  async nextDueAt(): Promise<Date | null> {
    const { rows } = await sql<{ due: Date | null }>`
      select min(d.due_at) as due from webhook_deliveries d
        join webhook_subscriptions s on s.id = d.subscription_id and s.state = 'active'
       where d.state = 'pending'`.execute(this.db);
    return rows[0]?.due ?? null;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /**
   * Claims and leases up to `concurrency` due deliveries, at most one per record and subscription:
   * the first pending one (an earlier event of the record still pending holds the later ones).
   */
  private async claim(): Promise<Claimed[]> {
    // Past the send's deadline, with time to record its outcome.
    const leaseMs = this.options.timeoutMs + 5_000;
    const { rows } = await sql<Claimed>`
      with due as (
        select d.account_id, d.id from webhook_deliveries d
          join webhook_subscriptions s on s.id = d.subscription_id and s.state = 'active'
         where d.state = 'pending' and d.due_at <= now()
           and not exists (
             select from webhook_deliveries p
              where p.account_id = d.account_id and p.subscription_id = d.subscription_id and p.entity = d.entity
                and p.record_id = d.record_id and p.state = 'pending' and p.event_id < d.event_id)
         order by d.event_id
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
      const ok = answer.statusCode >= 200 && answer.statusCode < 300;
      return {
        status: answer.statusCode,
        durationMs: elapsed(),
        response,
        error: ok ? null : `the receiver answered ${answer.statusCode}`,
      };
    } catch (error) {
      const message =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${this.options.timeoutMs} ms`
          : errorMessage(error);
      return { status: null, durationMs: elapsed(), response: null, error: scrub(message) };
    }
  }

  private async record(delivery: Claimed, outcome: Outcome): Promise<void> {
    const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const delays = this.options.retryDelaysMs;
    const failures = delivery.failures + 1;
    const giveUp = !ok && failures > delays.length;
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('webhook_attempts')
        .values({
          account_id: delivery.account_id,
          delivery_id: delivery.id,
          status: outcome.status,
          duration_ms: outcome.durationMs,
          response: outcome.response,
          error: outcome.error,
        })
        .execute();
      const row = trx
        .updateTable('webhook_deliveries')
        .where('account_id', '=', delivery.account_id)
        .where('id', '=', delivery.id);
      if (ok) {
        await row.set({ state: 'delivered', delivered_at: sql`now()`, failures: 0 }).execute();
        return;
      }
      // Given up: due at once, for when a person resumes the subscription.
      const waitMs = giveUp ? 0 : delays[failures - 1]!;
      await row
        .set({ failures, due_at: sql`now() + make_interval(secs => ${waitMs / 1000})` })
        .where('state', '=', 'pending')
        .execute();
      if (giveUp) {
        await trx
          .updateTable('webhook_subscriptions')
          .set({
            state: 'paused',
            state_reason: `paused after ${failures} failed attempts of event ${delivery.event_id} (last: ${outcome.error}); resume it once the receiver answers`,
            state_changed_at: sql`now()`,
          })
          .where('id', '=', delivery.subscription_id)
          .where('state', '=', 'active')
          .execute();
      }
    });
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
  }
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
