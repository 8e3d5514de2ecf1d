/**
 * How one entity's pull stopped reading, as one value: every other question (was it read to its
 * end, is it concluded, does the run go on, is its cursor saved, what its progress and its error
 * say) is answered from it, here.
 */
import { ApiError, AuthenticationError, NetworkError, RateLimitedError } from '../api/index.js';
import { errorMessage, isConnectionLost } from '../errors.js';

export type Stop =
  /** Every list read to its end. */
  | { kind: 'end' }
  /**
   * A resumed pass whose list moved while it was away (see ResumeCheck): a record may have been
   * skipped, so it sweeps nothing; `finished` when its list was then read to its end.
   */
  | { kind: 'shifted'; finished: boolean }
  /** The run's signal (Ctrl-C, SIGTERM), after a page. */
  | { kind: 'interrupted' }
  /** Given way after a page (options.giveWay); its pass goes on at the next pull. */
  | { kind: 'gaveWay'; reason: string; pages: number }
  /** A list that did not end cleanly (paging's warnings say why). */
  | { kind: 'unfinished'; warnings: readonly string[] }
  /** The service refused the account's credentials (401): the run ends, the account is refused. */
  | { kind: 'refused'; error: string }
  /** A database connection was lost: the entity may be pulled again. */
  | { kind: 'connectionLost'; error: string }
  /** Any other failure; `stopRun` when every other entity would fail the same way (see endsRun). */
  | { kind: 'failed'; error: string; stopRun: boolean };

/** The stop of a pull that failed with `error` (of the entity `entity`). */
export function stopOf(entity: string, error: unknown): Stop {
  const text = `${entity}: ${errorMessage(error)}`;
  if (error instanceof AuthenticationError) return { kind: 'refused', error: text };
  if (isConnectionLost(error)) return { kind: 'connectionLost', error: text };
  return { kind: 'failed', error: text, stopRun: endsRun(error) };
}

/** Whether the error is one of the service's own answers (logged without its stack). */
export function isServiceError(error: unknown): boolean {
  return error instanceof ApiError;
}

/** Read to its end: a pull that is concluded (swept, recorded, its cursor dropped). */
export function readToEnd(stop: Stop): boolean {
  return stop.kind === 'end' || (stop.kind === 'shifted' && stop.finished);
}

/** The pull failed: its error, else null. */
export function failureOf(stop: Stop): string | null {
  return stop.kind === 'refused' || stop.kind === 'connectionLost' || stop.kind === 'failed' ? stop.error : null;
}

/** The other entities would stop the same way: the run ends after this one. */
export function stopsRun(stop: Stop): boolean {
  return stop.kind === 'refused' || (stop.kind === 'failed' && stop.stopRun);
}

/** What the entity's progress says at its end. */
export function progressState(stop: Stop, aborted: boolean): 'done' | 'stopped' | 'failed' {
  if (readToEnd(stop)) return 'done';
  return stop.kind === 'interrupted' || stop.kind === 'gaveWay' || aborted ? 'stopped' : 'failed';
}

/** What kept a pull that did not fail from reading to its end, in the entity's error; null when it did. */
export function stopProblem(stop: Stop): string | null {
  switch (stop.kind) {
    case 'gaveWay':
      return `gave way after ${stop.pages} page(s) (${stop.reason}); the pull goes on from there`;
    case 'interrupted':
      return 'stopped before the end of the list';
    case 'shifted':
      return 'the list changed while the pull was away, so a record may have been skipped; nothing is marked deleted until the next complete pass';
    case 'unfinished':
      return `the list did not end cleanly (${stop.warnings.join('; ') || 'incomplete'})`;
    default:
      return null;
  }
}

/** The error that ends the whole run: without a quota, valid credentials or a reachable service, every entity would fail the same way. */
function endsRun(error: unknown): boolean {
  return (
    error instanceof RateLimitedError ||
    error instanceof AuthenticationError ||
    (error instanceof NetworkError && error.transport === 'connect')
  );
}
