/**
 * Transport: undici with keep-alive, Basic auth, a deadline per request, retries with
 * exponential backoff and jitter for requests that are safe to repeat, and the translation of
 * every answer or failure into a typed error. Every request passes through the account's gate
 * (one in flight, budget, slow-down, quota pause).
 */
import { Pool } from './undici-pool.js';
import { subscribe } from 'node:diagnostics_channel';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { registerSecret } from '../log.js';
import {
  type ApiError,
  AuthenticationError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  RefusedError,
  ServerError,
  UnknownOutcomeError,
  type Transport,
} from './errors.js';
import { acquireGate, releaseGate, type AccountGate } from './gate.js';
import { errorBodyText, unreadableJson, withoutBom } from './answer-text.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface HttpOptions {
  baseUrl: string;
  user: string;
  apiKey: string;
  requestsPerHour: number;
  timeoutMs: number;
  rateLimitPauseMs: number;
  slowDownBelow: number;
  maxRetries: number;
  retryBaseMs: number;
  /**
   * Wraps every attempt on the wire, e.g. to hold a lock that other processes on the same
   * account honour (the gate keeps one request in flight only within this process).
   */
  exclusive?: <T>(attempt: () => Promise<T>) => Promise<T>;
  /** The longest deadline any request of this account may have (a send of 10 invoices): how long another process may hold the service lock. */
  longestRequestMs?: number;
  /** Told of every attempt's outcome (for metrics): the endpoint without ids, and the status. */
  onAttempt?: (attempt: AttemptOutcome) => void;
  logger: Logger;
}

export interface AttemptOutcome {
  method: Method;
  /** The path without its query and with ids as `{id}`: `/clients/{id}`, `/invoices_saved`. */
  endpoint: string;
  /** The HTTP status, or how the attempt failed without one (timeout, dropped, …). */
  status: string;
}

/** `/clients/12?x=1` → `/clients/{id}`: an endpoint label that does not grow with the data. */
export function endpointOf(path: string): string {
  const [first, ...rest] = path.split('?')[0]!.split('/').filter(Boolean);
  return `/${first ?? ''}${rest.map(() => '/{id}').join('')}`;
}

export interface RequestSpec {
  method: Method;
  /** Path below the base URL, segments already percent-encoded, with query string if any. */
  path: string;
  body?: unknown;
  /** Safe to repeat (GET, PUT of fields, DELETE): retried on 5xx, timeouts, drops, malformed JSON. */
  idempotent: boolean;
  /** Parse the answer as JSON (a malformed body of a safe request is retried). */
  json?: boolean;
  /** Keep the answer's bytes as they came (a PDF), in `HttpAnswer.body`. */
  binary?: boolean;
  /**
   * How to parse a JSON answer from its bytes, when not with plain JSON.parse of its text (a list
   * keeps each record's bytes, and decodes only what it parses). It drops a byte order mark itself.
   */
  parse?: (body: Buffer) => unknown;
  /** Overrides the deadline of one attempt. */
  deadlineMs?: number;
  /** false: refuse at once with RateLimitedError instead of waiting for a quota pause or budget. */
  wait?: boolean;
  /** Called when the request has been written to the socket (see `whenWritten`). */
  onWritten?: () => void;
}

export interface HttpAnswer {
  status: number;
  text: string;
  json?: unknown;
  /** The bytes of a `binary` request, and their content type. */
  body?: Buffer;
  contentType?: string;
}

/**
 * undici writes a request on a reused keep-alive socket only after a turn or two of the event
 * loop (it first checks that the server has not closed the socket), so a caller that starts a
 * request and then computes for a while delays the request by that long. A caller that wants
 * the request on its way first waits for `onWritten`, which undici's documented diagnostics
 * channel `undici:client:sendHeaders` tells. Keyed by origin and path: one request in flight
 * per account, and a callback fired for another one only costs a little overlap.
 */
const onWrittenByTarget = new Map<string, () => void>();
subscribe('undici:client:sendHeaders', (message) => {
  const { request } = message as { request: { origin?: unknown; path?: unknown } };
  const target = `${String(request.origin)}${String(request.path)}`;
  const onWritten = onWrittenByTarget.get(target);
  if (!onWritten) return;
  onWrittenByTarget.delete(target);
  onWritten();
});

