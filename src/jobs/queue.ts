/**
 * The `jobs` table as a queue: queue (validated, with idempotency keys), claim, finish, recover,
 * retry, cancel, list. Statuses: queued → running → succeeded | failed | queued (retry later) |
 * interrupted (outcome unknown, waits for `jobs retry`); queued | interrupted → cancelled.
 */
import { sql, type Kysely } from 'kysely';
import { closeOrphanedRuns, jsonb, type Database, type JobStatus } from '../db/index.js';
import { unstorableValues } from '../api/index.js';
import { JobStateError, PayloadError, PrecheckError } from './errors.js';
import { kindNamed, parseJob, type JobKind, type JobRow } from './kinds.js';
import type { Disposition } from './outcome.js';
import { repeatable } from './policies/repeatable.js';
import type { RetryDecisions } from './types.js';

export { JobStateError } from './errors.js';
export type { RetryDecisions } from './types.js';

export type { JobStatus };
export const JOB_STATUSES: readonly JobStatus[] = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'interrupted',
];

export interface NewJob {
  kind: string;
  payload: unknown;
  /** Queuing again with the same key is a no-op that returns the first job. */
  idempotencyKey?: string | null;
  maxAttempts?: number;
  runAfter?: Date;
  /** Queue it even when the mirror shows it to be impossible (the mirror may be behind the service). */
  force?: boolean;
}

/** A job as its pre-check sees it before it is queued: no attempt, nothing recorded. */
const NOT_YET_RUN = { id: 0, attempts: 0, max_attempts: 1, result: null };

/** The kind's pre-check of a job not queued yet (throws its PrecheckError). */
function precheckNew(db: Kysely<Database>, kind: JobKind, kindName: string, payload: unknown): Promise<void> {
  return kind.precheck?.(db, payload, { ...NOT_YET_RUN, kind: kindName, payload }) ?? Promise.resolve();
}

/**
 * Whether the kind's pre-check accepts the action now (null), or why not (its PrecheckError's
 * message): the one rule, asked by the console before it offers an action on a record.
 */
export async function precheckRefusal(
  db: Kysely<Database>,
  kindName: string,
  payload: unknown,
): Promise<string | null> {
  const kind = kindNamed(kindName);
  if (!kind) return null;
  try {
    await precheckNew(db, kind, kindName, payload);
    return null;
  } catch (error) {
    if (error instanceof PrecheckError) return error.message;
    throw error;
  }
}

/**
 * Validates the payload (PayloadError naming the field) and queues the job. With an idempotency
 * key that is already taken by the same action, returns that job (`created: false`).
 */
export async function addJob(db: Kysely<Database>, job: NewJob): Promise<{ id: number; created: boolean }> {
  const { kind, payload } = parseJob(job.kind, job.payload);
  const unstorable = unstorableValues(job.payload);
  if (unstorable.length > 0) {
    const [first] = unstorable;
    throw new PayloadError(
      `payload.${first!.path}: ${first!.reason.replace(/; stored as .*$/, '')}; remove it from the value`,
    );
  }
  if (
    job.idempotencyKey !== undefined &&
    job.idempotencyKey !== null &&
    unstorableValues(job.idempotencyKey).length > 0
  )
    throw new PayloadError('--key: holds a character Postgres cannot store (NUL or half a surrogate pair)');
  // What the mirror already shows to be impossible is refused now, with the reason the runner would give.
  if (!job.force) await precheckNew(db, kind, job.kind, payload);
  const key = job.idempotencyKey ?? null;
  const inserted = await db
    .insertInto('jobs')
    .values({
      kind: job.kind,
      payload: jsonb(job.payload),
      idempotency_key: key,
      ...(job.maxAttempts !== undefined ? { max_attempts: job.maxAttempts } : {}),
      ...(job.runAfter !== undefined ? { run_after: job.runAfter } : {}),
    })
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: Number(inserted.id), created: true };
  const existing = await db
    .selectFrom('jobs')
    .select(['id', 'kind', sql<boolean>`payload = ${jsonb(job.payload)}`.as('same_payload')])
    .where('idempotency_key', '=', key)
    .executeTakeFirstOrThrow();
  if (existing.kind !== job.kind || !existing.same_payload) {
    throw new JobStateError(
      `idempotency key '${key}' is already used by job ${existing.id} (${existing.kind}) for a different action`,
    );
  }
  return { id: Number(existing.id), created: false };
}

