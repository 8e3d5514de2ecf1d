/**
 * The one door per account: a p-queue of concurrency 1 (the service forbids concurrent calls),
 * the local requests-per-hour budget, the proactive slow-down as `X-RateLimit-Remaining` nears
 * zero, and the pause after a quota 403.
 *
 * Gates are shared per account (base URL + user) across every client object in the process, so
 * a sync run, the job runner and a refresh never have two requests in flight even when they
 * were handed different `InvoicingClient` instances.
 */
import PQueue from 'p-queue';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { RateLimitedError } from './errors.js';

const HOUR_MS = 3_600_000;

export interface GateOptions {
  requestsPerHour: number;
  /** Default pause; each client passes its own setting when it sees the quota 403. */
  rateLimitPauseMs: number;
  slowDownBelow: number;
  logger: Logger;
}

export class AccountGate {
  private readonly queue = new PQueue({ concurrency: 1 });
  /** Callers that must not wait, still queued: aborted with a RateLimitedError when a pause starts. */
  private readonly noWaiters = new Map<AbortController, string>();
  /** Send times within the last hour (for the local budget), oldest first. */
  private readonly sentAt: number[] = [];
  private pauseEnd = 0;
  private lastDone = 0;
  private remaining: number | null = null;
  private readonly closing = new AbortController();
  refs = 0;

  constructor(readonly options: GateOptions) {}

  get rateLimitRemaining(): number | null {
    return this.remaining;
  }

  get pausedUntil(): Date | null {
    return this.pauseEnd > Date.now() ? new Date(this.pauseEnd) : null;
  }

  /** Requests queued or running (for tests and status output). */
  get pending(): number {
    return this.queue.size + this.queue.pending;
  }

  /**
   * Run `task` alone (nothing else of this account is in flight meanwhile). With `wait: false`
   * the call is refused at once with a RateLimitedError while the account is paused or its budget
   * is spent, and also if a pause begins while it is still queued.
   */
  async run<T>(operation: string, wait: boolean, task: () => Promise<T>): Promise<T> {
    if (!wait) this.throwIfBlocked(operation);
    if (wait) return this.queue.add(task, { signal: this.closing.signal });
    const controller = new AbortController();
    this.noWaiters.set(controller, operation);
    const onClose = () => controller.abort(this.closing.signal.reason);
    this.closing.signal.addEventListener('abort', onClose, { once: true });
    try {
      return await this.queue.add(
        () => {
          this.noWaiters.delete(controller);
          return task();
        },
        { signal: controller.signal },
      );
    } finally {
      this.noWaiters.delete(controller);
      this.closing.signal.removeEventListener('abort', onClose);
    }
  }

  /**
   * Called inside the slot just before each HTTP request: waits out a pause, a spent budget and
   * the slow-down spacing (or, for callers that must not wait, throws on a pause or spent budget;
   * the slow-down spacing is short and is always honoured).
   */
  async beforeSend(operation: string, wait: boolean): Promise<void> {
    for (;;) {
      const now = Date.now();
      if (this.pauseEnd > now) {
        if (!wait) throw this.rateLimited(operation, this.pauseEnd, 'paused after the hourly quota was spent');
        this.options.logger.info(
          { operation, until: new Date(this.pauseEnd).toISOString() },
          'api: waiting for the rate-limit pause to end',
        );
        await this.sleep(this.pauseEnd - now);
        continue;
      }
      const budgetFree = this.budgetFreeAt(now);
      if (budgetFree > now) {
        if (!wait)
          throw this.rateLimited(
            operation,
            budgetFree,
            `local budget of ${this.options.requestsPerHour} requests per hour spent`,
          );
        this.options.logger.info(
          { operation, until: new Date(budgetFree).toISOString() },
          'api: local hourly budget spent, waiting',
        );
        await this.sleep(budgetFree - now);
        continue;
      }
      const spacing = this.slowDownSpacing();
      const delay = this.lastDone + spacing - now;
      if (delay > 0) {
        this.options.logger.debug(
          { operation, delayMs: delay, remaining: this.remaining },
          'api: slowing down, quota nearly spent',
        );
        await this.sleep(delay);
        // A pause can only start from a response, and none can arrive while we hold the slot.
      }
      if (this.options.requestsPerHour > 0) this.sentAt.push(Date.now());
      return;
    }
  }

