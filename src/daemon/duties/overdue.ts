/**
 * The overdue pass, the leader's: hourly, and when it takes the lead, the open invoices that passed
 * their due date get their `invoice.overdue` event (events/overdue.ts; once per invoice whoever
 * runs it, so a leader that changes hands writes none twice).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/index.js';
import { markOverdueInvoices } from '../../events/overdue.js';
import { PeriodicDuty, type DutyOutcome } from '../../fleet/duty.js';

export const OVERDUE_EVERY_MS = 3_600_000;

export function overdueDuty(options: {
  db: Kysely<Database>;
  leads: () => boolean;
  log: Logger;
  report?: (duty: string, outcome: DutyOutcome) => void;
}): PeriodicDuty {
  const { log } = options;
  return new PeriodicDuty({
    name: 'overdue',
    everyMs: OVERDUE_EVERY_MS,
    when: options.leads,
    runAtStart: false,
    log,
    report: options.report,
    run: async () => {
      const marked = await markOverdueInvoices(options.db);
      if (marked > 0) log.info({ marked }, 'invoices passed their due date');
    },
  });
}
