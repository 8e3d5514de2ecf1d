/**
 * A single recorded call: a kind that makes one call which must not be made twice (a create, a
 * payment, a reminder). The call is recorded in `result.call` before it goes out and after it
 * answers (ledger.ts). When its outcome is unknown, it is made again only on proof that it did not
 * happen (the kind's `reconcile`, which may conclude "not" only once the call has settled) or a
 * person's word (`jobs retry --resend`); `--mark-sent` ends the job as done.
 */
import { JobStateError, UnresolvedOutcomeError } from '../errors.js';
import { callOf, callUnknown, resolveCommands, type CallRecord } from '../ledger.js';
import { databaseNow, settling } from '../settle.js';
import { stoppedDuring, type HandlerOutcome, type JobContext, type JobKind, type JobPolicy } from '../types.js';
import { steering } from './repeatable.js';

export const singleCall: JobPolicy = {
  name: 'single recorded call',
  repeatable: false,
  execute: callOnce,
  afterFailure(job, disposition) {
    // The call this attempt made: refused (nothing happened) or of unknown outcome.
    const call = callOf(job.result);
    if (call?.outcome !== 'sending' || job.attempts === 0) return null;
    return { call: { ...call, outcome: disposition.status === 'interrupted' ? 'unknown' : 'failed' } };
  },
  orphan(job) {
    const stopped = stoppedDuring(job);
    // No record of the call: an older version ran it, which recorded nothing; assume the worst.
    const call = callOf(job.result) ?? {
      attempt: job.attempts,
      outcome: 'sending',
      started_at: new Date(0).toISOString(),
    };
    if (call.outcome !== 'sending')
      return {
        result: job.result,
        disposition: { status: 'interrupted', message: `${stopped}, before its call; a retry runs it` },
      };
    return {
      result: { ...(job.result as object), call: { ...call, outcome: 'unknown' } },
      disposition: {
        status: 'interrupted',
        message: `${stopped} during its call, which may have taken effect; a retry first checks the service where it can; ${resolveCommands(job.id, null)}`,
      },
    };
  },
  decide(job, decisions) {
    const call = callOf(job.result);
    if (!call || (call.outcome !== 'unknown' && call.outcome !== 'sending'))
      throw new JobStateError(`job ${job.id} has no call of unknown outcome; retry it without --resend or --mark-sent`);
    if (decisions.resend !== undefined && decisions.markSent !== undefined)
      throw new JobStateError('--resend and --mark-sent: choose one');
    if (decisions.markSent !== undefined)
      return {
        result: {
          ...(job.result as object),
          call: { ...call, outcome: 'done', checked: 'marked done by a person (jobs retry --mark-sent)' },
        },
        done: true,
      };
    return { result: { ...(job.result as object), call: { ...call, decision: 'resend' } }, done: false };
  },
  unknownAdvice: (jobId) => `; a retry first checks the service where it can; ${resolveCommands(jobId, null)}`,
  actions(status, result) {
    const unknown = status === 'interrupted' && callUnknown(callOf(result));
    return [...steering(status), ...(unknown ? (['resend', 'mark-sent'] as const) : [])];
  },
  idsByState: () => null,
};

/**
 * Runs the kind's call, recorded in `result.call` before it goes out. A call of unknown outcome
 * from an earlier attempt is not made again unless the service shows it did not happen (the
 * kind's `reconcile`) or a person chose to (`jobs retry --resend`).
 */
async function callOnce(ctx: JobContext, kind: JobKind, payload: unknown): Promise<HandlerOutcome> {
  const { job } = ctx;
  const previous = callOf(job.result);
  if (callUnknown(previous)) {
    const settle = await settling(ctx.db, previous!.started_at, Math.max(ctx.settleMs, ctx.api.deadlineMs()));
    const found = kind.reconcile ? await kind.reconcile(ctx, payload, previous!, settle) : null;
    if (found?.happened === true) {
      ctx.log.info({ checked: found.checked }, 'the call of an earlier attempt took effect; not calling again');
      const outcome = found.outcome ?? { result: {}, touched: [] };
      return {
        ...outcome,
        result: { ...outcome.result, call: { ...previous!, outcome: 'done', checked: found.checked } },
      };
    }
    if (found?.happened !== false) {
      const checked = found ? found.checked : 'the service gives no way to tell';
      throw new UnresolvedOutcomeError(
        `the call of attempt ${previous!.attempt} may have taken effect (${checked}); ${resolveCommands(job.id, null)}`,
      );
    }
    ctx.log.info({ checked: found.checked }, 'the call of an earlier attempt did not take effect; calling again');
  }
  const before = kind.observe ? await kind.observe(ctx, payload) : undefined;
  const call: CallRecord = {
    attempt: job.attempts,
    outcome: 'sending',
    started_at: await databaseNow(ctx.db),
    ...(before ? { before } : {}),
  };
  await ctx.saveProgress({ call });
  job.result = { call };
  const outcome = await kind.run(ctx, payload);
  return { ...outcome, result: { ...outcome.result, call: { ...call, outcome: 'done' } } };
}
