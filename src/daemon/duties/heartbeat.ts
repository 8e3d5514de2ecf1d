/**
 * The heartbeat duty, every third of a lease: says the daemon is alive, renews the leases of the
 * accounts it works on and gives up those another daemon took over; a daemon the fleet found dead
 * (it could not beat: stopped, or cut off) starts again with nothing held. Then it asks to lead the
 * fleet (the leader renews its lease here: elector.ts).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/index.js';
import { PeriodicDuty, type DutyOutcome } from '../../fleet/duty.js';
import type { LeaderElector } from '../../fleet/elector.js';
import { heartbeat, registerDaemon, type DaemonIdentity } from '../../fleet/leases.js';
import { packageVersion } from '../../version.js';

export interface HeartbeatOptions {
  db: Kysely<Database>;
  identity: DaemonIdentity;
  leaseSeconds: number;
  /** The accounts the daemon works on now. */
  held: () => number[];
  /** Another daemon holds the account now: the daemon stops working on it. */
  abandon: (accountId: number) => void;
  elector: LeaderElector;
  log: Logger;
  report?: (duty: string, outcome: DutyOutcome) => void;
}

/** How often a daemon beats: three times a lease, so that one late beat loses nothing. */
export const beatEveryMs = (leaseSeconds: number): number => (leaseSeconds * 1000) / 3;

export function heartbeatDuty(options: HeartbeatOptions): PeriodicDuty {
  const { db, identity, leaseSeconds, log } = options;
  return new PeriodicDuty({
    name: 'heartbeat',
    everyMs: beatEveryMs(leaseSeconds),
    log,
    report: options.report,
    run: async () => {
      const { lost, declaredDead } = await heartbeat(db, identity.id, options.held(), leaseSeconds);
      for (const id of declaredDead ? options.held() : lost) options.abandon(id);
      if (declaredDead) {
        // Its sessions were ended and its work given to others: it starts again with nothing held.
        log.warn({ daemon: identity.id }, 'this daemon was found dead by the fleet; starting again');
        await registerDaemon(db, identity, packageVersion());
      }
      await options.elector.ask();
    },
  });
}
