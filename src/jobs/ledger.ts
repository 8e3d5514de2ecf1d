/**
 * What a job that is not safe to repeat has done, kept in its `result` so that it survives the
 * worker: a send's calls (`batches`, one per call of at most 10 ids) or a single call (`call`).
 * A call is recorded as `sending` before it goes out; if the worker dies during it, or its answer
 * is lost, its outcome is `unknown`: it **may have taken effect**. Such ids are never sent again
 * blindly. A later run first checks the service where it can tell (see the kinds' `reconcile`),
 * and otherwise waits for a person to choose: `jobs retry ID --resend …` (it did not happen) or
 * `--mark-sent …` (it did).
 */
import { FAILURE_WORDS, type FailureKind } from '../api/index.js';

/** One send call as recorded in `result.batches`. */
export interface SendBatch {
  ids: number[];
  attempt: number;
  /**
   * `sending` while the call is in flight; `sent` / `failed` (refused: nothing sent) from the
   * answer; `unknown` when the answer was lost; `unsent` when a check or a person established that
   * a call of unknown outcome did not happen.
   */
  outcome: 'sending' | 'sent' | 'failed' | 'unknown' | 'unsent';
  started_at: string;
  ms?: number;
  error?: string;
  /**
   * Why a `failed` call sent nothing: the service refused it, could not be reached, or the quota
   * was spent (see failureKind). Batches recorded before it was kept have none: see failedWhy.
   */
  failure?: FailureKind;
  /** How a `sent`/`unsent` that no answer told was established (a check of the service, or a person). */
  source?: string;
}

export interface SendProgress {
  ids: number[];
  delete: boolean;
  /** Ids the service confirmed sent, over every attempt. */
  sent: number[];
  batches: SendBatch[];
}

/**
 * Where an id of a send stands: `pending` (never in a call), `sent`, `unsent` (established not
 * sent: send it), `failed` (its call was refused: nothing was sent), `unknown` (may have been sent).
 */
export type IdState = 'pending' | 'sent' | 'unsent' | 'failed' | 'unknown';

/** Sendable states: the service certainly has not sent these. */
export const SENDABLE: ReadonlySet<IdState> = new Set(['pending', 'unsent', 'failed']);

/** The batches earlier attempts left in `result` (none on a first attempt). */
export function batchesOf(result: unknown): SendBatch[] {
  const batches = (result as Partial<SendProgress> | null)?.batches;
  return Array.isArray(batches) ? batches : [];
}

/**
 * Each id's state from the batches, the latest batch naming it deciding. A batch still `sending`
 * when read here was in flight when its worker stopped: `unknown`.
 */
export function idStates(ids: readonly number[], batches: readonly SendBatch[]): Map<number, IdState> {
  const states = new Map<number, IdState>(ids.map((id) => [id, 'pending']));
  for (const batch of batches) {
    const state: IdState = batch.outcome === 'sending' ? 'unknown' : batch.outcome;
    for (const id of batch.ids) states.set(id, state);
  }
  return states;
}

/**
 * Why each id whose latest call `failed` sent nothing (ids in another state are left out). A batch
 * recorded before `failure` was kept is read from its error's text: a connect failure or a spent
 * quota names itself; anything else was a refusal.
 */
export function failedWhy(batches: readonly SendBatch[]): Map<number, FailureKind> {
  const why = new Map<number, FailureKind>();
  for (const batch of batches)
    for (const id of batch.ids)
      if (batch.outcome === 'failed') why.set(id, batch.failure ?? failureFromText(batch.error ?? ''));
      else why.delete(id);
  return why;
}

/** Why a failed call sent nothing, in words (empty for a call that did not fail). */
export function batchFailureText(batch: SendBatch): string {
  return batch.outcome === 'failed' ? FAILURE_WORDS[batch.failure ?? failureFromText(batch.error ?? '')] : '';
}

function failureFromText(error: string): FailureKind {
  if (/could not connect to /.test(error)) return 'unreachable';
  if (/hourly quota spent|requests per hour spent|rate limit/.test(error)) return 'rate_limited';
  return 'refused';
}

export function idsIn(states: Map<number, IdState>, wanted: IdState | ReadonlySet<IdState>): number[] {
  const matches = (s: IdState) => (typeof wanted === 'string' ? s === wanted : wanted.has(s));
  return [...states].filter(([, s]) => matches(s)).map(([id]) => id);
}

/** The ids in a message: all of a short list, else the first ten and a count (a message stays short). */
export function listIds(ids: readonly number[], max = 10): string {
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} and ${ids.length - max} more`;
}

/** One call of a kind that makes a single call that is not safe to repeat (a create), in `result.call`. */
export interface CallRecord {
  attempt: number;
  outcome: 'sending' | 'done' | 'failed' | 'unknown';
  started_at: string;
  /** A person's choice after an unknown outcome: call again. */
  decision?: 'resend';
  /** What a check of the service found. */
  checked?: string;
  /** What the service showed just before the call (see JobKind.observe), for a later check. */
  before?: Record<string, unknown>;
}

export function callOf(result: unknown): CallRecord | null {
  if (result === null || typeof result !== 'object') return null;
  const call = (result as { call?: CallRecord } | null)?.call;
  return call && typeof call === 'object' ? call : null;
}

/** Whether the last call's outcome is unknown (in flight when the worker stopped, or its answer lost). */
export function callUnknown(call: CallRecord | null): boolean {
  return call !== null && (call.outcome === 'sending' || call.outcome === 'unknown') && call.decision !== 'resend';
}

/**
 * The commands resolveCommands writes into a message (with what leads to them), for a page that
 * offers them as buttons instead: `…; or decide now: check the service; if it happened, run '…'`.
 */
export const RESOLVE_COMMANDS_TEXT =
  /[;.]?\s*(?:or decide now: )?check the service; if it happened, run 'invoice-mirror jobs retry [^']*'; if it did not, run 'invoice-mirror jobs retry [^']*'/g;

/** The commands that resolve ids (or a call) of unknown outcome, as a job's message gives them. */
export function resolveCommands(jobId: number, ids: readonly number[] | null): string {
  const list = ids === null ? '' : ids.length <= 10 ? ` ${ids.join(',')}` : ' unknown';
  return (
    `check the service; if it happened, run 'invoice-mirror jobs retry ${jobId} --mark-sent${list}'; ` +
    `if it did not, run 'invoice-mirror jobs retry ${jobId} --resend${list}'`
  );
}
