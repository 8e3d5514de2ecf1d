/**
 * `events [--after ID] [--type T] [--account NAME] [--follow]`: the business events as JSON lines,
 * oldest first; `--follow` keeps printing new ones as they are written (LISTEN/NOTIFY, with a
 * one-second backstop: an event waits until every older transaction has ended, see
 * src/events/store.ts, and that end announces nothing).
 */
import { resolveAccounts } from '../accounts/resolve.js';
import type { Command } from 'commander';
import { listenFor } from '../db/channels.js';
import { logger } from '../log.js';
import { EVENT_TYPE_NAMES } from '../catalog/index.js';
import { UsageError } from '../errors.js';
import { eventJson, isEventId, readEvents } from '../events/store.js';
import { collect, onStopSignals, withApp } from './context.js';

const BATCH = 1000;
const BACKSTOP_MS = 1000;

interface EventsOptions {
  after?: string;
  type: string[];
  account: string[];
  follow?: boolean;
}

export function registerEventsCommand(command: Command): void {
  command
    .option('--after <id>', 'only events after this event id (what the last line printed had)')
    .option('--type <type>', `only this type (repeatable): ${EVENT_TYPE_NAMES.join(', ')}`, collect, [])
    .option('--account <name>', 'only the events of this account (repeatable; default: every account)', collect, [])
    .option('--follow', 'keep printing events as they are written, until SIGINT/SIGTERM')
    .action(
      withApp({}, async (app, options: EventsOptions) => {
        if (options.after !== undefined && !isEventId(options.after))
          throw new UsageError(`--after: must be an event id (digits), got '${options.after}'`);
        const unknown = options.type.filter((type) => !EVENT_TYPE_NAMES.includes(type));
        if (unknown.length > 0)
          throw new UsageError(
            `--type: unknown event type ${unknown.join(', ')}; the types are: ${EVENT_TYPE_NAMES.join(', ')}`,
          );
        const { db } = app.database;
        const { scope } = await resolveAccounts(db, options.account);
        let after = options.after ?? null;
        const printAll = async (): Promise<number> => {
          for (;;) {
            const events = await readEvents(db, { after, types: options.type, scope, limit: BATCH });
            for (const event of events) process.stdout.write(`${eventJson(event)}\n`);
            if (events.length > 0) after = events.at(-1)!.id;
            if (events.length < BATCH) return events.length;
          }
        };
        await printAll();
        if (!options.follow) return;
        let wake: (() => void) | undefined;
        let stopped = false;
        const unlisten = await listenFor(app.database, 'events', () => wake?.(), logger);
        const removeHandlers = onStopSignals(
          () => {
            stopped = true;
            wake?.();
          },
          () => process.exit(130),
        );
        try {
          while (!stopped) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, BACKSTOP_MS);
              wake = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            if (!stopped) await printAll();
          }
        } finally {
          removeHandlers();
          await unlisten();
        }
      }),
    );
}
