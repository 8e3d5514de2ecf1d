/**
 * A batched send: saved invoices sent in calls of at most 10 ids, each call recorded in
 * `result.batches` before it goes out and after it answers (ledger.ts), so every id is always
 * sent, refused, pending, or "may have been sent". Ids of unknown outcome are never sent again
 * blindly: a retry first asks the service (proof either way, and "not sent" only once the call
 * has settled, see settle.ts), and what it cannot tell waits for a person's `--resend` or
 * `--mark-sent` per id.
 */
import {
  MAX_SEND_IDS,
  NotFoundError,
  UnknownOutcomeError,
  failureKind,
  type FailureKind,
  type RecordOf,
} from '../../api/index.js';
import type { SingleReadEntity } from '../../catalog/index.js';
import { errorMessage } from '../../errors.js';
import type { RefreshTarget } from '../../sync/index.js';
import { JobFailure, JobStateError, UnresolvedOutcomeError } from '../errors.js';
import {
  batchesOf,
  failedWhy,
  idStates,
  idsIn,
  listIds,
  resolveCommands,
  SENDABLE,
  type IdState,
  type SendBatch,
  type SendProgress,
} from '../ledger.js';
import { mirrorRows, type AccountMirror } from '../mirror.js';
import type { Disposition } from '../types.js';
import { databaseNow, dayBeforeCall, settling, stillWorking, type Settling } from '../settle.js';
import {
  stoppedDuring,
  type HandlerOutcome,
  type JobContext,
  type JobPolicy,
  type JobRow,
  type RetryDecisions,
  type StoredJob,
} from '../types.js';
import { steering } from './repeatable.js';

export const batchedSend: JobPolicy = {
  name: 'batched send',
  repeatable: false,
  execute: (ctx, kind, payload) => kind.run(ctx, payload),
  afterFailure: () => null, // the send records its own batches
  orphan: orphanedSend,
  decide: decideSends,
  unknownAdvice: () => '', // a send's message names its ids and the commands itself
  actions(status, result) {
    const unknown =
      status === 'interrupted' && batchesOf(result).some((b) => b.outcome === 'unknown' || b.outcome === 'sending');
    return [...steering(status), ...(unknown ? (['resend', 'mark-sent'] as const) : [])];
  },
  idsByState,
};

const target = (entity: SingleReadEntity, key: number): RefreshTarget => ({ entity, id: key });

/** Sends the saved invoices of `p.ids` that certainly have not been sent, after checking those that may have been. */
export async function sendSavedInvoices(
  ctx: JobContext,
  p: { ids: number[]; delete: boolean },
): Promise<HandlerOutcome> {
  const progress: SendProgress = { ids: p.ids, delete: p.delete, sent: [], batches: batchesOf(ctx.job.result) };
  const sentBefore = new Set(idsIn(idStates(p.ids, progress.batches), 'sent'));
  const sentNow = () => idsIn(idStates(p.ids, progress.batches), 'sent').filter((i) => !sentBefore.has(i));
  const touched = async () => touchedBySend(ctx, sentNow());

  // First what may have been sent already: ask the service where it can tell.
  const check = await recordChecks(ctx, p, progress);

  // Then send what certainly has not been sent, in calls of at most 10.
  const todo = idsIn(idStates(p.ids, progress.batches), SENDABLE);
  for (let i = 0; i < todo.length; i += MAX_SEND_IDS) {
    const ids = todo.slice(i, i + MAX_SEND_IDS);
    const batch: SendBatch = {
      ids,
      attempt: ctx.job.attempts,
      outcome: 'sending',
      started_at: await databaseNow(ctx.db),
    };
    progress.batches.push(batch);
    await ctx.saveProgress(progress);
    const started = performance.now();
    try {
      await ctx.api.sendSavedInvoices(ids, { delete: p.delete });
      batch.outcome = 'sent';
    } catch (error) {
      batch.outcome = error instanceof UnknownOutcomeError ? 'unknown' : 'failed';
      if (batch.outcome === 'failed') batch.failure = failureKind(error);
      batch.error = errorMessage(error);
      progress.sent = idsIn(idStates(p.ids, progress.batches), 'sent');
      const settleMs = sendSettleMs(ctx, batch);
      const failure = describeSendFailure(ctx.job.id, progress, batch, error, settleMs);
      throw new JobFailure(failure, error, await touched());
    } finally {
      batch.ms = Math.round(performance.now() - started);
      progress.sent = idsIn(idStates(p.ids, progress.batches), 'sent');
      await ctx.saveProgress(progress);
    }
  }

  // What the service could not tell waits for a person.
  if (check && check.unknown.length > 0) {
    const ids = check.unknown.map((u) => u.id);
    const message =
      `${ids.length} of ${p.ids.length} invoices may have been sent: ${describeUnknown(check.unknown)}; ` +
      `${progress.sent.length} confirmed sent, ${sentNow().length} of them now; or decide now: ${resolveCommands(ctx.job.id, ids)}`;
    throw new JobFailure(message, new UnresolvedOutcomeError(message), await touched());
  }
  // The sent invoices, read into the mirror at once and named (the send answer carries no ids).
  const firstCall = progress.batches.find((b) => b.ids.some((i) => sentNow().includes(i)));
  const invoices = firstCall ? await newSentInvoices(ctx, sentNow(), firstCall.started_at) : [];
  return {
    result: { ...progress, invoices },
    touched: [...(await touched()), ...invoices.map((i) => target('invoices', i))],
  };
}

