/**
 * Repeatable: a kind whose call is safe to make again whatever happened to an earlier one (a PUT
 * of fields, a delete by id that counts a later 404 as done). An attempt is its handler; a worker
 * that died during one simply runs it again (the lost attempt counts); there is nothing for a
 * person to decide.
 */
import { JobStateError } from '../errors.js';
import type { JobAction, JobPolicy } from '../types.js';

export const repeatable: JobPolicy = {
  name: 'repeatable',
  repeatable: true,
  execute: (ctx, kind, payload) => kind.run(ctx, payload),
  afterFailure: () => null,
  orphan(job) {
    if (job.attempts >= job.max_attempts)
      return {
        result: job.result,
        disposition: {
          status: 'failed',
          message: `gave up after ${job.attempts} attempts: the worker stopped during the last one`,
        },
      };
    return {
      result: job.result,
      disposition: {
        status: 'queued',
        message: `the worker stopped during attempt ${job.attempts}; running it again`,
        delayMs: 0,
        spendsAttempt: true,
      },
    };
  },
  decide(job) {
    throw new JobStateError(`job ${job.id} (${job.kind}) is safe to repeat; retry it without --resend or --mark-sent`);
  },
  unknownAdvice: () => '',
  actions: (status) => steering(status),
  idsByState: () => null,
};

/** Retry and cancel, as the queue allows them (shared by every policy). */
export function steering(status: string): JobAction[] {
  const actions: JobAction[] = [];
  if (['failed', 'interrupted', 'cancelled'].includes(status)) actions.push('retry');
  if (['queued', 'interrupted'].includes(status)) actions.push('cancel');
  return actions;
}
