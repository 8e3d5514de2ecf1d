/**
 * Why a job did not succeed, apart from the API client's own errors (`src/api/errors.ts`).
 */
import { RunError } from '../errors.js';
import type { RefreshTarget } from '../sync/index.js';

/** The payload (or the kind) is not what the contract says: the job fails at once, nothing is sent. */
export class PayloadError extends Error {
  override readonly name = 'PayloadError';
}

/** The mirror already shows the action to be impossible: the job fails at once, nothing is sent. */
export class PrecheckError extends Error {
  override readonly name = 'PrecheckError';
}

/**
 * A call that may or may not have taken effect, and the service cannot tell which: the job is
 * `interrupted` and waits for a person's choice; its message gives the commands.
 */
export class UnresolvedOutcomeError extends Error {
  override readonly name = 'UnresolvedOutcomeError';
}

/**
 * A failure after part of the work was done (say, the second of three send calls): the message
 * says what was done; `cause` is the error that stopped it and decides what happens next;
 * `touched` are the records to re-read all the same.
 */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';
  constructor(
    message: string,
    override readonly cause: unknown,
    readonly touched: RefreshTarget[] = [],
  ) {
    super(message, { cause });
  }
}

/** A job could not be queued or steered (unknown id, wrong status, key already used). */
export class JobStateError extends RunError {}