/**
 * Checks with the service the ids whose send may have happened (none: null), and records what it
 * established as batches of their own, so a crash after this never checks again for nothing.
 */
async function recordChecks(
  ctx: JobContext,
  p: { ids: number[]; delete: boolean },
  progress: SendProgress,
): Promise<SendCheck | null> {
  const unknown = idsIn(idStates(p.ids, progress.batches), 'unknown');
  if (unknown.length === 0) return null;
  const check = await checkSends(ctx, p.delete, progress.batches, unknown);
  const at = await databaseNow(ctx.db);
  const established = [
    { ids: check.sent, outcome: 'sent' as const, source: SENT_BY_CHECK },
    { ids: check.unsent, outcome: 'unsent' as const, source: UNSENT_BY_CHECK },
  ];
  for (const { ids, outcome, source } of established)
    if (ids.length > 0) progress.batches.push({ ids, attempt: ctx.job.attempts, outcome, started_at: at, source });
  progress.sent = idsIn(idStates(p.ids, progress.batches), 'sent');
  await ctx.saveProgress(progress);
  return check;
}

/**
 * The sent invoices a send made: those of the sent saved invoices' clients listed since the call
 * (`/invoices?since=&client=`) that the mirror does not hold yet. They exist already, so a failed
 * look-up only leaves them to the next sync: it never fails the job (a retry must not send again).
 */
async function newSentInvoices(ctx: JobContext, savedIds: number[], startedAt: string): Promise<number[]> {
  try {
    const sentSince = clientInvoicesSince(ctx);
    const listed = new Set<number>();
    for (const client of await clientsOf(ctx, savedIds))
      for (const invoice of await sentSince(String(client), startedAt))
        if (Number.isInteger(Number(invoice.id))) listed.add(Number(invoice.id));
    const known = await mirrorRows(ctx, 'invoices', [...listed]);
    return [...listed].filter((i) => !known.has(i)).sort((a, b) => a - b);
  } catch (error) {
    ctx.log.warn(
      { error: errorMessage(error) },
      'sent; the new invoices could not be listed, the next sync brings them',
    );
    return [];
  }
}

/** A send left running by a dead worker: the batch in flight becomes `unknown`, what was confirmed stays sent. */
function orphanedSend(job: JobRow): { result: unknown; disposition: Disposition } {
  const stopped = stoppedDuring(job);
  const ids = Array.isArray((job.payload as { ids?: unknown })?.ids) ? (job.payload as { ids: number[] }).ids : [];
  const batches = batchesOf(job.result).map((b) =>
    b.outcome === 'sending' ? { ...b, outcome: 'unknown' as const, error: 'the worker stopped during the call' } : b,
  );
  const states = idStates(ids, batches);
  const unknown = idsIn(states, 'unknown');
  const sent = idsIn(states, 'sent');
  const result = { ...(job.result as object), batches, sent };
  if (unknown.length === 0) {
    const message = `${stopped} between calls; ${sent.length} of ${ids.length} confirmed sent; a retry sends the rest`;
    return { result, disposition: { status: 'interrupted', message } };
  }
  const message =
    `${stopped}: ids ${listIds(unknown)} may have been sent (their call was in flight); ${sent.length} of ${ids.length} confirmed sent. ` +
    `A retry first checks the service for them where it can, and sends only the ids certainly not sent; ${resolveCommands(job.id, unknown)}`;
  return { result, disposition: { status: 'interrupted', message } };
}

/** What a check of the service established about ids whose send may have happened. */
interface SendCheck {
  sent: number[];
  unsent: number[];
  /** Still unknown, each with why. */
  unknown: { id: number; why: string }[];
}

const SENT_BY_CHECK = 'checked with the service: the saved invoice, sent with delete true, is gone';
const UNSENT_BY_CHECK =
  'checked with the service after the settle period: the saved invoice is still there and no sent invoice has its client and total since the call';

