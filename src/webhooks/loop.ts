/**
 * The daemon's webhook work: deliver what is due, woken by the events NOTIFY (a new event may
 * have made deliveries) and by the next retry's time, with a polling backstop. (The hourly
 * overdue pass is the fleet leader's: daemon/duties/overdue.ts.) `stop` lets the batch being sent
 * finish.
 */
import type { Logger } from 'pino';
import { masterSecret } from '../accounts/secret.js';
import type { App } from '../app.js';
import { errorMessage } from '../errors.js';
import { listenFor } from '../db/channels.js';
import { Deliverer, retryDelaysOf, type DeliveryOptions } from './deliver.js';

/** The longest a loop sleeps with nothing due (a lost NOTIFY, a lease run out elsewhere). */
const POLL_MS = 5_000;

export function deliveryOptionsOf(app: App): DeliveryOptions {
  const { webhooks } = app.config;
  let secret = '';
  try {
    secret = masterSecret(app.config, 'sign webhooks', 'open');
  } catch {
    // No subscription can exist without it (adding one needs it); a delivery that finds none says so.
  }
  return {
    allowPrivate: webhooks.allowPrivate,
    timeoutMs: webhooks.timeoutMs,
    retryDelaysMs: retryDelaysOf(webhooks.retryDelays),
    concurrency: webhooks.concurrency,
    masterSecret: secret,
  };
}

export interface DeliveryLoop {
  stop(): Promise<void>;
}

/**
 * What a notification of new events does (it says no more, and may be forged): one query, whether
 * any delivery is due now, and the loop is woken only if one is. Notifications that come while it
 * runs are answered by one more; a failed query wakes the loop (its pass says what is wrong).
 */
function nudgeIfDue(deliverer: Deliverer, wake: () => void): () => void {
  let asking = false;
  let again = false;
  const ask = async () => {
    do {
      again = false;
      if (await deliverer.anyDue().catch(() => true)) wake();
    } while (again);
    asking = false;
  };
  return () => {
    if (asking) {
      again = true;
      return;
    }
    asking = true;
    void ask();
  };
}

export async function startDeliveryLoop(app: App, log: Logger): Promise<DeliveryLoop> {
  const { db } = app.database;
  const deliverer = new Deliverer(db, deliveryOptionsOf(app), log.child({ module: 'webhooks' }));
  let stopped = false;
  let wake: (() => void) | undefined;
  const unlisten = await listenFor(
    app.database,
    'events',
    nudgeIfDue(deliverer, () => wake?.()),
    log,
    () => wake?.(),
  );

  const loop = (async () => {
    while (!stopped) {
      let waitMs = POLL_MS;
      try {
        const { sent } = await deliverer.deliverDue();
        if (sent > 0) continue;
        const next = await deliverer.nextDueAt();
        if (next) waitMs = Math.max(10, Math.min(POLL_MS, next.getTime() - Date.now()));
      } catch (error) {
        log.warn({ error: errorMessage(error) }, 'webhook deliveries: trying again shortly');
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      await unlisten();
      await deliverer.close();
    },
  };
}
