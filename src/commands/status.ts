import type { Command } from 'commander';
import { formatRows, plural, relativeTime } from '../format.js';
import {
  attentionLine,
  countJobsByStatus,
  countRejectedValues,
  firstRejectedValues,
  HELD_DELETES_EXPLAINED,
  heldDeletes,
  heldDeletesAdvice,
  lastRateLimit,
  mirrorCounts,
  needsAttention,
  recentRuns,
} from '../db/index.js';
import { schedulePeriodMs } from '../daemon/schedule.js';
import { withApp } from './context.js';

export function registerStatusCommand(command: Command): void {
  command.option('--json', 'print one JSON object, for scripts').action(
    withApp({}, async (app, options: { json?: boolean }) => {
      const { db } = app.database;
      const runs = await recentRuns(db, 5);
      const counts = await mirrorCounts(db);
      const queue = Object.entries(await countJobsByStatus(db)).map(([status, jobs]) => ({ status, jobs }));
      const rateLimit = await lastRateLimit(db);
      const held = await heldDeletes(db);
      const rejected = await firstRejectedValues(db, 50);
      const rejectedCount = await countRejectedValues(db);
      const attention = await needsAttention(db, { periodMs: schedulePeriodMs(app.config.syncCron) });

      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({ database: app.database.location, schema: app.config.schema, runs, mirror: counts, queue, rateLimit, heldDeletes: held, rejectedValues: { total: rejectedCount, first: rejected }, attention }, null, 2)}\n`,
        );
        return;
      }
      const out = process.stdout;
      out.write(`Mirror in ${app.database.location}, schema ${app.config.schema}\n\n`);
      if (attention.length > 0)
        out.write(`Needs attention\n${attention.map((item) => `- ${attentionLine(item)}\n`).join('')}\n`);
      out.write('Last sync runs\n');
      // Ages for a person; --json keeps the timestamps.
      const shown = runs.map(({ started_at, ...run }) => ({
        run: run.run,
        started: relativeTime(started_at as Date),
        ...Object.fromEntries(Object.entries(run).filter(([key]) => key !== 'run')),
      }));
      out.write(runs.length > 0 ? formatRows(shown, 'table') : '(none yet: run invoice-mirror backfill)\n');
      out.write(`\nMirror\n${formatRows(counts, 'table')}`);
      if (held.length > 0) {
        out.write(`\nHeld deletes: ${HELD_DELETES_EXPLAINED}\n`);
        out.write(
          formatRows(
            held.map((h) => ({ ...h, release: heldDeletesAdvice(h.entity) })),
            'table',
          ),
        );
      }
      if (rejectedCount > 0) {
        out.write(
          `\nValues not stored as sent (${rejectedCount}; table rejected_values)\n${formatRows(rejected, 'table')}`,
        );
        if (rejectedCount > rejected.length)
          out.write(`(the first ${rejected.length}; select * from rejected_values for all)\n`);
      }
      out.write(`\nJob queue\n${queue.length > 0 ? formatRows(queue, 'table') : '(empty)\n'}`);
      out.write(
        `\nRate limit: ${rateLimit ? `${plural(rateLimit.remaining, 'request')} left this hour, as seen ${relativeTime(rateLimit.seenAt)} (${rateLimit.seenAt.toISOString()})` : 'not seen yet'}\n`,
      );
    }),
  );
}