/** A send's settle period: the setting, and never less than the call's own deadline. */
function sendSettleMs(ctx: JobContext, batch: SendBatch): number {
  return Math.max(ctx.settleMs, ctx.api.sendDeadlineMs(batch.ids.length));
}

/**
 * Proof either way, or nothing. Sent: a saved invoice sent with `delete: true` is gone (the
 * service removes it only once sent). Not sent: only once the call has settled (the service may
 * still be sending it until then), the saved invoice still there **and** no sent invoice for its
 * client and total since the call. Anything else stays unknown, for a retry after the settle
 * period or for a person.
 */
async function checkSends(ctx: JobContext, deleting: boolean, batches: SendBatch[], ids: number[]): Promise<SendCheck> {
  const check: SendCheck = { sent: [], unsent: [], unknown: [] };
  const lookalikes = sentLookalikes(ctx);
  // Ids of one call settle together: ask the database's clock once per call.
  const settles = new Map<SendBatch, Promise<Settling>>();
  for (const id of ids) {
    const call = [...batches].reverse().find((b) => b.ids.includes(id))!;
    const saved = await ctx.api.getSavedInvoice(id).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (saved === null) {
      if (deleting) check.sent.push(id);
      else check.unknown.push({ id, why: 'the saved invoice is gone, though the send was not asked to delete it' });
      continue;
    }
    if (!settles.has(call)) settles.set(call, settling(ctx.db, call.started_at, sendSettleMs(ctx, call)));
    const settle = await settles.get(call)!;
    if (!settle.settled) {
      check.unknown.push({ id, why: stillWorking(settle) });
      continue;
    }
    const alike = await lookalikes(saved, call.started_at);
    if (alike.length === 0) check.unsent.push(id);
    else
      check.unknown.push({
        id,
        why: `sent invoice ${alike.join(', ')} has its client and total and was sent since the call; it may be this one`,
      });
  }
  return check;
}

/**
 * The numbers of sent invoices that could be a saved invoice's send: same client, same total,
 * sent since the call. "Since" reaches back far enough for any calendar: the day before the
 * call, or before the latest send date the mirror holds if the service's calendar is behind ours
 * (a wider look only finds more lookalikes, which keeps more ids for a person). One list per
 * client, however many ids ask.
 */
function sentLookalikes(ctx: JobContext) {
  const sentSince = clientInvoicesSince(ctx);
  return async (saved: RecordOf<'saved_invoices'>, startedAt: string): Promise<string[]> => {
    const total = Number(saved.totalintax);
    return (await sentSince(String(saved.clientnr ?? ''), startedAt))
      .filter((invoice) => Number(invoice.totalintax) === total)
      .map((invoice) => String(invoice.invoicenr_full ?? invoice.invoicenr ?? invoice.id));
  };
}

/**
 * A client's sent invoices since the day before a call (`/invoices?since=&client=`), listed once
 * per client and day, however many ids ask.
 */
function clientInvoicesSince(ctx: JobContext) {
  const lists = new Map<string, Promise<RecordOf<'invoices'>[]>>();
  const days = new Map<string, Promise<string>>();
  return async (client: string, startedAt: string): Promise<RecordOf<'invoices'>[]> => {
    if (!days.has(startedAt)) days.set(startedAt, dayBeforeCall(ctx, startedAt));
    const since = await days.get(startedAt)!;
    const key = `${client}@${since}`;
    if (!lists.has(key)) lists.set(key, ctx.api.list('invoices', { filters: { since, client } }).all());
    return (await lists.get(key)!).filter((invoice) => String(invoice.clientnr ?? '') === client);
  };
}

/** "ids 3, 4: why; id 5: why", grouped by reason. */
function describeUnknown(unknown: { id: number; why: string }[]): string {
  const byWhy = new Map<string, number[]>();
  for (const { id, why } of unknown) byWhy.set(why, [...(byWhy.get(why) ?? []), id]);
  return [...byWhy].map(([why, ids]) => `${ids.length === 1 ? 'id' : 'ids'} ${listIds(ids)}: ${why}`).join('; ');
}

function describeSendFailure(
  jobId: number,
  progress: SendProgress,
  batch: SendBatch,
  error: unknown,
  settleMs: number,
): string {
  const left = progress.ids.length - progress.sent.length;
  const until = new Date(Date.parse(batch.started_at) + settleMs).toISOString();
  const what =
    batch.outcome === 'unknown'
      ? `may have been sent: ${errorMessage(error)}; ${stillWorking({ until, ms: settleMs })} for them and sends only the ids certainly not sent; or decide now: ${resolveCommands(jobId, batch.ids)}`
      : `were not sent: ${errorMessage(error)}; a retry sends only the ${left} not confirmed sent`;
  return `${progress.sent.length} of ${progress.ids.length} invoices confirmed sent; the call with ids ${listIds(batch.ids)} ${what}`;
}

