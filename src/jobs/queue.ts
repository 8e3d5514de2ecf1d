/**
 * The `jobs` table as a queue: queue (validated, with idempotency keys), claim, finish, recover,
 * retry, cancel, list. Statuses: queued → running → succeeded | failed | queued (retry later) |
 * interrupted (outcome unknown, waits for `jobs retry`); queued | interrupted → cancelled.
 *
 * Every job belongs to an account. Queuing, claiming and recovering are per account (a job is
 * checked against its account's mirror, a runner takes its account's jobs, idempotency keys are
 * unique per account); steering is by id, which is unique across accounts.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { closeOrphanedRuns, inScope, jsonb, type AccountScope, type Database, type JobStatus } from '../db/index.js';
import { unstorableValues } from '../api/index.js';
import { JobStateError, PayloadError, PrecheckError } from './errors.js';
import { kindNamed, parseJob, type JobKind, type JobRow } from './kinds.js';
import type { AccountMirror } from './mirror.js';
import type { Disposition } from './types.js';
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
function precheckNew(mirror: AccountMirror, kind: JobKind, kindName: string, payload: unknown): Promise<void> {
  return kind.precheck?.(mirror, payload, { ...NOT_YET_RUN, kind: kindName, payload }) ?? Promise.resolve();
}

/**
 * Whether the kind's pre-check accepts the action now (null), or why not (its PrecheckError's
 * message): the one rule, asked by the console before it offers an action on a record.
 */
export async function precheckRefusal(
  db: Kysely<Database>,
  accountId: number,
  kindName: string,
  payload: unknown,
): Promise<string | null> {
  const kind = kindNamed(kindName);
  if (!kind) return null;
  try {
    await precheckNew({ db, accountId }, kind, kindName, payload);
    return null;
  } catch (error) {
    if (error instanceof PrecheckError) return error.message;
    throw error;
  }
}

/**
 * Validates the payload (PayloadError naming the field) and queues the job for the account,
 * checked against the account's mirror. With an idempotency key the account already used for the
 * same action, returns that job (`created: false`); another account's key is another key.
 */
export async function addJob(
  db: Kysely<Database>,
  accountId: number,
  job: NewJob,
): Promise<{ id: number; created: boolean }> {
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
  await requireQueueable(db, accountId);
  // What the mirror already shows to be impossible is refused now, with the reason the runner would give.
  if (!job.force) await precheckNew({ db, accountId }, kind, job.kind, payload);
  const key = job.idempotencyKey ?? null;
  const inserted = await db
    .insertInto('jobs')
    .values({
      account_id: accountId,
      kind: job.kind,
      payload: jsonb(job.payload),
      idempotency_key: key,
      ...(job.maxAttempts !== undefined ? { max_attempts: job.maxAttempts } : {}),
      ...(job.runAfter !== undefined ? { run_after: job.runAfter } : {}),
    })
    .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: Number(inserted.id), created: true };
  const existing = await db
    .selectFrom('jobs')
    .select(['id', 'kind', sql<boolean>`payload = ${jsonb(job.payload)}`.as('same_payload')])
    .where('account_id', '=', accountId)
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
 * An account's jobs wait while the account is not active (paused by a person, its key refused by
 * the service): a runner of it, in any process, claims nothing and sleeps until its next poll.
 */
function accountActive(accountId: number): RawBuilder<boolean> {
  return sql<boolean>`exists (select from accounts a where a.id = ${accountId} and a.state = 'active')`;
}

/**
 * Takes the account's next runnable job (by `run_after`, then `id`) and marks it running. SKIP
 * LOCKED keeps concurrent claimers apart; the runner's job lock keeps them from running side
 * by side. Only a job for `service` (the account's binding, as stored, which the runner's client
 * calls) is taken, and only while the account is still bound to it; a job queued before the
 * account was bound takes that service now.
 */
export async function claimNext(db: Kysely<Database>, accountId: number, service: string): Promise<JobRow | undefined> {
  const { rows } = await sql<JobRow>`
    update jobs set status = 'running', attempts = attempts + 1, started_at = clock_timestamp(), finished_at = null,
                    service_url = ${service}
    where account_id = ${accountId} and id = (
      select id from jobs
       where account_id = ${accountId} and status = 'queued' and run_after <= now() and ${accountActive(accountId)}
         and coalesce(service_url, ${service}) = ${service}
         and exists (select from accounts a where a.id = ${accountId} and a.service_url = ${service})
       order by run_after, id limit 1 for update skip locked
    )
    returning id, kind, payload, attempts, max_attempts, result`.execute(db);
  const row = rows[0];
  return row ? { ...row, id: Number(row.id) } : undefined;
}

/** A queued job failed because it was queued for another service than its account's now. */
export interface ForeignJob {
  id: number;
  kind: string;
  attempts: number;
  message: string;
}

/**
 * Fails the account's queued jobs that were queued for another service than `service`, the one
 * the account is bound to now (`accounts rebind` moved it, or a row inserted by SQL named another):
 * their ids are the other service's, so they are never sent here. Returns them.
 */
