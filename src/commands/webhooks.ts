/**
 * `webhooks add|list|remove|pause|resume|deliveries|replay|run`: subscriptions that push events
 * to a receiver, signed by the Standard Webhooks convention (see src/webhooks/). The signing
 * secret is printed once, by `add`.
 */
import { resolveAccounts } from '../accounts/resolve.js';
import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import type { Database } from '../db/index.js';
import { masterSecret } from '../accounts/secret.js';
import { UsageError } from '../errors.js';
import { markOverdueInvoices } from '../events/overdue.js';
import { isEventId } from '../events/store.js';
import { OUTPUT_FORMATS, formatRows, type OutputFormat } from '../format.js';
import { logger } from '../log.js';
import { checkTarget } from '../webhooks/address.js';
import { Deliverer } from '../webhooks/deliver.js';
import { deliveryOptionsOf } from '../webhooks/loop.js';
import {
  addSubscription,
  eventTypesOf,
  listDeliveries,
  listSubscriptions,
  pauseSubscription,
  removeSubscription,
  replayEvents,
  resumeSubscription,
} from '../webhooks/subscriptions.js';
import { choice, positiveInteger, withApp } from './context.js';

const id = () => positiveInteger('ID');
const formatOption = (command: Command) =>
  command.option('--format <format>', OUTPUT_FORMATS.join(', '), choice('--format', OUTPUT_FORMATS), 'table');

export function registerWebhooksCommands(webhooks: Command): void {
  registerAdd(webhooks);
  registerList(webhooks);
  registerSteps(webhooks);
  registerDeliveries(webhooks);
  registerReplay(webhooks);
  registerRun(webhooks);
}

/** `webhooks add URL`: a subscription, its signing secret printed once. */
function registerAdd(webhooks: Command): void {
  webhooks
    .command('add')
    .description('push events to URL; prints the subscription id and its signing secret (shown this once)')
    .argument('<url>', 'the receiver, http(s)')
    .option('--events <types>', 'event types, comma-separated (default: every type)')
    .option('--account <name>', "only this account's events (default: every account)")
    .action(
      withApp({ migrate: 'auto' }, async (app, url: string, options: { events?: string; account?: string }) => {
        const { db } = app.database;
        const eventTypes = eventTypesOf(options.events);
        const account =
          options.account === undefined ? null : await resolveAccounts(db, options.account, { one: true });
        await checkTarget(url, app.config.webhooks.allowPrivate);
        const secret = masterSecret(app.config, 'seal webhook signing secrets');
        const added = await addSubscription(db, { url, eventTypes, accountId: account?.id ?? null }, secret);
        process.stdout.write(
          `webhook ${added.id}: ${url}\nsigning secret (shown only now; verify the webhook-signature header with it): ${added.secret}\n`,
        );
      }),
    );
}

/** `webhooks list`: the subscriptions, their state and deliveries. */
function registerList(webhooks: Command): void {
  formatOption(webhooks.command('list').description('the subscriptions, their state and deliveries')).action(
    withApp({}, async (app, options: { format: OutputFormat }) => {
      const rows = await listSubscriptions(app.database.db);
      const shown = rows.map((row) => ({
        ...row,
        account: row.account ?? 'all',
        event_types: row.event_types?.join(',') ?? 'all',
      }));
      process.stdout.write(
        await formatRows(shown as unknown as Record<string, unknown>[], options.format, [
          'id',
          'url',
          'account',
          'event_types',
          'state',
          'pending',
          'delivered',
          'last_delivered_at',
          'state_reason',
        ]),
      );
    }),
  );
}

/** `webhooks remove|pause|resume ID`: one subscription, one line said. */
function registerSteps(webhooks: Command): void {
  const steps: [string, string, (db: Kysely<Database>, subscription: number) => Promise<string>][] = [
    [
      'remove',
      'remove a subscription and its deliveries',
      async (db, subscription) => {
        await removeSubscription(db, subscription);
        return 'removed';
      },
    ],
    [
      'pause',
      'stop sending to a subscription; its events wait for resume',
      async (db, subscription) => {
        await pauseSubscription(db, subscription, 'paused by a person');
        return 'paused';
      },
    ],
    [
      'resume',
      'send to a paused subscription again, what waited first',
      async (db, subscription) => `resumed; ${await resumeSubscription(db, subscription)} deliveries due now`,
    ],
  ];
  for (const [name, description, step] of steps)
    webhooks
      .command(name)
      .description(description)
      .argument('<id>', 'subscription id', id())
      .action(
        withApp({}, async (app, subscription: number) => {
          process.stdout.write(`webhook ${subscription} ${await step(app.database.db, subscription)}\n`);
        }),
      );
}

/** `webhooks deliveries ID`: a subscription's newest deliveries. */
function registerDeliveries(webhooks: Command): void {
  formatOption(
    webhooks
      .command('deliveries')
      .description("a subscription's newest deliveries with their last attempt")
      .argument('<id>', 'subscription id', id())
      .option('--limit <n>', 'how many (default 50)', positiveInteger('--limit')),
  ).action(
    withApp({}, async (app, subscription: number, options: { limit?: number; format: OutputFormat }) => {
      const rows = await listDeliveries(app.database.db, subscription, options.limit);
      process.stdout.write(
        await formatRows(rows as unknown as Record<string, unknown>[], options.format, [
          'id',
          'event_id',
          'type',
          'account',
          'record_id',
          'state',
          'attempts',
          'due_at',
          'delivered_at',
          'last_status',
          'last_error',
          'last_response',
        ]),
      );
    }),
  );
}

/** `webhooks replay ID --after EVENT`: a subscription's later events sent again. */
function registerReplay(webhooks: Command): void {
  webhooks
    .command('replay')
    .description("send a subscription's events after an event again (those it matches)")
    .argument('<id>', 'subscription id', id())
    .requiredOption('--after <event-id>', 'the event after which to send again')
    .action(
      withApp({}, async (app, subscription: number, options: { after: string }) => {
        if (!isEventId(options.after))
          throw new UsageError(`--after: must be an event id (digits), got '${options.after}'`);
        const queued = await replayEvents(app.database.db, subscription, options.after);
        process.stdout.write(`webhook ${subscription}: ${queued} events queued again\n`);
      }),
    );
}

/** `webhooks run`: every due delivery sent (overdue invoices marked first), then exit. */
function registerRun(webhooks: Command): void {
  webhooks
    .command('run')
    .description('deliver every delivery that is due (and mark overdue invoices), then exit')
    .action(
      withApp({ migrate: 'auto' }, async (app) => {
        const { db } = app.database;
        await markOverdueInvoices(db);
        const deliverer = new Deliverer(db, deliveryOptionsOf(app), logger.child({ module: 'webhooks' }));
        try {
          const { sent, failed } = await deliverer.deliverAllDue();
          process.stdout.write(`${sent} deliveries sent, ${sent - failed} accepted, ${failed} to retry\n`);
          return failed > 0 ? 1 : 0;
        } finally {
          await deliverer.close();
        }
      }),
    );
}
