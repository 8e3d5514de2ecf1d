/**
 * Typed errors of the API client. Every message names the operation (`GET /clients/12: 404 …`),
 * carries the service's own text where it gave one, and never a credential (texts are scrubbed).
 *
 * `retryable` answers "may the same call succeed later without a person looking at it?":
 * true for rate limits, server errors and network failures; false for everything the service
 * refused on purpose, and for `UnknownOutcomeError`, which must never be repeated blindly.
 */
import { scrub } from '../log.js';
import type { RecordProblem } from './schemas.js';

export interface ApiErrorOptions {
  operation: string;
  status?: number | null;
  serviceMessage?: string;
  cause?: unknown;
}

const MAX_SERVICE_TEXT = 500;

/** Service texts are opaque plain text; keep them short, on one line and free of credentials. */
export function cleanServiceText(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return scrub(oneLine.length > MAX_SERVICE_TEXT ? `${oneLine.slice(0, MAX_SERVICE_TEXT)}…` : oneLine);
}

export abstract class ApiError extends Error {
  abstract readonly retryable: boolean;
  /** HTTP status, or null when no answer came back. */
  readonly status: number | null;
  /** e.g. `GET /clients/12` (the path relative to the base URL). */
  readonly operation: string;
  /** The service's own text (plain-text error body), when it gave one. */
  readonly serviceMessage: string | undefined;

  constructor(summary: string, options: ApiErrorOptions) {
    const serviceMessage = options.serviceMessage ? cleanServiceText(options.serviceMessage) : undefined;
    super(
      scrub(`${options.operation}: ${summary}${serviceMessage ? `: ${serviceMessage}` : ''}`),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = new.target.name;
    this.status = options.status ?? null;
    this.operation = options.operation;
    this.serviceMessage = serviceMessage;
  }
}

/** 401: wrong user name or API key. */
export class AuthenticationError extends ApiError {
  readonly retryable = false;
  constructor(options: ApiErrorOptions) {
    super(`${options.status ?? 401} Authentication failed (check the API user and key)`, options);
  }
}

/** 404, or a single read that answered with a list (the service's way of saying "no such id"). */
export class NotFoundError extends ApiError {
  readonly retryable = false;
  constructor(options: ApiErrorOptions & { detail?: string }) {
    super(options.detail ?? `${options.status ?? 404} Not found`, options);
  }
}

/** The hourly quota is spent (403 with `X-RateLimit-Remaining: 0`) or the local budget is used up. */
export class RateLimitedError extends ApiError {
  readonly retryable = true;
  /**
   * How long from when the error was made until the service may be called again, measured on the
   * monotonic clock: what a queued job waits, counted from the database's clock (`retryAt` is
   * for people to read, and moves with this process's wall clock).
   */
  readonly retryInMs: number;
  constructor(
    readonly retryAt: Date,
    options: ApiErrorOptions & { detail?: string; retryInMs?: number },
  ) {
    super(`${options.detail ?? 'rate limit reached'}; retry at ${retryAt.toISOString()}`, options);
    this.retryInMs = Math.max(0, options.retryInMs ?? retryAt.getTime() - Date.now());
  }
}

/** 403 other than the quota, e.g. deleting a client that has documents. */
export class RefusedError extends ApiError {
  readonly retryable = false;
  constructor(options: ApiErrorOptions) {
    super(`${options.status ?? 403} Refused`, options);
  }
}

/** 400/422 (and other 4xx): the service rejected the request's content. */
export class InvalidRequestError extends ApiError {
  readonly retryable = false;
  constructor(options: ApiErrorOptions) {
    super(`${options.status ?? 400} Invalid request`, options);
  }
}

/** 5xx (after retries, for requests safe to repeat), or an answer that was not the expected JSON. */
export class ServerError extends ApiError {
  readonly retryable = true;
  constructor(options: ApiErrorOptions & { detail?: string }) {
    super(options.detail ?? `${options.status ?? 500} Server error`, options);
  }
}

/**
 * How a request failed without a usable answer: `connect` (nothing reached the service: it is
 * unreachable), `timeout` (no complete answer in time), `dropped` (the connection closed early),
 * `truncated` (the answer stopped short of its announced length).
 */
export type Transport = 'connect' | 'timeout' | 'dropped' | 'truncated';

/** Nothing usable came back: could not connect, connection dropped, or the deadline passed (safe requests only). */
export class NetworkError extends ApiError {
  readonly retryable = true;
  readonly transport: Transport;
  constructor(options: ApiErrorOptions & { detail: string; transport?: Transport }) {
    super(options.detail, options);
    this.transport = options.transport ?? 'dropped';
  }
}

/**
 * A request that is not safe to repeat (create, send) may have reached the service, but its
 * answer was lost or was a server error. Whether it took effect is unknown: a person (or a
 * careful look at the mirror) must decide. Never retried by the client.
 */
export class UnknownOutcomeError extends ApiError {
  readonly retryable = false;
  constructor(options: ApiErrorOptions & { detail: string }) {
    super(`outcome unknown: ${options.detail}`, options);
  }
}

/** A single record came back but could not be understood (its problems are listed). */
export class MalformedRecordError extends ApiError {
  readonly retryable = false;
  constructor(
    readonly problems: RecordProblem[],
    options: ApiErrorOptions,
  ) {
    super(`record could not be read: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`, options);
  }
}

/**
 * What kind of failure an error is, as people and summaries name it: the service could not be
 * reached (a DNS failure, a connection refused, a connect timeout: nothing was sent), no complete
 * answer came (a call safe to repeat timed out or was cut off), the hourly quota or budget is
 * spent, the service refused the call or the account's key, it answered with an error, the
 * outcome is unknown, or something else.
 */
export type FailureKind =
  | 'unreachable'
  | 'no_answer'
  | 'rate_limited'
  | 'refused'
  | 'key_refused'
  | 'server_error'
  | 'unknown_outcome'
  | 'other';

/** Each kind as a reason, completing "… because …". */
export const FAILURE_WORDS: Readonly<Record<FailureKind, string>> = {
  unreachable: 'the service could not be reached',
  no_answer: 'no complete answer came from the service',
  rate_limited: 'the hourly quota or budget is spent',
  refused: 'the service refused the call',
  key_refused: "the account's API key was refused",
  server_error: 'the service answered with an error',
  unknown_outcome: 'the outcome of a call is unknown',
  other: 'of an error',
};

/** The kind of an error, or of the API error behind it (a job's failure carries it as its cause). */
export function failureKind(error: unknown): FailureKind {
  let root = error;
  for (let depth = 0; depth < 5 && !(root instanceof ApiError) && root instanceof Error && root.cause; depth++)
    root = root.cause;
  if (root instanceof NetworkError) return root.transport === 'connect' ? 'unreachable' : 'no_answer';
  if (root instanceof RateLimitedError) return 'rate_limited';
  if (root instanceof AuthenticationError) return 'key_refused';
  if (root instanceof UnknownOutcomeError) return 'unknown_outcome';
  if (root instanceof ServerError) return 'server_error';
  if (root instanceof ApiError) return 'refused';
  return 'other';
}
