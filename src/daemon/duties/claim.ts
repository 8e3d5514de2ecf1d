/**
 * The claim duty: every second, and when asked (a job queued, an orphan recovered, SYNC_CRON's
 * tick), the daemon claims the accounts whose work is due (FleetDaemon.claim). A claim that never
 * settles (a connection lost under a waiting query: porsager/postgres#1195) must not stop the
 * daemon from claiming: after CLAIM_GIVE_UP_MS the next turn claims beside it, and the daemon is
 * told, as of a failed claim, so that it lets go of the work begun before.
 */
import type { Logger } from 'pino';
import { PeriodicDuty, type DutyOutcome } from '../../fleet/duty.js';

/** How often a daemon looks for due work when nothing woke it sooner. */
export const CLAIM_EVERY_MS = 1000;
/** How long a claim may take before the daemon claims again beside it. */
export const CLAIM_GIVE_UP_MS = 10_000;

export function claimDuty(options: {
  claim: () => Promise<void>;
  /** A claim did not settle in time (the database is taken to have failed under it). */
  onStall: () => void;
  log: Logger;
  report?: (duty: string, outcome: DutyOutcome) => void;
}): PeriodicDuty {
  return new PeriodicDuty({
    name: 'claim',
    everyMs: CLAIM_EVERY_MS,
    giveUpMs: CLAIM_GIVE_UP_MS,
    onGiveUp: options.onStall,
    run: options.claim,
    log: options.log,
    report: options.report,
  });
}
