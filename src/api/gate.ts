/**
 * The one door per account: a p-queue of concurrency 1 (the service forbids concurrent calls),
 * the local requests-per-hour budget, the proactive slow-down as `X-RateLimit-Remaining` nears
 * zero, and the pause after a quota 403.
 *
 * Gates are shared per account (base URL + user) across every client object in the process, so
 * a sync run, the job runner and a refresh never have two requests in flight even when they
 * were handed different `InvoicingClient` instances.
 *
 * Every wait is measured on the monotonic clock (`performance.now()`): a wall clock stepped back
 * by hours would otherwise hold the one slot for as long as the step. Dates appear only in what
 * people read (logs, `pausedUntil`, `RateLimitedError.retryAt`).
 */
import PQueue from 'p-queue';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { RateLimitedError } from './errors.js';

const HOUR_MS = 3_600_000;
/** What a step may overrun its expected time by before the gate counts as stalled (timers, parsing, a busy loop). */
const STALL_MARGIN_MS = 5_000;

const monotonicNow = (): number => performance.now();

/** The wall-clock time of a monotonic instant, for display only. */
function wallTime(monotonic: number): Date {
  return new Date(Math.ceil(Date.now() + (monotonic - monotonicNow())));
}

/** The slot's holder has been in one step for longer than that step should take. */
export interface GateStall {
  operation: string;
  /** What it is doing: 'waiting for the rate-limit pause', 'sending', … */
  step: string;
  forMs: number;
  expectedMs: number;
}

/** What the slot's holder is doing, since when and for how long at most (monotonic ms). */
interface Step {
  operation: string;
  what: string;
  since: number;
  expectedMs: number;
}