const MAX_BACKOFF_MS = 30_000;
const HOUR_MS = 3_600_000;
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** How a request failed without an answer: see NetworkError.transport. */
type TransportFailure = { kind: Transport; detail: string; cause: unknown };
type Answer = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
  raw: Buffer;
};

export class HttpCore {
  readonly gate: AccountGate;
  requestsMade = 0;
  private readonly pool: Pool;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly authorization: string;
  private readonly account: string;
  private closed = false;

  constructor(readonly options: HttpOptions) {
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    const token = Buffer.from(`${options.user}:${options.apiKey}`).toString('base64');
    this.authorization = `Basic ${token}`;
    registerSecret(options.apiKey);
    registerSecret(token);
    registerSecret(this.authorization);
    this.pool = new Pool(url.origin, {
      connections: 1, // one request in flight per account anyway
      pipelining: 1,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      connect: { timeout: Math.min(options.timeoutMs, 10_000) },
    });
    this.account = `${url.origin}${this.basePath}#${options.user}`;
    this.gate = acquireGate(this.account, {
      requestsPerHour: options.requestsPerHour,
      rateLimitPauseMs: options.rateLimitPauseMs,
      slowDownBelow: options.slowDownBelow,
      logger: options.logger,
    });
  }

  /** Send one logical request through the gate, with retries where safe. */
  request(spec: RequestSpec): Promise<HttpAnswer> {
    if (this.closed)
      return Promise.reject(new NetworkError({ operation: operationOf(spec), detail: 'the API client is closed' }));
    const operation = operationOf(spec);
    const wait = spec.wait ?? true;
    return this.gate.run(operation, wait, () => this.attempts(spec, operation, wait));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    releaseGate(this.account, this.gate);
    await this.pool.close();
  }

  private async attempts(spec: RequestSpec, operation: string, wait: boolean): Promise<HttpAnswer> {
    const log = this.options.logger;
    let failures = 0;
    const tries: Tries = { uncertain: false, quotaRefusals: 0 };
    for (;;) {
      await this.gate.beforeSend(operation, wait);
      const verdict = await this.attempt(spec, operation, wait, tries);
      if ('answer' in verdict) return verdict.answer;
      if (!verdict.retry) continue; // a quota pause: no failure
      if (failures >= this.options.maxRetries) throw verdict.retry;
      const delay = backoff(this.options.retryBaseMs, failures++);
      log.warn({ operation, attempt: failures, delayMs: delay, reason: verdict.retry.message }, 'api: retrying');
      this.gate.expect('waiting to retry', delay);
      await sleep(delay, undefined, { signal: this.gate.closedSignal });
    }
  }

  /** One attempt and what comes of it: the answer, a failure to retry, or a quota pause (throws what is final). */
  private async attempt(spec: RequestSpec, operation: string, wait: boolean, tries: Tries): Promise<Verdict> {
    const started = performance.now();
    this.requestsMade++;
    const outcome = await this.sendExclusive(spec);
    this.options.onAttempt?.({
      method: spec.method,
      endpoint: endpointOf(spec.path),
      status: 'kind' in outcome ? outcome.kind : String(outcome.status),
    });
    const ms = () => Math.round(performance.now() - started);
    if (!('kind' in outcome)) return this.answered(outcome, spec, { operation, wait, ms }, tries);
    this.gate.noteDone(null);
    const { kind, detail, cause } = outcome;
    this.options.logger.debug({ operation, kind, detail, ms: ms() }, 'api: request failed');
    if (kind !== 'connect' && !spec.idempotent) {
      throw new UnknownOutcomeError({
        operation,
        detail: `${detail}; the request may have reached the service`,
        cause,
      });
    }
    if (kind !== 'connect') tries.uncertain = true;
    return { retry: new NetworkError({ operation, detail, cause, transport: kind }) };
  }

