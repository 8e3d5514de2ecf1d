/**
 * The orphan sweep, the leader's: every `everyMs` (a third of a lease, at least a second), at once
 * when it takes the lead and when a dead daemon was just buried, the jobs a dead worker left
 * `running` are recovered (jobs/orphans.ts says how the worker is proven dead), so that they become
 * `interrupted` or are run again within a lease and a sweep of the worker's death, whether or not
 * another job of their account is queued.
 */
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../../db/index.js';
import { PeriodicDuty, type DutyOutcome } from '../../fleet/duty.js';
import { recoverOrphansWithoutRunner, type RecoveredOrphan } from '../../jobs/orphans.js';

export function orphanSweepDuty(options: {
  database: DatabaseHandle;
  everyMs: number;
  leads: () => boolean;
  onRecovered: (job: RecoveredOrphan) => void;
  log: Logger;
  report?: (duty: string, outcome: DutyOutcome) => void;
}): PeriodicDuty {
  const { log } = options;
  return new PeriodicDuty({
    name: 'orphan-sweep',
    everyMs: options.everyMs,
    when: options.leads,
    runAtStart: false,
    log,
    report: options.report,
    run: async () => {
      for (const job of await recoverOrphansWithoutRunner(options.database)) {
        log.warn(
          { account: job.account, jobId: job.id, kind: job.kind, status: job.status, error: job.message },
          'recovered a job left running by a worker that stopped',
        );
        options.onRecovered(job);
      }
    },
  });
}