/** Why an account's pulls should wait, and until when (see AccountGate.pullsWait). */
export interface PullsWait {
  until: Date;
  /** Its jobs must wait too (the service refuses every call until then). */
  all: boolean;
  why: string;
}

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
  /** Send times within the last hour (for the local budget), oldest first; monotonic ms. */
  private readonly sentAt: number[] = [];
  /** When the quota pause ends (monotonic ms), and that instant on the wall clock as it was set, for display. */
  private pauseEnd = 0;
  private pauseEndWall: Date | null = null;
  /** When the slot was last freed by an answer or failure (monotonic ms). */
  private lastDone = Number.NEGATIVE_INFINITY;
  private step: Step | null = null;
  private remaining: number | null = null;
  private readonly closing = new AbortController();
  refs = 0;

  constructor(readonly options: GateOptions) {}

  get rateLimitRemaining(): number | null {
    return this.remaining;
  }

  /** Requests left this hour: the fewer of the service's `X-RateLimit-Remaining` and the local budget. */
  get budgetLeft(): number {
    const limit = this.options.requestsPerHour;
    const now = monotonicNow();
    return Math.min(
      this.remaining ?? Number.POSITIVE_INFINITY,
      limit > 0 ? this.localLeft(now) : Number.POSITIVE_INFINITY,
    );
  }

  get pausedUntil(): Date | null {
    return this.pauseEnd > monotonicNow() ? this.pauseEndDate() : null;
  }

  /** How long the quota pause still lasts (0: none). */
  get pauseLeftMs(): number {
    return Math.max(0, this.pauseEnd - monotonicNow());
  }

  /** The slot's holder, when it has been in one step longer than expected plus STALL_MARGIN_MS. */
  get stall(): GateStall | null {
    const step = this.step;
    if (!step) return null;
    const forMs = monotonicNow() - step.since;
    if (forMs <= step.expectedMs + STALL_MARGIN_MS) return null;
    return { operation: step.operation, step: step.what, forMs, expectedMs: step.expectedMs };
  }

  /**
   * The holder of the slot starts a step that should take at most `expectedMs` (a wait it
   * computed, a request's deadline, a retry's backoff); `stall` reports it once overrun.
   */
  expect(what: string, expectedMs: number): void {
    if (this.step) this.step = { ...this.step, what, since: monotonicNow(), expectedMs: Math.max(0, expectedMs) };
  }

  /**
   * Whether a pull should wait, with `keep` requests kept for actions, and until when: after a
   * quota 403, until the pause ends (and then nothing else should run either: `all`); with the
   * local budget spent down to `keep`, until half of it is free again (it counts the last hour's
   * requests, so it comes back one by one, and a pull let go at the first free request would give
   * way at once, over and over); with the service's last `X-RateLimit-Remaining` down to `keep`,
   * for the quota pause (`rateLimitPauseMs`: the service does not say when its window resets).
   * Null: pull on.
   */
  pullsWait(keep: number): PullsWait | null {
    const now = monotonicNow();
    if (this.pauseEnd > now) return { until: this.pauseEndDate(), all: true, why: 'its hourly quota was spent (403)' };
    const limit = this.options.requestsPerHour;
    if (limit > 0 && this.localLeft(now) <= keep) {
      const wanted = Math.min(limit, Math.max(keep + 1, Math.ceil(limit / 2)));
      const free = this.budgetFreeFor(wanted, now);
      return {
        until: wallTime(free),
        all: false,
        why: `its hourly budget of ${limit} requests (REQUESTS_PER_HOUR) is spent down to the ${keep} kept for actions, and ${wanted} are free again then`,
      };
    }
    if (this.remaining !== null && this.remaining <= keep)
      return {
        until: wallTime(now + this.options.rateLimitPauseMs),
        all: false,
        why: `the service says only ${Math.max(0, this.remaining)} requests are left this hour (X-RateLimit-Remaining), no more than the ${keep} kept for actions`,
      };
    return null;
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
    if (wait) return this.queue.add(() => this.hold(operation, task), { signal: this.closing.signal });
    const controller = new AbortController();
    this.noWaiters.set(controller, operation);
    const onClose = () => controller.abort(this.closing.signal.reason);
    this.closing.signal.addEventListener('abort', onClose, { once: true });
    try {
      return await this.queue.add(
        () => {
          this.noWaiters.delete(controller);
          return this.hold(operation, task);
        },
        { signal: controller.signal },
      );
    } finally {
      this.noWaiters.delete(controller);
      this.closing.signal.removeEventListener('abort', onClose);
    }
  }

  /** Runs `task` in the slot, known as its holder (see `stall`). */
  private async hold<T>(operation: string, task: () => Promise<T>): Promise<T> {
    this.step = { operation, what: 'starting', since: monotonicNow(), expectedMs: 0 };
    try {
      return await task();
    } finally {
      this.step = null;
    }
  }

  /**
   * Called inside the slot just before each HTTP request: waits out a pause, a spent budget and
   * the slow-down spacing (or, for callers that must not wait, throws on a pause or spent budget;
   * the slow-down spacing is short and is always honoured).
   */
  async beforeSend(operation: string, wait: boolean): Promise<void> {
    for (;;) {
      const now = monotonicNow();
      if (this.pauseEnd > now) {
        if (!wait) throw this.rateLimited(operation, this.pauseEnd, 'paused after the hourly quota was spent');
        this.options.logger.info(
          { operation, until: wallTime(this.pauseEnd).toISOString() },
          'api: waiting for the rate-limit pause to end',
        );
        await this.sleep('waiting for the rate-limit pause', this.pauseEnd - now);
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
          { operation, until: wallTime(budgetFree).toISOString() },
          'api: local hourly budget spent, waiting',
        );
        await this.sleep('waiting for the local hourly budget', budgetFree - now);
        continue;
      }
      const spacing = this.slowDownSpacing();
      const delay = this.lastDone + spacing - now;
      if (delay > 0) {
        this.options.logger.debug(
          { operation, delayMs: delay, remaining: this.remaining },
          'api: slowing down, quota nearly spent',
        );
        await this.sleep('slowing down', delay);
        // A pause can only start from a response, and none can arrive while we hold the slot.
      }
      if (this.options.requestsPerHour > 0) this.sentAt.push(monotonicNow());
      return;
    }
  }

  /** After every answer (or failure): remember the quota header and when the slot became free. */
  noteDone(remaining: number | null | undefined): void {
    this.lastDone = monotonicNow();
    this.expect('reading the answer', 0);
    if (remaining !== undefined && remaining !== null) this.remaining = remaining;
  }

  /** A quota 403 arrived: pause the whole queue. A later, shorter pause never shortens a longer one. */
  pause(operation: string, pauseMs = this.options.rateLimitPauseMs): Date {
    const until = monotonicNow() + pauseMs;
    if (until > this.pauseEnd) {
      this.pauseEnd = until;
      this.pauseEndWall = wallTime(until);
    }
    const retryAt = this.pauseEndDate();
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

  /** `until`: monotonic ms. */
  rateLimited(operation: string, until: number, detail: string): RateLimitedError {
    const retryAt = until === this.pauseEnd ? this.pauseEndDate() : wallTime(until);
    return new RateLimitedError(retryAt, { operation, status: null, detail, retryInMs: until - monotonicNow() });
  }

  /**
   * The pause's end as a Date: the same object every time (callers compare them), made again
   * only when the wall clock has stepped by more than a second since it was made.
   */
  private pauseEndDate(): Date {
    const now = wallTime(this.pauseEnd);
    if (!this.pauseEndWall || Math.abs(now.getTime() - this.pauseEndWall.getTime()) > 1000) this.pauseEndWall = now;
    return this.pauseEndWall;
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
    const now = monotonicNow();
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
    return this.budgetFreeFor(1, now);
  }

  /** When `wanted` requests (at most the budget) fit in the local hourly budget (≤ now: they fit now). */
  private budgetFreeFor(wanted: number, now: number): number {
    const limit = this.options.requestsPerHour;
    if (limit <= 0) return 0;
    const left = this.localLeft(now);
    if (left >= wanted) return 0;
    // The oldest requests leave the window first: once the one `wanted - left` from the start has.
    return this.sentAt[wanted - left - 1]! + HOUR_MS;
  }

  /** Requests the local budget has left this hour (the window's older sends forgotten first). */
  private localLeft(now: number): number {
    while (this.sentAt.length > 0 && this.sentAt[0]! <= now - HOUR_MS) this.sentAt.shift();
    return this.options.requestsPerHour - this.sentAt.length;
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

  private async sleep(what: string, ms: number): Promise<void> {
    this.expect(what, ms);
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