  /** An answer with a status: its body when it succeeded, else what its status means. */
  private answered(
    { status, headers, bytes, raw }: Answer,
    spec: RequestSpec,
    { operation, wait, ms }: { operation: string; wait: boolean; ms: () => number },
    tries: Tries,
  ): Verdict {
    // Decoded when read: a list answer parsed from its bytes never is.
    let decoded: string | undefined;
    const text = () => (decoded ??= raw.toString('utf8'));
    const contentType = headerText(headers['content-type']);
    const remaining = parseRemaining(headers['x-ratelimit-remaining']);
    this.gate.noteDone(remaining);
    this.options.logger.debug({ operation, status, remaining, ms: ms() }, 'api: request');
    if (status >= 200 && status < 300) {
      if (spec.binary) return { answer: { status, text: '', body: raw, contentType } };
      const body = () => withoutBom(text());
      if (!spec.json) return { answer: { status, text: body() } };
      try {
        if (spec.parse) return { answer: { status, text: '', json: spec.parse(raw) } };
        return { answer: { status, text: body(), json: JSON.parse(body()) } };
      } catch (cause) {
        const detail = unreadableJson(status, contentType, body(), bytes, cause);
        if (!spec.idempotent) throw new UnknownOutcomeError({ operation, status, detail, cause });
        return { retry: new ServerError({ operation, status, detail, cause }) };
      }
    }
    if ((status === 403 && remaining === 0) || status === 429) return this.quotaRefused(operation, status, wait, tries);
    if (status === 404 && tries.uncertain && spec.method === 'DELETE') return { answer: { status, text: text() } };
    const serviceMessage = errorBodyText(contentType, text());
    if (status >= 500 && spec.idempotent) {
      tries.uncertain = true;
      return { retry: new ServerError({ operation, status, serviceMessage }) };
    }
    throw refusalOf(status, operation, serviceMessage);
  }

  /**
   * Refused for quota: nothing was done, so even a send may be repeated after the pause. Refused
   * again right after a pause: the window has not reset yet, so each further pause doubles.
   */
  private quotaRefused(operation: string, status: number, wait: boolean, tries: Tries): Verdict {
    const base = Math.max(this.options.rateLimitPauseMs, this.options.retryBaseMs);
    const pauseMs =
      tries.quotaRefusals === 0 ? base : Math.min(Math.max(HOUR_MS, base), base * 2 ** tries.quotaRefusals);
    tries.quotaRefusals++;
    const retryAt = this.gate.pause(operation, pauseMs);
    if (!wait)
      throw new RateLimitedError(retryAt, {
        operation,
        status,
        retryInMs: this.gate.pauseLeftMs,
        detail: `${status} hourly quota spent (X-RateLimit-Remaining: 0)`,
      });
    return { retry: null };
  }

  /**
   * One attempt, under the service lock when there is one, telling the gate how long each part
   * should take: our own request its deadline (and the grace of an answer that has begun), the
   * lock as long as the longest request another process may be making (a send of 10 invoices).
   */
  private sendExclusive(spec: RequestSpec): Promise<Answer | TransportFailure> {
    const deadlineMs = spec.deadlineMs ?? this.options.timeoutMs;
    const sendNow = () => {
      this.gate.expect('sending', deadlineMs + ANSWER_GRACE_MS);
      return this.send(spec, deadlineMs);
    };
    if (!this.options.exclusive) return sendNow();
    const longest = Math.max(deadlineMs, this.options.longestRequestMs ?? 0) + ANSWER_GRACE_MS;
    this.gate.expect('waiting for the service lock (another process holds it)', longest);
    return this.options.exclusive(sendNow);
  }

