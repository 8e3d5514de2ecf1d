/**
 * The job runner of one account: takes the account's queued jobs one at a time and carries them
 * out with the account's client (its own rate gate, hourly budget and quota pause). The runners
 * of different accounts run side by side; each account's jobs run one at a time.
 *
 * One job at a time per account across every process on the database: a job runs only while its
 * runner holds the account's `jobs` lock (db/locks.ts: a lease of the session that takes it), on a
 * connection pinned for the whole job (claim, calls, refresh and finish all run on it). Another
 * runner of the account, in this process or another, tries for the lock for up to LOCK_WAIT_MS
 * per turn, so `stop()` stays prompt; a runner that dies loses its session and so the lock.
 * Holding the lock also proves that no live runner is in the middle of a job of the account, which
 * is when the account's jobs left `running` by a dead worker are recovered. The embedded database
 * is a real server too, so the same holds there.
 *
 * When the service refuses the account's key (401), the runner leaves the job queued without
 * spending its attempt, and stops (event `refused`): every job of the account would be refused
 * the same way. An account with its own key becomes `refused` (for every process); for one that
 * takes the INVOICING_API_* settings (`default`) the key is this process's, so only this runner
 * stops and nothing is recorded. A runner claims only while its account is active, so a pause or
 * a refusal recorded by any process holds every runner of the account.
 *
 * A job runs only against the service it was queued for (`jobs.service_url`), which must be the
 * one the account is bound to and the runner's client calls (src/accounts/service.ts): a runner
 * whose client calls another service claims nothing, and the account's jobs queued for another
 * service than its binding fail unsent. A first job of an account not bound yet binds it.
 *
 * `start()` runs jobs as they come: woken when a job of the account is queued (wakeups.ts: one
 * LISTEN per process) with a polling backstop that also wakes for jobs waiting out a backoff.
 * `runUntilEmpty()` drains what is runnable now and returns.
 */
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import { failureKind, type FailureKind, type InvoicingClient } from '../api/index.js';
import { bindOrRead, sameService } from '../accounts/service.js';
import { markRefused, refusalReason, type Account } from '../accounts/store.js';
import type { Config } from '../config.js';
import { releaseLease, takeWaiting, type Database, type DatabaseHandle } from '../db/index.js';
import { errorMessage } from '../errors.js';
import { logger as defaultLogger } from '../log.js';
import { accountLogger } from '../service-client.js';
import { refreshRecords, type RefreshTarget } from '../sync/index.js';
import { JobFailure } from './errors.js';
import { kindNamed, parseJob, type JobContext, type JobRow } from './kinds.js';
import { DEFAULT_BACKOFF, classifyFailure, refusedKey, type Backoff } from './outcome.js';
import {
  claimNext,
  failJobsForOtherServices,
  hasRunnable,
  type RecoveredJob,
  markSucceeded,
  markUnsuccessful,
  mergeResult,
  msUntilNextDue,
  recoverOrphans,
  saveProgress,
} from './queue.js';
import { subscribeWakeups } from './wakeups.js';

export interface RunnerDeps {
  database: DatabaseHandle;
  /**
   * The account whose jobs it runs; `ownKey` (a session's), else `api_user` and `api_key` (as in
   * its row), say whether its credentials are its own (left out: they are, and a 401 refuses the
   * account).
   */
  account: Pick<Account, 'id' | 'name'> & Partial<Pick<Account, 'api_user' | 'api_key'>> & { ownKey?: boolean };
  /** The account's client (createApiClient(app, account)). */
  client: InvoicingClient;
  config: Config;
  logger?: Logger;
  /** Retry delays (default: from 5 s, doubling, capped at 15 min). */
  backoff?: Backoff;
}

/** Emitted as `finished` after every attempt, for metrics. */
export interface JobFinished {
  id: number;
  /** The account's name. */
  account: string;
  kind: string;
  /** `queued`: it will be tried again later (after a backoff or a rate-limit pause). */
  status: 'succeeded' | 'failed' | 'queued' | 'interrupted';
  attempt: number;
  durationMs: number;
  error?: string;
  /** What kind of failure an attempt that did not succeed met (the service unreachable, the quota spent, …). */
  failure?: FailureKind;
}

