/**
 * The daemon's webhook work: deliver what is due, woken by the events NOTIFY (a new event may
 * have made deliveries) and by the next retry's time, with a polling backstop; and the hourly
 * overdue pass (src/events/overdue.ts). `stop` lets the batch being sent finish.
 */
import type { Logger } from 'pino';
import { masterSecret } from '../accounts/secret.js';
import type { App } from '../app.js';
import { errorMessage } from '../errors.js';
import { markOverdueInvoices } from '../events/overdue.js';
import { eventsChannel } from '../events/store.js';
import { Deliverer, retryDelaysOf, type DeliveryOptions } from './deliver.js';

/** The longest a loop sleeps with nothing due (a lost NOTIFY, a lease run out elsewhere). */
const POLL_MS = 5_000;
const OVERDUE_EVERY_MS = 3_600_000;

export function deliveryOptionsOf(app: App): DeliveryOptions {
  const { webhooks } = app.config;
  let secret = '';
  try {
    secret = masterSecret(app.config, 'sign webhooks');
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

export async function startDeliveryLoop(app: App, log: Logger): Promise<DeliveryLoop> {
  const { db } = app.database;
  const deliverer = new Deliverer(db, deliveryOptionsOf(app), log.child({ module: 'webhooks' }));
  let stopped = false;
  let wake: (() => void) | undefined;
  const nudge = () => wake?.();
  const unlisten = await app.database.listen(eventsChannel(app.database.schema), nudge, nudge);
  // Monotonic: a wall clock stepped back must not hold the overdue pass off until it catches up.
  let lastOverdue = Number.NEGATIVE_INFINITY;

  const loop = (async () => {
    while (!stopped) {
      let waitMs = POLL_MS;
      try {
        if (performance.now() - lastOverdue >= OVERDUE_EVERY_MS) {
          lastOverdue = performance.now();
          const marked = await markOverdueInvoices(db);
          if (marked > 0) log.info({ marked }, 'invoices passed their due date');
        }
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
