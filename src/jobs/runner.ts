/**
 * The job runner: takes queued jobs one at a time and carries them out.
 *
 * One job at a time across every process on the database: a job runs only while its runner holds
 * the session advisory lock `lockKey(schema, 'jobs')`, on a connection pinned for the whole job
 * (claim, calls, refresh and finish all run on it). Another runner, in this process or another,
 * queues for the lock (at most LOCK_WAIT_MS per try, so `stop()` stays prompt; Postgres grants
 * waiters in order, so runners take turns); a runner that dies loses its session and so the
 * lock. Holding the lock also proves that no live runner is in the middle of a job, which is
 * when jobs left `running` by a dead worker are recovered. The embedded database is a real
 * server too, so the same holds there.
 *
 * `start()` runs jobs as they come: LISTEN on `<schema>_jobs` (the trigger of 0001 notifies on
 * every queued job) with a polling backstop that also wakes for jobs waiting out a backoff.
 * `runUntilEmpty()` drains what is runnable now and returns.
 */
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Logger } from 'pino';
import type { InvoicingClient } from '../api/index.js';
import type { Config } from '../config.js';
import { lockKey, type Database, type DatabaseHandle } from '../db/index.js';
import { errorMessage } from '../errors.js';
import { logger as defaultLogger } from '../log.js';
import { refreshRecords, type RefreshTarget } from '../sync/index.js';
import { JobFailure } from './errors.js';
import { kindNamed, parseJob, type JobContext, type JobRow } from './kinds.js';
import { DEFAULT_BACKOFF, classifyFailure, type Backoff } from './outcome.js';
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

export interface RunnerDeps {
  database: DatabaseHandle;
  client: InvoicingClient;
  config: Config;
  logger?: Logger;
  /** Retry delays (default: from 5 s, doubling, capped at 15 min). */
  backoff?: Backoff;
}

/** Emitted as `finished` after every attempt, for metrics. */
export interface JobFinished {
  id: number;
  kind: string;
  /** `queued`: it will be tried again later (after a backoff or a rate-limit pause). */
  status: 'succeeded' | 'failed' | 'queued' | 'interrupted';
  attempt: number;
  durationMs: number;
  error?: string;
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
/** The loop comes round at least once per poll interval; this many missed, plus a margin, is a stall. */
const STALL_ROUNDS = 3;
const STALL_MARGIN_MS = 5_000;

export class JobRunner extends EventEmitter {
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
  /** When the loop last came round (monotonic ms): each pass, each job's end, each sleep armed. */
  private lastRound = performance.now();

  constructor(deps: RunnerDeps) {
    super();
    this.database = deps.database;
    this.db = deps.database.db;
    this.api = deps.client.withoutWaiting();
    this.log = (deps.logger ?? defaultLogger).child({ module: 'jobs' });
    this.backoff = deps.backoff ?? DEFAULT_BACKOFF;
    this.pollMs = deps.config.jobs.pollIntervalMs;
    this.settleMs = deps.config.jobs.settleMs;
  }

  /** The id of the job being carried out right now, if any. */
  get current(): number | null {
    return this.currentId;
  }

  /** Null while the runner can work; else since when and why it cannot reach the database. */
  get trouble(): { since: Date; error: string } | null {
    return this.databaseTrouble;
  }

  /**
   * Set while the runner is started, not inside a job, and its loop has not come round for
   * STALL_ROUNDS poll intervals (plus a margin): it is stuck (a query that never returns, a lost
   * timer). A job in progress is not a stall here; its requests show in the gate's own check.
   */
  get stall(): { forMs: number; expectedMs: number } | null {
    if (!this.started || this.stopping || this.currentId !== null) return null;
    const forMs = performance.now() - this.lastRound;
    const expectedMs = STALL_ROUNDS * this.pollMs;
    return forMs > expectedMs + STALL_MARGIN_MS ? { forMs, expectedMs } : null;
  }

  /** `finished`: after every attempt. `recovered`: a job a dead worker left running was re-queued, failed or interrupted. */
  override on(event: 'finished', listener: (job: JobFinished) => void): this;
  override on(event: 'recovered', listener: (job: RecoveredJob) => void): this;
  override on(event: string, listener: (...args: any[]) => void): this {
    return super.on(event, listener);
  }