/** Sent invoices, and their clients (the service updates `lastinvoice`). */
async function touchedBySend(mirror: AccountMirror, ids: number[]): Promise<RefreshTarget[]> {
  const clients = await clientsOf(mirror, ids);
  return [...ids.map((i) => target('saved_invoices', i)), ...clients.map((c) => target('clients', c))];
}

/** The clients of saved invoices, as the account's mirror has them (0, no client, left out). */
async function clientsOf(mirror: AccountMirror, savedIds: number[]): Promise<number[]> {
  const clients = new Set<number>();
  for (const row of (await mirrorRows(mirror, 'saved_invoices', savedIds)).values())
    if (typeof row.clientnr === 'number' && row.clientnr > 0) clients.add(row.clientnr);
  return [...clients];
}

/** Records a person's decisions about ids of a send whose outcome is unknown, as batches. */
function decideSends(job: StoredJob, decisions: RetryDecisions): { result: unknown; done: boolean } {
  const ids = (job.payload as { ids: number[] }).ids;
  const batches = batchesOf(job.result);
  const unknown = idsIn(idStates(ids, batches), 'unknown');
  const pick = (choice: RetryDecisions['resend'], option: string): number[] => {
    if (choice === undefined) return [];
    const chosen = choice === 'unknown' || choice === true ? unknown : choice;
    const wrong = chosen.filter((i) => !unknown.includes(i));
    if (wrong.length > 0)
      throw new JobStateError(
        `${option}: ${listIds(wrong)} ${wrong.length === 1 ? 'is not an id' : 'are not ids'} of unknown outcome in job ${job.id}` +
          (unknown.length > 0 ? ` (those are: ${listIds(unknown)})` : ' (it has none)'),
      );
    return chosen;
  };
  const resend = pick(decisions.resend, '--resend');
  const markSent = pick(decisions.markSent, '--mark-sent');
  const both = resend.filter((i) => markSent.includes(i));
  if (both.length > 0)
    throw new JobStateError(`--resend and --mark-sent both name ${listIds(both)}; choose one for each id`);
  const at = new Date().toISOString();
  const decided = (chosen: number[], outcome: 'sent' | 'unsent', source: string) =>
    chosen.length > 0 ? [{ ids: chosen, attempt: 0, outcome, started_at: at, source }] : [];
  const added = [
    ...decided(markSent, 'sent', 'marked sent by a person (jobs retry --mark-sent)'),
    ...decided(resend, 'unsent', 'to be sent again, as a person chose (jobs retry --resend)'),
  ];
  const all = [...batches, ...added];
  const sent = idsIn(idStates(ids, all), 'sent');
  return { result: { ...(job.result as object), ids, batches: all, sent }, done: false };
}

/** Why a call sent nothing, as the ids' state says it (see failedWhy). */
const NOT_SENT: Readonly<Record<FailureKind, string>> = {
  refused: 'refused (not sent)',
  unreachable: 'not sent: the service could not be reached',
  no_answer: 'not sent: no complete answer from the service',
  rate_limited: 'not sent: the hourly quota or budget was spent',
  key_refused: "not sent: the account's API key was refused",
  server_error: 'not sent: the service answered with an error',
  unknown_outcome: 'not sent: the call failed',
  other: 'not sent: the call failed',
};

/** A send's ids grouped by state (sent, may have been sent, …), for `jobs show` and the console. */
function idsByState(payload: unknown, result: unknown): [string, number[]][] | null {
  const ids = (payload as { ids?: unknown } | null)?.ids;
  if (!Array.isArray(ids)) return null;
  const batches = batchesOf(result);
  const states = idStates(ids as number[], batches);
  const names: Record<Exclude<IdState, 'failed'>, string> = {
    sent: 'sent',
    unknown: 'may have been sent (unknown)',
    unsent: 'to send (checked: not sent)',
    pending: 'not sent yet',
  };
  const groups = new Map<string, number[]>();
  const why = failedWhy(batches);
  for (const [id, state] of states) {
    const name = state === 'failed' ? NOT_SENT[why.get(id) ?? 'refused'] : names[state];
    groups.set(name, [...(groups.get(name) ?? []), id]);
  }
  // In the order of the states: sent first, then those that may have been, then the rest.
  const order = [names.sent, names.unknown, names.unsent, ...Object.values(NOT_SENT), names.pending];
  return [...new Set(order)].filter((name) => groups.has(name)).map((name) => [name, groups.get(name)!]);
}