/** Emitted as `refused` when the service refused the account's key: the runner has stopped. */
export interface AccountRefused {
  accountId: number;
  account: string;
  /** As recorded in `accounts.state_reason`. */
  reason: string;
}

/** `elsewhere`: the account is bound to another service than the client calls. */
type Step = 'empty' | 'busy' | 'elsewhere' | JobFinished;

/** How long one turn tries for the lock while another runner holds it. */
const LOCK_WAIT_MS = 500;
/** Pause between tries while another runner holds the lock and jobs are waiting. */
const BUSY_RETRY_MS = 10;
/** After a database error, the next try: soon, whatever the polling backstop (NOTIFY may be lost meanwhile). */
const TROUBLE_RETRY_MS = 2000;

export class JobRunner extends EventEmitter {
  /** The account whose jobs it runs. */
  readonly account: Pick<Account, 'id' | 'name'>;
  /** Whether a 401 refuses the account for every process (its own key), or ends this runner only. */
  private readonly ownKey: boolean;
  /** The service the client calls (its base URL). */
  private readonly apiUrl: string;
  private readonly database: DatabaseHandle;
  private readonly db: Kysely<Database>;
  /** Fails with RateLimitedError instead of waiting out a quota pause: the job waits in the table. */
  private readonly api: InvoicingClient;
  private readonly log: Logger;
  private readonly backoff: Backoff;
  private readonly pollMs: number;
  /** See settle.ts. */
  private readonly settleMs: number;
  private currentId: number | null = null;
  private stopping = false;
  private started = false;
  private loop: Promise<void> | null = null;
  private wakeAgain = false;
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires (monotonic ms), and the earliest due time heard of during a pass. */
  private timerAt = Number.POSITIVE_INFINITY;
  private dueAt = Number.POSITIVE_INFINITY;
  private listening: Promise<(() => Promise<void>) | undefined> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private databaseTrouble: { since: Date; error: string } | null = null;
  private refusal: string | null = null;
  /** The account was found bound to another service (logged once). */
  private saidElsewhere = false;
  /** When the loop last came round (monotonic ms): each pass, each job's end, each sleep armed. */

  constructor(deps: RunnerDeps) {
    super();
    this.account = { id: deps.account.id, name: deps.account.name };
    // Left out (undefined): its own. The table's check keeps api_user and api_key null together.
    this.ownKey = deps.account.ownKey ?? deps.account.api_key !== null;
    this.apiUrl = deps.client.baseUrl;
    this.database = deps.database;
    this.db = deps.database.db;
    this.api = deps.client.withoutWaiting();
    this.log = accountLogger(deps.logger ?? defaultLogger, deps.account).child({ module: 'jobs' });
    this.backoff = deps.backoff ?? DEFAULT_BACKOFF;
    this.pollMs = deps.config.jobs.pollIntervalMs;
    this.settleMs = deps.config.jobs.settleMs;
  }

  /** The id of the job being carried out right now, if any. */
  get current(): number | null {
    return this.currentId;
  }

  /** Why the runner stopped for good: the service refused the account's key (null: it did not). */
  get refused(): string | null {
    return this.refusal;
  }

  /**
   * `finished`: after every attempt. `recovered`: a job a dead worker left running was re-queued,
   * failed or interrupted. `refused`: the service refused the account's key; the runner stopped.
   */
  override on(event: 'finished', listener: (job: JobFinished) => void): this;
  override on(event: 'recovered', listener: (job: RecoveredJob) => void): this;
  override on(event: 'refused', listener: (refused: AccountRefused) => void): this;
  override on(event: string, listener: (...args: any[]) => void): this {
    return super.on(event, listener);
  }