  /** After every answer (or failure): remember the quota header and when the slot became free. */
  noteDone(remaining: number | null | undefined): void {
    this.lastDone = Date.now();
    if (remaining !== undefined && remaining !== null) this.remaining = remaining;
  }

  /** A quota 403 arrived: pause the whole queue. A later, shorter pause never shortens a longer one. */
  pause(operation: string, pauseMs = this.options.rateLimitPauseMs): Date {
    const until = Date.now() + pauseMs;
    if (until > this.pauseEnd) this.pauseEnd = until;
    const retryAt = new Date(this.pauseEnd);
    this.options.logger.warn(
      { operation, until: retryAt.toISOString() },
      'api: hourly quota spent (403, X-RateLimit-Remaining: 0); pausing all requests',
    );
    for (const [controller, queuedOperation] of this.noWaiters) {
      controller.abort(this.rateLimited(queuedOperation, this.pauseEnd, 'paused after the hourly quota was spent'));
    }
    this.noWaiters.clear();
    return retryAt;
  }

  rateLimited(operation: string, until: number, detail: string): RateLimitedError {
    return new RateLimitedError(new Date(until), { operation, status: null, detail });
  }

  /** Stop: queued and sleeping requests fail; the in-flight one finishes or fails on its own. */
  close(): void {
    if (!this.closing.signal.aborted) this.closing.abort(new Error('the API client was closed'));
    this.queue.clear();
  }

  get closedSignal(): AbortSignal {
    return this.closing.signal;
  }

  private throwIfBlocked(operation: string): void {
    const now = Date.now();
    if (this.pauseEnd > now)
      throw this.rateLimited(operation, this.pauseEnd, 'paused after the hourly quota was spent');
    const budgetFree = this.budgetFreeAt(now);
    if (budgetFree > now)
      throw this.rateLimited(
        operation,
        budgetFree,
        `local budget of ${this.options.requestsPerHour} requests per hour spent`,
      );
  }

  /** When the next request fits in the local hourly budget (≤ now: it fits now). */
  private budgetFreeAt(now: number): number {
    const limit = this.options.requestsPerHour;
    if (limit <= 0) return 0;
    while (this.sentAt.length > 0 && this.sentAt[0]! <= now - HOUR_MS) this.sentAt.shift();
    return this.sentAt.length < limit ? 0 : this.sentAt[this.sentAt.length - limit]! + HOUR_MS;
  }

  /**
   * Spacing between requests once fewer than `slowDownBelow` calls are left in the service's
   * window: grows linearly to `rateLimitPauseMs / slowDownBelow` at zero, so the last calls are
   * spread out instead of being spent in one burst (the window's reset time is not published).
   */
  private slowDownSpacing(): number {
    const below = this.options.slowDownBelow;
    if (below <= 0 || this.remaining === null || this.remaining >= below) return 0;
    return (this.options.rateLimitPauseMs * (below - Math.max(0, this.remaining))) / (below * below);
  }

  private async sleep(ms: number): Promise<void> {
    await sleep(Math.max(0, Math.ceil(ms)), undefined, { signal: this.closing.signal });
  }
}

const gates = new Map<string, AccountGate>();

/** The gate of an account, created on first use. The first client's rate settings apply. */
export function acquireGate(account: string, options: GateOptions): AccountGate {
  let gate = gates.get(account);
  if (!gate) {
    gate = new AccountGate(options);
    gates.set(account, gate);
  }
  gate.refs++;
  return gate;
}

export function releaseGate(account: string, gate: AccountGate): void {
  gate.refs--;
  if (gate.refs <= 0 && gates.get(account) === gate) {
    gates.delete(account);
    gate.close();
  }
}