  private async send(spec: RequestSpec, deadline: number): Promise<Answer | TransportFailure> {
    const controller = new AbortController();
    const answer = { started: false };
    const timer = answerDeadline(controller, deadline, answer);
    const target = `${this.origin}${this.basePath}${spec.path}`;
    const headers: Record<string, string> = {
      authorization: this.authorization,
      accept: 'application/json',
      'user-agent': 'invoice-mirror',
    };
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }
    try {
      if (spec.onWritten) onWrittenByTarget.set(target, spec.onWritten);
      const res = await this.pool.request({
        path: this.basePath + spec.path,
        method: spec.method,
        headers,
        body,
        signal: controller.signal,
        // Our own deadline alone rules: undici's timers would fire after a pause of the process
        // (SIGSTOP, a suspended VM) before the answer waiting in the socket is read.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      answer.started = true;
      // Read by hand to count what arrived: a body cut short is told apart from one that is not JSON.
      const chunks: Buffer[] = [];
      let bytes = 0;
      try {
        for await (const chunk of res.body) {
          chunks.push(chunk as Buffer);
          bytes += (chunk as Buffer).length;
        }
      } catch (cause) {
        const expected = Number(headerText(res.headers['content-length']));
        if (!controller.signal.aborted && Number.isFinite(expected) && expected > bytes) {
          const detail = `the answer (${res.statusCode}) was cut short: ${bytes} of ${expected} bytes arrived`;
          return { kind: 'truncated', detail, cause };
        }
        throw cause;
      }
      const raw = Buffer.concat(chunks, bytes);
      return { status: res.statusCode, headers: res.headers, bytes, raw };
    } catch (cause) {
      if (controller.signal.aborted)
        return { kind: 'timeout', detail: `no complete answer within ${deadline} ms`, cause };
      const code = (cause as { code?: string }).code ?? '';
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
        return { kind: 'timeout', detail: `no complete answer within ${deadline} ms`, cause };
      if (CONNECT_CODES.has(code))
        return { kind: 'connect', detail: `could not connect to ${this.origin} (${code})`, cause };
      return { kind: 'dropped', detail: `connection dropped (${code || (cause as Error).message})`, cause };
    } finally {
      timer.clear();
      if (onWrittenByTarget.get(target) === spec.onWritten) onWrittenByTarget.delete(target);
    }
  }
}

/** Extra time an answer that has begun to arrive gets to arrive whole, once its deadline has passed. */
const ANSWER_GRACE_MS = 1_000;

/**
 * Aborts a request at its deadline, but reads what already arrived first: after a pause of the
 * process the deadline's timer can run before the socket's waiting answer is read, and aborting
 * then would turn a finished call (a send, a payment) into one of unknown outcome. setImmediate
 * runs after the event loop's poll phase, which reads the socket; an answer whose start has
 * arrived by then gets ANSWER_GRACE_MS to arrive whole. Timers count on Node's monotonic clock.
 */
function answerDeadline(
  controller: AbortController,
  deadlineMs: number,
  answer: { started: boolean },
): { clear(): void } {
  let graced = false;
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const decide = () => {
    immediate = undefined;
    if (answer.started && !graced) {
      graced = true;
      timer = setTimeout(expire, ANSWER_GRACE_MS);
    } else controller.abort();
  };
  const expire = () => {
    immediate = setImmediate(decide);
  };
  timer = setTimeout(expire, deadlineMs);
  return {
    clear() {
      clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
    },
  };
}

export function operationOf(spec: { method: Method; path: string }): string {
  return `${spec.method} ${spec.path}`;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseRemaining(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return null;
  const n = Number.parseInt(text, 10);
  return Number.isFinite(n) ? n : null;
}

/** Exponential backoff with full-range jitter (0.5×–1.5×), capped. */
function backoff(baseMs: number, failures: number): number {
  return Math.min(MAX_BACKOFF_MS, baseMs * 2 ** failures) * (0.5 + Math.random());
}

/** What the attempts of one request have met so far. */
interface Tries {
  /** A DELETE whose earlier attempt may have landed counts a later 404 as done. */
  uncertain: boolean;
  quotaRefusals: number;
}

/** What one attempt came to: the answer, or a failure to retry (null: a quota pause, no failure). */
type Verdict = { answer: HttpAnswer } | { retry: ApiError | null };

/** The error of an answer refused for good (every status but success, quota and a retried 5xx). */
function refusalOf(status: number, operation: string, serviceMessage: ReturnType<typeof errorBodyText>): ApiError {
  if (status === 401) return new AuthenticationError({ operation, status });
  if (status === 404) return new NotFoundError({ operation, status, serviceMessage });
  if (status === 403) return new RefusedError({ operation, status, serviceMessage });
  if (status >= 400 && status < 500) return new InvalidRequestError({ operation, status, serviceMessage });
  if (status >= 500)
    return new UnknownOutcomeError({
      operation,
      status,
      detail: `${status} server error; the request may have taken effect`,
      serviceMessage,
    });
  return new ServerError({ operation, status, detail: `unexpected status ${status}`, serviceMessage });
}
