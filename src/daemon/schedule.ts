/**
 * SYNC_CRON with node-cron, kept going through steps of the wall clock.
 *
 * node-cron 4 arms one timer for the next match and, when it fires, looks at the wall clock
 * again: after a step back of X it finds the match still ahead and waits X longer (a step of
 * hours: no sync for hours); after a step forward it counts every match in between as missed (a
 * console warning each, none run) and waits for the next. A watchdog compares wall-clock and
 * monotonic time elapsed every second; on a jump it re-creates the task, which then aims at the
 * next match of the new wall time. Missed matches are never run, so a step brings at most the
 * next scheduled sync, never a burst.
 */
import type { Config } from '../config.js';
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';

const CHECK_MS = 1_000;
/** A smaller difference is drift or rounding; node-cron runs a match up to a second late anyway. */
const JUMP_MS = 1_000;

export interface GuardedSchedule {
  stop(): Promise<void>;
}

export function guardedSchedule(expression: string, run: () => void, log: Logger): GuardedSchedule {
  let wall = Date.now();
  let monotonic = performance.now();

  const create = (): ScheduledTask => {
    const created = cron.schedule(expression, run, { name: 'sync', noOverlap: true });
    created.on('execution:missed', (context) => onMissed(created, context.date));
    return created;
  };

  /** How far the wall clock moved beyond the monotonic clock since the last look. */
  const stepSinceLastLook = (): number => {
    const [wallNow, monotonicNow] = [Date.now(), performance.now()];
    const step = wallNow - wall - (monotonicNow - monotonic);
    [wall, monotonic] = [wallNow, monotonicNow];
    return step;
  };

  /** Re-creates the task after a step of the wall clock; true if there was one. */
  const check = (): boolean => {
    const step = stepSinceLastLook();
    if (Math.abs(step) <= JUMP_MS) return false;
    const seconds = Math.round(Math.abs(step) / 1000);
    log.warn(
      { stepSeconds: Math.round(step / 1000) },
      `the wall clock stepped ${step > 0 ? 'forward' : 'back'} ${seconds} s; SYNC_CRON continues from the new time`,
    );
    void task.destroy();
    task = create();
    return true;
  };

  const onMissed = (from: ScheduledTask, date: Date): void => {
    if (from !== task) return; // the rest of a replaced task's missed matches
    if (check()) return;
    log.warn(
      { at: date.toISOString() },
      'a scheduled sync was missed (the process was busy); the next one runs on time',
    );
  };

  let task = create();
  const watchdog = setInterval(check, CHECK_MS);
  watchdog.unref();
  return {
    async stop() {
      clearInterval(watchdog);
      await task.destroy();
    },
  };
}

/** The schedule's period: the time between its next two runs. */
export function schedulePeriodMs(expression: string): number {
  const probe = cron.createTask(expression, () => undefined);
  const [first, second] = probe.getNextRuns(2);
  void probe.destroy();
  return first && second ? second.getTime() - first.getTime() : 15 * 60_000;
}

/** How often the daemon pulls an account: the SYNC_CRON schedule's period when set, else SYNC_INTERVAL. */
export function syncPeriodMs(config: Pick<Config, 'syncCron' | 'syncInterval'>): number {
  return config.syncCron ? schedulePeriodMs(config.syncCron) : config.syncInterval;
}