  /**
   * Runs the account's jobs until none is runnable now (waiting while another runner of the
   * account holds the lock); a job whose retry falls due meanwhile is tried again. `ran` counts
   * jobs, not attempts; `failed` those whose last attempt failed them or left them interrupted
   * (each attempt is an event `finished`); `refused` is there when the service refused the
   * account's key, which stopped the run.
   */
  async runUntilEmpty(): Promise<{ ran: number; failed: number; refused?: string }> {
    this.stopping = false;
    this.refusal = null;
    const last = new Map<number, JobFinished>();
    while (!this.stopping) {
      const step = await this.track(this.runOne());
      if (step === 'empty' || step === 'elsewhere') break;
      if (step === 'busy') {
        if (!(await hasRunnable(this.db, this.account.id))) break;
        await sleep(BUSY_RETRY_MS);
        continue;
      }
      last.set(step.id, step);
    }
    const outcomes = [...last.values()];
    const failed = outcomes.filter((job) => job.status === 'failed' || job.status === 'interrupted').length;
    const ran = { ran: outcomes.length, failed };
    return this.refusal === null ? ran : { ...ran, refused: this.refusal };
  }

  /** Runs jobs as they come until `stop()`: woken by NOTIFY, with polling as a backstop. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    this.refusal = null;
    this.listening = Promise.resolve(
      subscribeWakeups(this.database, this.account.id, (dueInMs) => this.wakeWithin(dueInMs), this.log),
    );
    this.wake();
  }

  /** Stops taking work and waits for the job in progress to finish. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    const unlisten = await this.listening;
    this.listening = undefined;
    await unlisten?.().catch(() => undefined);
    this.started = false;
  }

  /**
   * A job of the account is due in `ms` (wakeups.ts): now, or the next look is brought forward to
   * then. A pass under way looks at the queue again when it ends and sleeps no longer than that.
   */
  private wakeWithin(ms: number): void {
    if (ms <= 0) {
      this.wake();
      return;
    }
    const at = performance.now() + ms;
    this.dueAt = Math.min(this.dueAt, at);
    if (this.stopping || !this.started || this.loop || this.timerAt <= at) return;
    this.sleepUntil(at);
  }

