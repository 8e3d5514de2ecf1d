/**
 * The bury duty, the leader's, every third of a lease and at once when it takes the lead: daemons
 * whose heartbeat is older than the lease are marked dead and their database sessions ended
 * (leases.ts, buryDeadDaemons), so that one only stopped that comes back holds no lock; their
 * job locks are free then, so what they left running is swept at once (`onBuried`).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/index.js';
import { PeriodicDuty, type DutyOutcome } from '../../fleet/duty.js';
import { buryDeadDaemons } from '../../fleet/leases.js';

export function buryDuty(options: {
  db: Kysely<Database>;
  leaseSeconds: number;
  everyMs: number;
  leads: () => boolean;
  onBuried: (daemons: string[]) => void;
  log: Logger;
  report?: (duty: string, outcome: DutyOutcome) => void;
}): PeriodicDuty {
  const { db, leaseSeconds, log } = options;
  return new PeriodicDuty({
    name: 'bury',
    everyMs: options.everyMs,
    when: options.leads,
    runAtStart: false,
    log,
    report: options.report,
    run: async () => {
      const buried = await buryDeadDaemons(db, leaseSeconds);
      if (buried.length === 0) return;
      log.warn({ daemons: buried }, 'daemons without a heartbeat: their accounts go to the others');
      options.onBuried(buried);
    },
  });
}
