/**
 * The job runner of one account: takes the account's queued jobs one at a time and carries them
 * out with the account's client (its own rate gate, hourly budget and quota pause). The runners
 * of different accounts run side by side; each account's jobs run one at a time.
 *
 * One job at a time per account across every process on the database: a job runs only while its
 * runner holds the session advisory lock `lockKey(schema, 'jobs', accountId)`, on a connection
 * pinned for the whole job (claim, calls, refresh and finish all run on it). Another runner of
 * the account, in this process or another, queues for the lock (at most LOCK_WAIT_MS per try, so
 * `stop()` stays prompt; Postgres grants waiters in order, so runners take turns); a runner that
 * dies loses its session and so the lock. Holding the lock also proves that no live runner is in
 * the middle of a job of the account, which is when the account's jobs left `running` by a dead
 * worker are recovered. The embedded database is a real server too, so the same holds there.
 *
 * When the service refuses the account's key (401), the runner puts the account in `refused`,
 * leaves the job queued without spending its attempt, and stops (event `refused`): every job of
 * the account would be refused the same way. A runner claims only while its account is active,
 * so a pause or a refusal recorded by any process holds every runner of the account.
 *
 * `start()` runs jobs as they come: woken when a job of the account is queued (wakeups.ts: one
 * LISTEN per process) with a polling backstop that also wakes for jobs waiting out a backoff.
 * `runUntilEmpty()` drains what is runnable now and returns.
 */
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Logger } from 'pino';
import type { InvoicingClient } from '../api/index.js';
import { markRefused, type Account } from '../accounts/store.js';
import type { Config } from '../config.js';
import { lockKey, type Database, type DatabaseHandle } from '../db/index.js';
import { errorMessage } from '../errors.js';
import { logger as defaultLogger } from '../log.js';
import { accountLogger } from '../service-client.js';
import { refreshRecords, type RefreshTarget } from '../sync/index.js';
import { JobFailure } from './errors.js';
import { kindNamed, parseJob, type JobContext, type JobRow } from './kinds.js';
import { DEFAULT_BACKOFF, classifyFailure, refusedKey, type Backoff } from './outcome.js';
import {
  claimNext,
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
  /** The account whose jobs it runs. */
  account: Pick<Account, 'id' | 'name'>;
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
}

/** Emitted as `refused` when the service refused the account's key: the runner has stopped. */
export interface AccountRefused {
  accountId: number;
  account: string;
  /** As recorded in `accounts.state_reason`. */
  reason: string;
}

type Step = 'empty' | 'busy' | JobFinished;

/** SQLSTATE of a lock wait that ran into `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';

/** How long one try waits for the lock while another runner holds it. */
const LOCK_WAIT_MS = 500;
/** Pause between tries while another runner holds the lock and jobs are waiting. */
const BUSY_RETRY_MS = 10;
/** After a database error, the next try: soon, whatever the polling backstop (NOTIFY may be lost meanwhile). */
const TROUBLE_RETRY_MS = 2000;

export class JobRunner extends EventEmitter {
  /** The account whose jobs it runs. */
  readonly account: Pick<Account, 'id' | 'name'>;
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
  private listening: Promise<(() => Promise<void>) | undefined> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private databaseTrouble: { since: Date; error: string } | null = null;
  private refusal: string | null = null;
  /** When the loop last came round (monotonic ms): each pass, each job's end, each sleep armed. */

  constructor(deps: RunnerDeps) {
    super();
    this.account = { id: deps.account.id, name: deps.account.name };
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
   * account holds the lock). `failed` counts failed and interrupted jobs; `refused` is there when
   * the service refused the account's key, which stopped the run.
   */
  async runUntilEmpty(): Promise<{ ran: number; failed: number; refused?: string }> {
    this.stopping = false;
    this.refusal = null;
    let ran = 0;
    let failed = 0;
    while (!this.stopping) {
      const step = await this.track(this.runOne());
      if (step === 'empty') break;
      if (step === 'busy') {
        if (!(await hasRunnable(this.db, this.account.id))) break;
        await sleep(BUSY_RETRY_MS);
        continue;
      }
      ran++;
      if (step.status === 'failed' || step.status === 'interrupted') failed++;
    }
    return this.refusal === null ? { ran, failed } : { ran, failed, refused: this.refusal };
  }

  /** Runs jobs as they come until `stop()`: woken by NOTIFY, with polling as a backstop. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    this.refusal = null;
    this.listening = Promise.resolve(subscribeWakeups(this.database, this.account.id, () => this.wake(), this.log));
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

  private wake(): void {
    if (this.stopping || !this.started) return;
    if (this.loop) {
      this.wakeAgain = true;
      return;
    }
    clearTimeout(this.timer);
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
    if (!this.stopping) this.timer = setTimeout(() => this.wake(), nextMs);
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
      const key = lockKey(this.database.schema, 'jobs', this.account.id);
      if (!(await this.lock(conn, key))) return 'busy';
      try {
        for (const job of await recoverOrphans(conn, this.account.id)) {
          this.log.warn(
            { jobId: job.id, kind: job.kind, status: job.status, error: job.message },
            'recovered a job left running by a worker that stopped',
          );
          this.tell('recovered', job);
        }
        const job = await claimNext(conn, this.account.id);
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
        await sql`select pg_advisory_unlock(${key})`.execute(conn).catch(() => undefined);
      }
    });
  }

  /**
   * Takes the job lock, waiting up to LOCK_WAIT_MS. The wait runs in a transaction only to scope
   * `lock_timeout`; the lock itself is a session lock and outlives the transaction.
   */
  private async lock(conn: Kysely<Database>, key: RawBuilder<bigint>): Promise<boolean> {
    try {
      await conn.transaction().execute(async (trx) => {
        await sql`select set_config('lock_timeout', ${`${LOCK_WAIT_MS}ms`}, true)`.execute(trx);
        await sql`select pg_advisory_lock(${key})`.execute(trx);
      });
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) return false;
      throw error;
    }
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

  private outcomeOf(job: JobRow, status: JobFinished['status'], error?: string): JobFinished {
    const base = { id: job.id, account: this.account.name, kind: job.kind, status, attempt: job.attempts };
    return { ...base, durationMs: 0, ...(error === undefined ? {} : { error }) };
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
    const disposition = classifyFailure(error, job, kind, callsMade, this.backoff);
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
    return this.outcomeOf(job, disposition.status, disposition.message);
  }

  /**
   * The service refused the account's key: the account becomes `refused` (in the database, so
   * every process and the console see it and say what to do) and this runner stops taking jobs.
   * The other accounts' runners go on.
   */
  private async refuse(db: Kysely<Database>, during: string): Promise<void> {
    const reason = await markRefused(db, this.account.id, during);
    this.refusal = reason;
    this.stopping = true;
    this.log.error({ reason }, "the service refused the account's API key; its jobs wait until the account is resumed");
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
