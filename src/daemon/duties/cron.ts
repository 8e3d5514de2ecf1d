/**
 * SYNC_CRON's all-due, the leader's: at each tick of the schedule (schedule.ts, kept going through
 * steps of the wall clock) the leader makes every account's pull due now, and every daemon then
 * claims as usual. Every daemon keeps the schedule; at a tick one that does not lead asks to (one
 * query), so that a tick while the leader's lease has just run out (it died) is not lost.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/index.js';
import type { Duty, DutyOutcome } from '../../fleet/duty.js';
import type { LeaderElector } from '../../fleet/elector.js';
import { allDueNow } from '../../fleet/leases.js';
import { errorMessage } from '../../errors.js';
import { guardedSchedule, type GuardedSchedule } from '../schedule.js';

export function cronDuty(options: {
  expression: string;
  db: Kysely<Database>;
  elector: LeaderElector;
  /** After the tick: claim now (the accounts just made due). */
  claimSoon: () => void;
  log: Logger;
  report?: (duty: string, outcome: DutyOutcome) => void;
}): Duty & { tick(): Promise<void> } {
  const { elector, log, report } = options;
  let schedule: GuardedSchedule | undefined;
  const tick = async (): Promise<void> => {
    try {
      if (elector.leads || (await elector.ask())) {
        await allDueNow(options.db);
        report?.('cron', 'ran');
      } else report?.('cron', 'skipped');
    } catch (error) {
      report?.('cron', 'failed');
      log.error({ error: errorMessage(error) }, 'could not mark the accounts due');
    }
    options.claimSoon();
  };
  return {
    name: 'cron',
    tick,
    start() {
      schedule = guardedSchedule(options.expression, () => void tick(), log);
    },
    async stop() {
      await schedule?.stop();
    },
  };
}