/**
 * Takes the next runnable job (by `run_after`, then `id`) and marks it running. SKIP LOCKED keeps
 * concurrent claimers apart; the runner's advisory lock keeps them from running side by side.
 */
export async function claimNext(db: Kysely<Database>): Promise<JobRow | undefined> {
  const { rows } = await sql<JobRow>`
    update jobs set status = 'running', attempts = attempts + 1, started_at = clock_timestamp(), finished_at = null
    where id = (
      select id from jobs where status = 'queued' and run_after <= now()
      order by run_after, id limit 1 for update skip locked
    )
    returning id, kind, payload, attempts, max_attempts, result`.execute(db);
  const row = rows[0];
  return row ? { ...row, id: Number(row.id) } : undefined;
}

export async function saveProgress(db: Kysely<Database>, id: number, result: unknown): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ result: jsonb(result) })
    .where('id', '=', id)
    .execute();
}

/** Adds keys to `result` (an object), keeping what is there. */
export async function mergeResult(db: Kysely<Database>, id: number, extra: Record<string, unknown>): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      result: sql<string>`coalesce(case when jsonb_typeof(result) = 'object' then result end, '{}'::jsonb) || ${jsonb(extra)}`,
    })
    .where('id', '=', id)
    .execute();
}

export async function markSucceeded(db: Kysely<Database>, id: number, result: unknown): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'succeeded', result: jsonb(result), last_error: null, finished_at: sql`clock_timestamp()` })
    .where('id', '=', id)
    .execute();
}

/** Records a failed attempt as the disposition says; every attempt is appended to `errors`. */
/** `last_error` and each attempt's error are cut to this length: a message is read, not processed. */
const MAX_ERROR_LENGTH = 2000;

