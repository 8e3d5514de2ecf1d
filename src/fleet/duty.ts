/**
 * A daemon's periodic duty (claiming, the heartbeat, burying dead daemons, the orphan sweep, the
 * overdue pass), started and stopped the same way: it runs every `everyMs` and when asked
 * (`soon`), never two runs at once (one asked for meanwhile runs right after), and a failure is a
 * warning and a try at the next turn, never the end of the duty.
 *
 * A maintenance duty runs only while `when()` says so (the daemon leads the fleet: elector.ts);
 * a turn it is not its to run is skipped. A run that never settles (a connection lost under a
 * waiting query: porsager/postgres#1195) holds the next back for at most `giveUpMs`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';

export type DutyOutcome = 'ran' | 'failed' | 'skipped';

/** Something a daemon starts and stops. */
export interface Duty {
  readonly name: string;
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

export interface PeriodicDutyOptions {
  name: string;
  everyMs: number;
  run: () => Promise<void>;
  log: Logger;
  /** Whether the duty is this daemon's to run now (default: always). */
  when?: () => boolean;
  /** Whether `start` runs it at once (default: true). */
  runAtStart?: boolean;
  /** After this long a run not settled no longer holds the next back (default: never). */
  giveUpMs?: number;
  /** Told when a run is given up on. */
  onGiveUp?: () => void;
  /** Told each turn's outcome (the /metrics counter). */
  report?: (duty: string, outcome: DutyOutcome) => void;
}

export class PeriodicDuty implements Duty {
  readonly name: string;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(private readonly options: PeriodicDutyOptions) {
    this.name = options.name;
  }

  /** Starts the turns; resolves once the first has run (when it runs at start). */
  async start(): Promise<void> {
    this.stopped = false;
    this.timer = setInterval(() => void this.soon(), this.options.everyMs);
    if (this.options.runAtStart !== false) await this.soon();
  }

  /** Runs now, or once more right after the run under way; resolves when that run is over. */
  soon(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.turn().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        void this.soon();
      }
    });
    return this.running;
  }

  private async turn(): Promise<void> {
    const { when, giveUpMs, report, name } = this.options;
    if (when && !when()) {
      report?.(name, 'skipped');
      return;
    }
    let settled = false;
    const run = this.runOnce().finally(() => {
      settled = true;
    });
    if (giveUpMs === undefined) return run;
    const gaveUp = sleep(giveUpMs, undefined, { ref: false }).then(() => {
      if (!settled) this.options.onGiveUp?.();
    });
    return Promise.race([run, gaveUp]);
  }

  private async runOnce(): Promise<void> {
    const { run, report, name, log } = this.options;
    try {
      await run();
      report?.(name, 'ran');
    } catch (error) {
      report?.(name, 'failed');
      log.warn({ duty: name, error: errorMessage(error) }, `the ${name} duty failed; it tries again`);
    }
  }

  /** No more turns; resolves when the run under way (if any) is over. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.again = false;
    clearInterval(this.timer);
    await this.running;
  }
}
