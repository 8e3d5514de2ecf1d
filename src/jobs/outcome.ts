/**
 * What happens to a job after an attempt that did not succeed:
 * - refused (bad payload, the mirror's checks, 400, the 403 "client has documents", 404):
 *   `failed` at once, with the service's text, never retried;
 * - retryable (5xx, network): `queued` again with exponential backoff in `run_after`, until
 *   `max_attempts`;
 * - rate limited: `queued` until the pause ends, without spending an attempt;
 * - the account's key refused (401): `queued` without spending an attempt. The key is wrong for
 *   every job of the account, not this one: the runner puts the account in `refused` and stops,
 *   and the job runs once a person resumes the account. For an account without a key of its own
 *   the key was the runner's process's (INVOICING_API_*): only that runner stops, and the job
 *   runs as soon as a process whose key the service accepts takes it;
 * - unknown outcome of a call that is not safe to repeat (a send, a create): `interrupted`, until
 *   a person runs `jobs retry ID`.
 */
import { ApiError, AuthenticationError, RateLimitedError, UnknownOutcomeError } from '../api/index.js';
import { errorMessage } from '../errors.js';
import { JobFailure, PayloadError, PrecheckError, UnresolvedOutcomeError } from './errors.js';
import type { Disposition, JobKind, JobRow } from './types.js';

export interface Backoff {
  /** Delay after the first failed attempt; doubles per attempt. */
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 5_000, maxMs: 15 * 60_000 };

/** Exponential from `baseMs`, capped at `maxMs`, with ±25 % jitter so retries do not bunch up. */
export function backoffDelay(attempt: number, backoff: Backoff): number {
  const exponential = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.75 + Math.random() * 0.5));
}

/** The advice an interrupted job's message ends with (its policy's; a person decides). */
function interruptedAdvice(jobId: number, kind: JobKind | undefined): string {
  return kind ? kind.policy.unknownAdvice(jobId) : '';
}

/**
 * What happens to a job after an attempt that did not succeed (see the module comment).
 * @param callsMade whether this attempt sent any request (decides an unexpected error of a kind
 *   that is not safe to repeat: once a call went out, its outcome is unknown).
 */
export function classifyFailure(
  error: unknown,
  job: JobRow,
  kind: JobKind | undefined,
  callsMade: boolean,
  backoff: Backoff,
  /** Whether the account has a key of its own (else a 401 refused this process's settings). */
  ownKey = true,
): Disposition {
  const message = errorMessage(error);
  if (error instanceof PayloadError || error instanceof PrecheckError) return { status: 'failed', message };
  const root = error instanceof JobFailure ? error.cause : error;
  const idempotent = kind?.policy.repeatable ?? true;

  if (root instanceof UnresolvedOutcomeError) return { status: 'interrupted', message };
  if (root instanceof AuthenticationError) {
    const waits = ownKey
      ? "the account's API key was refused; the job waits for the account to be resumed"
      : 'the service refused the INVOICING_API_USER and INVOICING_API_KEY of the process that ran it; the job waits for a process whose key it accepts';
    return {
      status: 'queued',
      message: `${message}: ${waits} (not counted as an attempt)`,
      delayMs: 0,
      spendsAttempt: false,
    };
  }
  if (root instanceof RateLimitedError) {
    return {
      status: 'queued',
      message: `${message} (waiting, not counted as an attempt)`,
      delayMs: root.retryInMs,
      spendsAttempt: false,
    };
  }
  if (root instanceof UnknownOutcomeError && !idempotent)
    return { status: 'interrupted', message: `${message}${interruptedAdvice(job.id, kind)}` };
  if (root instanceof ApiError && !root.retryable && !(root instanceof UnknownOutcomeError)) {
    return { status: 'failed', message };
  }
  if (!(root instanceof ApiError)) {
    if (!idempotent && callsMade)
      return {
        status: 'interrupted',
        message: `${message}; the outcome of the call is unknown${interruptedAdvice(job.id, kind)}`,
      };
    // A bug or an impossible argument: running it again would fail the same way.
    if (root instanceof TypeError || root instanceof RangeError) return { status: 'failed', message };
  }
  if (job.attempts >= job.max_attempts)
    return { status: 'failed', message: `gave up after ${job.attempts} attempts: ${message}` };
  return { status: 'queued', message, delayMs: backoffDelay(job.attempts, backoff), spendsAttempt: true };
}

/** The 401 behind a failure, if it was one: the service refused the account's key (see the module comment). */
export function refusedKey(error: unknown): AuthenticationError | null {
  const root = error instanceof JobFailure ? error.cause : error;
  return root instanceof AuthenticationError ? root : null;
}