export async function failJobsForOtherServices(
  db: Kysely<Database>,
  accountId: number,
  service: string,
): Promise<ForeignJob[]> {
  const message = sql<string>`'queued for the service at ' || service_url || ', but its account is bound to '
    || ${service} || ' now; nothing was sent: queue it again if it applies there'`;
  const at = sql`to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const { rows } = await sql<ForeignJob>`
    update jobs set status = 'failed', last_error = ${message}, finished_at = clock_timestamp(),
                    errors = errors || jsonb_build_array(jsonb_build_object('attempt', attempts, 'outcome', 'failed', 'error', ${message}, 'at', ${at}))
     where account_id = ${accountId} and status = 'queued' and service_url is not null and service_url <> ${service}
    returning id, kind, attempts, last_error as message`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
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
 * The account's jobs left `running` by a worker that died. Call only while holding the account's
 * job lock: then no live worker is running a job of the account, so every `running` row of it is
 * an orphan. Idempotent kinds go back to the queue (the lost attempt counts); the others become
 * `interrupted`. Returns what it did.
 */
export interface RecoveredJob {
  id: number;
  kind: string;
  status: Disposition['status'];
  message: string;
}

export async function recoverOrphans(db: Kysely<Database>, accountId: number): Promise<RecoveredJob[]> {
  const orphans = await db
    .selectFrom('jobs')
    .select(['id', 'kind', 'payload', 'attempts', 'max_attempts', 'result'])
    .where('account_id', '=', accountId)
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
  // Under the account's job lock no live runner is in a job of it, so a refresh run of the
  // account still open was a dead worker's.
  await closeOrphanedRuns(db, accountId, ['refresh'], 'interrupted: the worker stopped before the refresh finished');
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

/** A job by its id (unique across accounts), with its account's name (`account`). */
export async function getJob(db: Kysely<Database>, id: number) {
  const row = await db
    .selectFrom('jobs')
    .innerJoin('accounts', 'accounts.id', 'jobs.account_id')
    .selectAll('jobs')
    .select('accounts.name as account')
    .where('jobs.id', '=', id)
    .executeTakeFirst();
  if (!row) throw new JobStateError(`no job ${id}`);
  return { ...row, id: Number(row.id) };
}

/**
 * The newest jobs of the accounts in scope (default: all), optionally of one status and kind,
 * each with its account's name (`account`); `offset` pages back.
 */
export async function listJobs(
  db: Kysely<Database>,
  options: { status?: JobStatus; kind?: string; limit?: number; offset?: number; scope?: AccountScope } = {},
) {
  let query = db
    .selectFrom('jobs')
    .innerJoin('accounts', 'accounts.id', 'jobs.account_id')
    .select([
      'jobs.id',
      'jobs.account_id',
      'accounts.name as account',
      'jobs.kind',
      'jobs.status',
      'jobs.attempts',
      'jobs.max_attempts',
      'jobs.run_after',
      'jobs.created_at',
      'jobs.finished_at',
      'jobs.last_error',
    ])
    .where(inScope(options.scope ?? 'all', 'jobs.account_id'))
    .orderBy('jobs.id', 'desc')
    .limit(options.limit ?? 50)
    .offset(options.offset ?? 0);
  if (options.status) query = query.where('jobs.status', '=', options.status);
  if (options.kind) query = query.where('jobs.kind', '=', options.kind);
  return query.execute();
}

/**
 * Milliseconds until the account's next queued job becomes runnable, by the database's clock
 * (≤ 0: one is runnable now; null: none queued, or the account is not active). Asked as a delay,
 * not a time, so this process's clock never enters.
 */
export async function msUntilNextDue(db: Kysely<Database>, accountId: number): Promise<number | null> {
  const { rows } = await sql<{ ms: number | null }>`
    select extract(epoch from min(run_after) - now())::float8 * 1000 as ms
      from jobs where account_id = ${accountId} and status = 'queued' and ${accountActive(accountId)}`.execute(db);
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}

/** Whether the account has a job runnable now (false while the account is not active). */
export async function hasRunnable(db: Kysely<Database>, accountId: number): Promise<boolean> {
  const { rows } = await sql<{ any: boolean }>`
    select exists (
      select 1 from jobs
       where account_id = ${accountId} and status = 'queued' and run_after <= now() and ${accountActive(accountId)}
    ) as any`.execute(db);
  return rows[0]?.any === true;
}

/**
 * A job may be queued for an account that exists and is not removed (a paused or refused
 * account's jobs wait for it to be resumed).
 */
async function requireQueueable(db: Kysely<Database>, accountId: number): Promise<void> {
  const account = await db
    .selectFrom('accounts')
    .select(['name', 'state'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) throw new JobStateError(`no account with id ${accountId}`);
  if (account.state === 'removed')
    throw new JobStateError(
      `account ${account.name} is removed (its rows are kept, read-only); no job can be queued for it`,
    );
}