  private sleepUntil(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.wake(), Math.max(0, at - performance.now()));
  }

  private wake(): void {
    if (this.stopping || !this.started) return;
    if (this.loop) {
      this.wakeAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.timerAt = Number.POSITIVE_INFINITY;
    this.loop = this.drain().finally(() => {
      this.loop = null;
      if (this.wakeAgain && !this.stopping) {
        this.wakeAgain = false;
        this.wake();
      }
    });
  }

  private async drain(): Promise<void> {
    let nextMs = this.pollMs;
    try {
      while (!this.stopping) {
        this.wakeAgain = false;
        const step = await this.track(this.runOne());
        if (step === 'busy') {
          nextMs = (await hasRunnable(this.db, this.account.id)) ? BUSY_RETRY_MS : this.pollMs;
          break;
        }
        if (step === 'elsewhere') break; // until the next poll: nothing it could run is due sooner
        if (step === 'empty') {
          // Sleep until the next job waiting out a backoff is due, or the polling backstop.
          const dueInMs = await msUntilNextDue(this.db, this.account.id);
          if (dueInMs !== null) nextMs = Math.min(this.pollMs, Math.max(10, dueInMs));
          break;
        }
      }
      if (this.databaseTrouble) this.log.info('job runner: the database answers again');
      this.databaseTrouble = null;
    } catch (error) {
      this.databaseTrouble ??= { since: new Date(), error: errorMessage(error) };
      this.databaseTrouble.error = errorMessage(error);
      this.log.error({ error: errorMessage(error) }, 'job runner: database error; trying again later');
      nextMs = Math.min(this.pollMs, TROUBLE_RETRY_MS);
    }
    const dueAt = this.dueAt;
    this.dueAt = Number.POSITIVE_INFINITY;
    if (!this.stopping) this.sleepUntil(Math.min(dueAt, performance.now() + nextMs));
    // A refused key stopped it for good: let go of the wakeups (stop() waits for this pass to end).
    else if (this.refusal !== null && this.started) void this.stop();
  }

  /** Emits an event; a listener that throws is logged, and never passes for database trouble. */
  private tell(event: 'finished' | 'recovered' | 'refused', payload: unknown): void {
    try {
      this.emit(event, payload);
    } catch (error) {
      this.log.error({ event, error: errorMessage(error) }, 'a listener of the job runner failed');
    }
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    return promise.finally(() => this.inFlight.delete(promise));
  }

  /** Under the account's job lock: recover its orphans, claim its next job, carry it out. */
  private runOne(): Promise<Step> {
    return this.db.connection().execute(async (conn) => {
      if (!(await takeWaiting(conn, this.account.id, 'jobs', LOCK_WAIT_MS))) return 'busy';
      try {
        for (const job of await recoverOrphans(conn, this.account.id)) {
          this.log.warn(
            { jobId: job.id, kind: job.kind, status: job.status, error: job.message },
            'recovered a job left running by a worker that stopped',
          );
          this.tell('recovered', job);
        }
        const service = await this.boundService(conn);
        if (service === null) return 'empty';
        if (service === 'elsewhere') return 'elsewhere';
        const job = await claimNext(conn, this.account.id, service);
        if (!job) return 'empty';
        // The claim above committed durably. What the job writes after it (progress, the
        // mirror refresh, the outcome) may commit without waiting for the WAL flush, which is
        // most of a job's overhead: should the database server crash and lose the last of
        // those writes, the row is back at `running` and is recovered by the rule for a dead
        // worker (run again if idempotent, else interrupted), and the mirror catches up.
        const relaxed = this.database.kind === 'postgres';
        if (relaxed) await sql`select set_config('synchronous_commit', 'off', false)`.execute(conn);
        try {
          return await this.execute(conn, job);
        } finally {
          if (relaxed) await sql`reset synchronous_commit`.execute(conn).catch(() => undefined);
        }
      } finally {
        // A lost connection took the lock with it; the first error is the one to report.
        await releaseLease(conn, this.account.id, 'jobs');
      }
    });
  }

  /**
   * The account's binding (as stored) when it is the service the client calls: an account not
   * bound yet is bound to it once a job waits (null: none does), and the account's queued jobs
   * for another service fail unsent. `elsewhere` when the account is bound to another service
   * (said once per runner): nothing is claimed.
   */
  private async boundService(conn: Kysely<Database>): Promise<string | 'elsewhere' | null> {
    const row = await conn
      .selectFrom('accounts')
      .select('service_url')
      .where('id', '=', this.account.id)
      .executeTakeFirst();
    let bound = row?.service_url ?? null;
    if (bound === null) {
      if (!(await hasRunnable(conn, this.account.id))) return null;
      bound = (await bindOrRead(conn, this.account.id, this.apiUrl)).service;
    }
    if (!sameService(bound, this.apiUrl)) {
      if (!this.saidElsewhere)
        this.log.error(
          { boundTo: bound, client: this.apiUrl },
          'the account is bound to another service than this runner calls; its jobs are not run here',
        );
      this.saidElsewhere = true;
      return 'elsewhere';
    }
    for (const job of await failJobsForOtherServices(conn, this.account.id, bound)) {
      this.log.warn({ jobId: job.id, kind: job.kind, error: job.message }, 'job failed: queued for another service');
      this.tell('finished', this.outcomeOf(job, 'failed', job.message));
    }
    return bound;
  }

  private async execute(db: Kysely<Database>, job: JobRow): Promise<JobFinished> {
    const started = performance.now();
    const requestsBefore = this.api.requestsMade;
    const log = this.log.child({ jobId: job.id, kind: job.kind, attempt: job.attempts });
    const accountId = this.account.id;
    this.currentId = job.id;
    let finished: JobFinished;
    try {
      const { kind, payload } = parseJob(job.kind, job.payload);
      await kind.precheck?.({ db, accountId }, payload, job);
      const ctx: JobContext = {
        db,
        accountId,
        api: this.api,
        job,
        log,
        saveProgress: (result) => saveProgress(db, job.id, result),
        settleMs: this.settleMs,
      };
      const outcome = await kind.policy.execute(ctx, kind, payload);
      const refresh = await this.refresh(db, outcome.touched, log);
      await markSucceeded(db, job.id, { ...outcome.result, refresh });
      finished = this.outcomeOf(job, 'succeeded');
      log.info({ ms: Math.round(performance.now() - started) }, 'job succeeded');
    } catch (error) {
      finished = await this.recordFailure(db, job, error, this.api.requestsMade > requestsBefore, log);
    } finally {
      this.currentId = null;
    }
    finished.durationMs = Math.round(performance.now() - started);
    this.tell('finished', finished);
    return finished;
  }

  private outcomeOf(
    job: Pick<JobRow, 'id' | 'kind' | 'attempts'>,
    status: JobFinished['status'],
    error?: string,
    failure?: FailureKind,
  ): JobFinished {
    const base = { id: job.id, account: this.account.name, kind: job.kind, status, attempt: job.attempts };
    return { ...base, durationMs: 0, ...(error === undefined ? {} : { error }), ...(failure ? { failure } : {}) };
  }

  /** Records an attempt that did not succeed as its disposition says; a refused key also refuses the account. */
  private async recordFailure(
    db: Kysely<Database>,
    job: JobRow,
    error: unknown,
    callsMade: boolean,
    log: Logger,
  ): Promise<JobFinished> {
    const kind = kindNamed(job.kind);
    const disposition = classifyFailure(error, job, kind, callsMade, this.backoff, this.ownKey);
    const recorded = kind?.policy.afterFailure(job, disposition);
    if (recorded) await mergeResult(db, job.id, recorded);
    if (error instanceof JobFailure && error.touched.length > 0) {
      await mergeResult(db, job.id, { refresh: await this.refresh(db, error.touched, log) });
    }
    await markUnsuccessful(db, job, disposition);
    const refused = refusedKey(error);
    if (refused) await this.refuse(db, `job ${job.id} (${job.kind})`);
    const level = disposition.status === 'queued' ? 'info' : 'warn';
    log[level](
      {
        status: disposition.status,
        error: disposition.message,
        ...(disposition.status === 'queued'
          ? { runAfter: new Date(Date.now() + disposition.delayMs).toISOString() }
          : {}),
      },
      `job ${disposition.status === 'queued' ? 'will be retried' : disposition.status}`,
    );
    return this.outcomeOf(job, disposition.status, disposition.message, failureKind(error));
  }

  /**
   * The service refused the account's key: the account becomes `refused` (in the database, so
   * every process and the console see it and say what to do) and this runner stops taking jobs.
   * The other accounts' runners go on.
   */
  private async refuse(db: Kysely<Database>, during: string): Promise<void> {
    const reason = this.ownKey ? await markRefused(db, this.account.id, during) : refusalReason(during);
    this.refusal = reason;
    this.stopping = true;
    if (this.ownKey)
      this.log.error(
        { reason },
        "the service refused the account's API key; its jobs wait until the account is resumed",
      );
    else
      this.log.error(
        { reason },
        "the service refused this process's INVOICING_API_USER and INVOICING_API_KEY; this runner stops, nothing changed for other processes",
      );
    this.tell('refused', { accountId: this.account.id, account: this.account.name, reason } satisfies AccountRefused);
  }

  /**
   * Re-reads the touched records into the account's mirror; a failure here does not fail the job
   * (the next sync catches up). A read refused with 401 is one of the refresh's record errors: the
   * account's next call (a job's or a pull's) refuses the account.
   */
  private async refresh(db: Kysely<Database>, targets: RefreshTarget[], log: Logger): Promise<Record<string, unknown>> {
    if (targets.length === 0) return { skipped: 'nothing to re-read' };
    try {
      const deps = { db, accountId: this.account.id, client: this.api, logger: log };
      const { runId, ...counts } = await refreshRecords(deps, targets);
      return { run_id: runId, ...counts };
    } catch (error) {
      log.warn({ error: errorMessage(error) }, 'refresh after the job failed; the next sync will catch up');
      return { error: errorMessage(error) };
    }
  }
}