export async function markUnsuccessful(db: Kysely<Database>, job: JobRow, disposition: Disposition): Promise<void> {
  if (disposition.message.length > MAX_ERROR_LENGTH)
    disposition = { ...disposition, message: `${disposition.message.slice(0, MAX_ERROR_LENGTH - 1)}…` };
  const entry = {
    attempt: job.attempts,
    outcome: disposition.status === 'queued' ? 'retry' : disposition.status,
    error: disposition.message,
  };
  // `at` by the database's clock, in the ISO form of toISOString().
  const at = sql`to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const errors = sql<string>`errors || jsonb_build_array(${jsonb(entry)}::jsonb || jsonb_build_object('at', ${at}))`;
  const update = db.updateTable('jobs').where('id', '=', job.id).where('status', '=', 'running');
  if (disposition.status === 'queued') {
    await update
      .set({
        status: 'queued',
        run_after: sql<Date>`now() + make_interval(secs => ${disposition.delayMs / 1000})`,
        attempts: disposition.spendsAttempt ? job.attempts : job.attempts - 1,
        last_error: disposition.message,
        errors,
      })
      .execute();
    return;
  }
  await update
    .set({ status: disposition.status, last_error: disposition.message, errors, finished_at: sql`clock_timestamp()` })
    .execute();
}

/**
 * Jobs left `running` by a worker that died. Call only while holding the job lock: then no live
 * worker is running any job, so every `running` row is an orphan. Idempotent kinds go back to
 * the queue (the lost attempt counts); the others become `interrupted`. Returns what it did.
 */
export interface RecoveredJob {
  id: number;
  kind: string;
  status: Disposition['status'];
  message: string;
}

export async function recoverOrphans(db: Kysely<Database>): Promise<RecoveredJob[]> {
  const orphans = await db
    .selectFrom('jobs')
    .select(['id', 'kind', 'payload', 'attempts', 'max_attempts', 'result'])
    .where('status', '=', 'running')
    .execute();
  const recovered: RecoveredJob[] = [];
  for (const row of orphans) {
    const job = { ...row, id: Number(row.id) } as JobRow;
    // A kind this version does not know is repeatable as far as the queue can tell: run it again
    // (its payload check then fails it).
    const policy = kindNamed(job.kind)?.policy ?? repeatable;
    const { result, disposition } = policy.orphan(job);
    if (result !== job.result) await saveProgress(db, job.id, result);
    await markUnsuccessful(db, job, disposition);
    recovered.push({ id: job.id, kind: job.kind, status: disposition.status, message: disposition.message });
  }
  // Under the job lock no live runner is in a job, so a refresh run still open was a dead worker's.
  await closeOrphanedRuns(db, ['refresh'], 'interrupted: the worker stopped before the refresh finished');
  return recovered;
}

/**
 * Queue a job again: a failed, interrupted or cancelled one, or a queued one that waits (run now).
 * For calls of unknown outcome it records the decisions first; a single call marked sent makes
 * the job `succeeded` without running it. What is undecided is checked with the service when the
 * job runs, and never sent blindly. Returns the job's status afterwards.
 */
export async function retryJob(db: Kysely<Database>, id: number, decisions: RetryDecisions = {}): Promise<JobStatus> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('jobs')
      .select(['id', 'kind', 'status', 'payload', 'result'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    const allowed = ['failed', 'interrupted', 'cancelled', 'queued'];
    if (!row || !allowed.includes(row.status))
      throw await stateError(trx, id, 'retried', 'a failed, interrupted, cancelled or queued');
    let result = row.result;
    if (decisions.resend !== undefined || decisions.markSent !== undefined) {
      const policy = kindNamed(row.kind)?.policy ?? repeatable;
      const decided = policy.decide({ id, kind: row.kind, payload: row.payload, result }, decisions);
      result = decided.result;
      if (decided.done) {
        await trx
          .updateTable('jobs')
          .set({ status: 'succeeded', result: jsonb(result), last_error: null, finished_at: sql`clock_timestamp()` })
          .where('id', '=', id)
          .execute();
        return 'succeeded';
      }
    }
    await trx
      .updateTable('jobs')
      .set({
        status: 'queued',
        run_after: sql`now()`,
        attempts: 0,
        last_error: null,
        finished_at: null,
        result: jsonb(result),
      })
      .where('id', '=', id)
      .execute();
    return 'queued';
  });
}

export async function cancelJob(db: Kysely<Database>, id: number): Promise<void> {
  const updated = await db
    .updateTable('jobs')
    .set({ status: 'cancelled', finished_at: sql`clock_timestamp()` })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'interrupted'])
    .returning('id')
    .executeTakeFirst();
  if (!updated) throw await stateError(db, id, 'cancelled', 'a queued or interrupted');
}

/** A job's status as a person says it: "job 3 has succeeded", not "job 3 is succeeded". */
const STATE_WORDS: Record<JobStatus, string> = {
  queued: 'is queued',
  running: 'is running',
  succeeded: 'has succeeded',
  failed: 'has failed',
  cancelled: 'was cancelled',
  interrupted: 'was interrupted',
};

async function stateError(db: Kysely<Database>, id: number, verb: string, allowed: string): Promise<JobStateError> {
  const row = await db.selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirst();
  if (!row) return new JobStateError(`no job ${id}`);
  return new JobStateError(
    `job ${id} ${STATE_WORDS[row.status as JobStatus] ?? `is ${row.status}`}; only ${allowed} job can be ${verb}`,
  );
}

export async function getJob(db: Kysely<Database>, id: number) {
  const row = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new JobStateError(`no job ${id}`);
  return { ...row, id: Number(row.id) };
}

/** The newest jobs, optionally of one status and kind; `offset` pages back. */
export async function listJobs(
  db: Kysely<Database>,
  options: { status?: JobStatus; kind?: string; limit?: number; offset?: number } = {},
) {
  let query = db
    .selectFrom('jobs')
    .select([
      'id',
      'kind',
      'status',
      'attempts',
      'max_attempts',
      'run_after',
      'created_at',
      'finished_at',
      'last_error',
    ])
    .orderBy('id', 'desc')
    .limit(options.limit ?? 50)
    .offset(options.offset ?? 0);
  if (options.status) query = query.where('status', '=', options.status);
  if (options.kind) query = query.where('kind', '=', options.kind);
  return query.execute();
}

/**
 * Milliseconds until the next queued job becomes runnable, by the database's clock (≤ 0: one is
 * runnable now; null: none queued). Asked as a delay, not a time, so this process's clock never enters.
 */
export async function msUntilNextDue(db: Kysely<Database>): Promise<number | null> {
  const { rows } = await sql<{ ms: number | null }>`
    select extract(epoch from min(run_after) - now())::float8 * 1000 as ms
      from jobs where status = 'queued'`.execute(db);
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}

/** How many jobs are in each status (statuses with none are left out). */
export async function hasRunnable(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{
    any: boolean;
  }>`select exists (select 1 from jobs where status = 'queued' and run_after <= now()) as any`.execute(db);
  return rows[0]?.any === true;
}