  /** Runs jobs until none is runnable now (waiting while another runner holds the lock). `failed` counts failed and interrupted jobs. */
  async runUntilEmpty(): Promise<{ ran: number; failed: number }> {
    this.stopping = false;
    let ran = 0;
    let failed = 0;
    while (!this.stopping) {
      const step = await this.track(this.runOne());
      if (step === 'empty') break;
      if (step === 'busy') {
        if (!(await hasRunnable(this.db))) break;
        await sleep(BUSY_RETRY_MS);
        continue;
      }
      ran++;
      if (step.status === 'failed' || step.status === 'interrupted') failed++;
    }
    return { ran, failed };
  }

  /** Runs jobs as they come until `stop()`: woken by NOTIFY, with polling as a backstop. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    this.lastRound = performance.now();
    const channel = `${this.database.schema}_jobs`;
    // Every (re)subscription wakes the runner: jobs may have been queued while it could not hear.
    this.listening = this.database
      .listen(
        channel,
        () => this.wake(),
        () => this.wake(),
      )
      .catch((error: unknown) => {
        this.log.warn({ channel, error: errorMessage(error) }, 'cannot LISTEN for new jobs; polling only');
        return undefined;
      });
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
        this.lastRound = performance.now();
        const step = await this.track(this.runOne());
        if (step === 'busy') {
          nextMs = (await hasRunnable(this.db)) ? BUSY_RETRY_MS : this.pollMs;
          break;
        }
        if (step === 'empty') {
          // Sleep until the next job waiting out a backoff is due, or the polling backstop.
          const dueInMs = await msUntilNextDue(this.db);
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
    this.lastRound = performance.now();
    if (!this.stopping) this.timer = setTimeout(() => this.wake(), nextMs);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    return promise.finally(() => this.inFlight.delete(promise));
  }

  /** Under the job lock: recover orphans, claim the next job, carry it out. */
  private runOne(): Promise<Step> {
    return this.db.connection().execute(async (conn) => {
      const key = lockKey(this.database.schema, 'jobs');
      if (!(await this.lock(conn, key))) return 'busy';
      try {
        for (const job of await recoverOrphans(conn)) {
          this.log.warn(
            { jobId: job.id, kind: job.kind, status: job.status, error: job.message },
            'recovered a job left running by a worker that stopped',
          );
          this.emit('recovered', job);
        }
        const job = await claimNext(conn);
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
    this.currentId = job.id;
    let finished: JobFinished;
    try {
      const { kind, payload } = parseJob(job.kind, job.payload);
      await kind.precheck?.(db, payload, job);
      const ctx: JobContext = {
        db,
        api: this.api,
        job,
        log,
        saveProgress: (result) => saveProgress(db, job.id, result),
        settleMs: this.settleMs,
      };
      const outcome = await kind.policy.execute(ctx, kind, payload);
      const refresh = await this.refresh(db, outcome.touched, log);
      await markSucceeded(db, job.id, { ...outcome.result, refresh });
      finished = { id: job.id, kind: job.kind, status: 'succeeded', attempt: job.attempts, durationMs: 0 };
      log.info({ ms: Math.round(performance.now() - started) }, 'job succeeded');
    } catch (error) {
      const kind = kindNamed(job.kind);
      const disposition = classifyFailure(error, job, kind, this.api.requestsMade > requestsBefore, this.backoff);
      const recorded = kind?.policy.afterFailure(job, disposition);
      if (recorded) await mergeResult(db, job.id, recorded);
      if (error instanceof JobFailure && error.touched.length > 0) {
        await mergeResult(db, job.id, { refresh: await this.refresh(db, error.touched, log) });
      }
      await markUnsuccessful(db, job, disposition);
      finished = {
        id: job.id,
        kind: job.kind,
        status: disposition.status,
        attempt: job.attempts,
        durationMs: 0,
        error: disposition.message,
      };
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
    } finally {
      this.currentId = null;
      this.lastRound = performance.now();
    }
    finished.durationMs = Math.round(performance.now() - started);
    this.emit('finished', finished);
    return finished;
  }

  /** Re-reads the touched records into the mirror; a failure here does not fail the job (the next sync catches up). */
  private async refresh(db: Kysely<Database>, targets: RefreshTarget[], log: Logger): Promise<Record<string, unknown>> {
    if (targets.length === 0) return { skipped: 'nothing to re-read' };
    try {
      const outcome = await refreshRecords({ db, client: this.api, logger: log }, targets);
      const { runId, ...counts } = outcome;
      return { run_id: runId, ...counts };
    } catch (error) {
      log.warn({ error: errorMessage(error) }, 'refresh after the job failed; the next sync will catch up');
      return { error: errorMessage(error) };
    }
  }
}
