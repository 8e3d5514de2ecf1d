/**
 * What a job kind is made of, and the policy that carries it out. A kind (kinds.ts) declares its
 * payload, its checks against the mirror and its calls; its policy (policies/) owns everything
 * about running those calls safely: how an attempt runs, what an orphan becomes, what a person may
 * decide about a call of unknown outcome, and which steering actions fit.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type * as z from 'zod';
import type { InvoicingClient } from '../api/index.js';
import type { Database, JobStatus } from '../db/index.js';
import type { RefreshTarget } from '../sync/index.js';
import type { CallRecord } from './ledger.js';
import type { AccountMirror } from './mirror.js';
import type { Settling } from './settle.js';

/** What becomes of a job after an attempt that did not succeed (decided in outcome.ts). */
export type Disposition =
  | { status: 'failed'; message: string }
  | { status: 'interrupted'; message: string }
  /** `delayMs`: `run_after` becomes the database's `now()` plus this (never this process's clock). */
  | { status: 'queued'; message: string; delayMs: number; spendsAttempt: boolean };

/** A claimed job as a handler sees it. */
export interface JobRow {
  id: number;
  kind: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
  /** What earlier attempts recorded (a send's batches), or null. */
  result: unknown;
}

/** A job's context is its account's mirror too: `mirrorRows(ctx, …)` reads the job's account. */
export interface JobContext extends AccountMirror {
  /** The runner's connection (it holds the account's job lock). */
  db: Kysely<Database>;
  /** The account the job belongs to: every row it reads or writes is this account's. */
  accountId: number;
  /** The account's client; fails with RateLimitedError instead of waiting out a quota pause. */
  api: InvoicingClient;
  job: JobRow;
  /** Store partial progress in `result` at once, so it survives a crash. */
  saveProgress(result: unknown): Promise<void>;
  /** How long after a call of unknown outcome a check may conclude that it did not happen (see settle.ts). */
  settleMs: number;
  log: Logger;
}

export interface HandlerOutcome {
  /** What the service answered (new ids, batches sent); the runner adds the refresh summary. */
  result: Record<string, unknown>;
  /** The records to re-read into the mirror. */
  touched: RefreshTarget[];
}

/** What a check of the service established about a single call of unknown outcome. */
export interface Reconciled {
  /**
   * true: it happened (the job is done); false: it did not (call again; only once the call has
   * settled, from positive evidence); null: the service cannot tell (yet).
   */
  happened: boolean | null;
  /** What was checked, in words. */
  checked: string;
  /** When it happened: what to record as the job's result, and the records to re-read. */
  outcome?: HandlerOutcome;
}

export interface JobKind<P = any> {
  payload: z.ZodType<P>;
  /** How its calls are run (see policies/): repeatable, a single recorded call, or a batched send. */
  policy: JobPolicy;
  /**
   * For a single call of unknown outcome: ask the service whether it happened, before it is made
   * again. `happened: false` only when `settle.settled`. Without it (or when it cannot tell) a
   * person decides (`jobs retry --resend/--mark-sent`).
   */
  reconcile?(ctx: JobContext, payload: P, call: CallRecord, settle: Settling): Promise<Reconciled>;
  /**
   * What of the service's state to record with a single call before it goes out (`call.before`),
   * for `reconcile` to compare with afterwards (an invoice's open amount before a payment).
   */
  observe?(ctx: JobContext, payload: P): Promise<Record<string, unknown>>;
  /** One line for `--help` and the README. */
  summary: string;
  /** Throws PrecheckError when the account's mirror shows the action is impossible. */
  precheck?(mirror: AccountMirror, payload: P, job: JobRow): Promise<void>;
  run(ctx: JobContext, payload: P): Promise<HandlerOutcome>;
}

/**
 * What a person decided about calls of unknown outcome (`jobs retry --resend/--mark-sent`): ids of
 * a send, `'unknown'` for all of a send's ids of unknown outcome, or `true` for a single call.
 */
export interface RetryDecisions {
  resend?: number[] | 'unknown' | true;
  markSent?: number[] | 'unknown' | true;
}

/** A job as `jobs retry` sees it. */
export interface StoredJob {
  id: number;
  kind: string;
  payload: unknown;
  result: unknown;
}

/** The steering a person may do to a job: for the CLI's hints and the console's buttons. */
export type JobAction = 'retry' | 'cancel' | 'resend' | 'mark-sent';

export interface JobPolicy {
  /** As `--help`, the docs and the console name it. */
  readonly name: 'repeatable' | 'single recorded call' | 'batched send';
  /** Safe to run again after an attempt whose outcome is unknown (a worker that died mid-call). */
  readonly repeatable: boolean;
  /** Carries out one attempt of the kind. */
  execute(ctx: JobContext, kind: JobKind, payload: unknown): Promise<HandlerOutcome>;
  /** What `result` gains after an attempt that did not succeed (its call's outcome), or null. */
  afterFailure(job: JobRow, disposition: Disposition): Record<string, unknown> | null;
  /** A job a dead worker left running: the `result` to keep and what becomes of the job. */
  orphan(job: JobRow): { result: unknown; disposition: Disposition };
  /** A person's decisions about calls of unknown outcome: the new `result`, and whether the job is done. */
  decide(job: StoredJob, decisions: RetryDecisions): { result: unknown; done: boolean };
  /** The advice an interrupted job's message ends with ('' when the message gives its own). */
  unknownAdvice(jobId: number): string;
  /** The steering that fits a job of this policy in `status`. */
  actions(status: JobStatus, result: unknown): JobAction[];
  /** A send's ids by state, for `jobs show` and the console; null for kinds without ids. */
  idsByState(payload: unknown, result: unknown): [string, number[]][] | null;
}

export const stoppedDuring = (job: JobRow): string => `interrupted: the worker stopped during attempt ${job.attempts}`;
