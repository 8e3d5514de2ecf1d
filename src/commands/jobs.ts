/**
 * `jobs add|list|show|retry|cancel|run`: queue and steer outbound actions, or drain the queue.
 * A job belongs to an account: `add` and `run` take `--account` (with one account, it is that
 * one), `list` filters by it; `show`, `retry` and `cancel` go by id, unique across accounts.
 */
import { resolveAccounts } from '../accounts/resolve.js';
import type { Command } from 'commander';
import { servableAccounts } from '../accounts/serve.js';
import { hasStoredCredentials, listAccounts, refusedLine, stateLine, type Account } from '../accounts/store.js';
import { accountsAtOnce, type App } from '../app.js';
import { FAILURE_WORDS, type FailureKind } from '../api/index.js';
import { forEachAccount } from '../accounts/pull.js';
import { RunError, UsageError, errorMessage } from '../errors.js';
import { OUTPUT_FORMATS, formatRows, type OutputFormat } from '../format.js';
import { logger } from '../log.js';
import {
  JOB_STATUSES,
  KIND_NAMES,
  KINDS,
  kindNamed,
  PayloadError,
  PrecheckError,
  addJob,
  createAccountRunner,
  cancelJob,
  getJob,
  listJobs,
  retryJob,
  type JobFinished,
  type AccountRunner,
  type JobStatus,
  type RecoveredJob,
  type RetryDecisions,
} from '../jobs/index.js';
import { choice, collect, positiveInteger, withApp } from './context.js';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`JSON: not valid JSON (${errorMessage(error)})`);
  }
}

/** `--resend` / `--mark-sent`: ids (comma-separated), `unknown`, or no value (a single call). */
function decisionList(option: string) {
  return (value: string | true): number[] | 'unknown' | true => {
    if (value === true) return true;
    if (value.trim() === 'unknown') return 'unknown';
    const parts = value.split(',').map((part) => part.trim());
    if (parts.some((part) => !/^\d+$/.test(part) || Number(part) < 1 || !Number.isSafeInteger(Number(part))))
      throw new UsageError(`${option}: must be ids separated by commas (e.g. 12,13), or unknown, got '${value}'`);
    return parts.map(Number);
  };
}

function kindHelp(): string {
  return ['', 'Kinds:', ...KIND_NAMES.map((name) => `  ${name.padEnd(26)} ${KINDS[name].summary}`)].join('\n');
}

/** A send's ids grouped by state (sent, may have been sent, …), for `jobs show`. */
function sendStates(kind: string, payload: unknown, result: unknown): [string, number[]][] | null {
  return kindNamed(kind)?.policy.idsByState(payload, result) ?? null;
}

export function registerJobsCommands(jobs: Command): void {
  registerAdd(jobs);
  registerList(jobs);
  registerShow(jobs);
  registerRetry(jobs);
  registerCancel(jobs);
  registerRun(jobs);
}

/** `jobs add KIND JSON`: validate and queue. */
function registerAdd(jobs: Command): void {
  jobs
    .command('add')
    .description('validate a job and queue it for an account; prints its id')
    .argument('<kind>', `one of: ${KIND_NAMES.join(', ')}`)
    .argument('<json>', 'the payload, e.g. \'{"ids": [12, 13], "delete": true}\'')
    .option('--account <name>', 'the account the job is for (required when the mirror holds several)')
    .option(
      '--key <idempotency-key>',
      "queuing the same action again with this key (in the same account) does nothing (prints the first job's id)",
    )
    .option(
      '--max-attempts <n>',
      'attempts before the job fails (default: JOB_MAX_ATTEMPTS)',
      positiveInteger('--max-attempts', 1000),
    )
    .option(
      '--force',
      'queue it even when the mirror shows it to be impossible (when the mirror is behind the service)',
    )
    .addHelpText('after', kindHelp())
    .action(
      withApp({}, async (app, kind: string, json: string, options: AddOptions) => {
        const payload = parseJson(json);
        const account = await resolveAccounts(app.database.db, options.account, { one: true });
        try {
          const { id, created } = await addJob(app.database.db, account.id, {
            kind,
            payload,
            idempotencyKey: options.key,
            maxAttempts: options.maxAttempts ?? app.config.jobs.maxAttempts,
            force: options.force,
          });
          if (!created) process.stderr.write(`invoice-mirror: already queued as job ${id} (same idempotency key)\n`);
          if (account.state !== 'active')
            process.stderr.write(`invoice-mirror: job ${id} waits, account ${account.name}: ${stateLine(account)}\n`);
          process.stdout.write(`${id}\n`);
        } catch (error) {
          if (error instanceof PayloadError) throw new UsageError(error.message);
          if (error instanceof PrecheckError)
            throw new RunError(`${error.message}; nothing queued (--force queues it anyway, if the mirror is behind)`);
          throw error;
        }
      }),
    );
}

interface AddOptions {
  account?: string;
  key?: string;
  maxAttempts?: number;
  force?: boolean;
}

/** `jobs list`: the newest jobs. */
function registerList(jobs: Command): void {
  jobs
    .command('list')
    .description('the newest jobs, optionally of one status or of some accounts')
    .option('--account <name>', 'only the jobs of this account (repeatable; default: every account)', collect, [])
    .option('--status <status>', JOB_STATUSES.join(', '), choice('--status', JOB_STATUSES))
    .option('--limit <n>', 'how many (default 50)', positiveInteger('--limit'))
    .option('--format <format>', OUTPUT_FORMATS.join(', '), choice('--format', OUTPUT_FORMATS), 'table')
    .action(
      withApp(
        {},
        async (app, options: { account: string[]; status?: JobStatus; limit?: number; format: OutputFormat }) => {
          const { db } = app.database;
          const { scope } = await resolveAccounts(db, options.account);
          const rows = await listJobs(db, { status: options.status, limit: options.limit, scope });
          // The account column only where there is more than one account to tell apart.
          const several = (await listAccounts(db)).length > 1;
          const columns = [
            'id',
            ...(several ? ['account'] : []),
            'kind',
            'status',
            'attempts',
            'max_attempts',
            'run_after',
            'created_at',
            'finished_at',
            'last_error',
          ];
          process.stdout.write(await formatRows(rows as unknown as Record<string, unknown>[], options.format, columns));
        },
      ),
    );
}

/** `jobs show ID`: everything about one job. */
function registerShow(jobs: Command): void {
  jobs
    .command('show')
    .description('everything about one job: payload, result, every failed attempt')
    .argument('<id>', 'job id', positiveInteger('id'))
    .option('--format <format>', 'text or json', choice('--format', ['text', 'json'] as const), 'text')
    .action(
      withApp({}, async (app, id: number, options: { format: 'text' | 'json' }) => {
        const job = await getJob(app.database.db, id);
        if (options.format === 'json') {
          process.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
          return;
        }
        const lines: string[] = [];
        const states = sendStates(job.kind, job.payload, job.result);
        if (states) lines.push('ids by state:', ...states.map(([state, ids]) => `  ${state}: ${ids.join(', ')}`));
        for (const [key, value] of Object.entries(job)) {
          if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
            lines.push(
              `${key}:`,
              ...JSON.stringify(value, null, 2)
                .split('\n')
                .map((line) => `  ${line}`),
            );
          } else {
            lines.push(`${key}: ${value instanceof Date ? value.toISOString() : value === null ? '' : String(value)}`);
          }
        }
        process.stdout.write(`${lines.join('\n')}\n`);
      }),
    );
}

/** `jobs retry ID`: queue again, with a person's decisions about calls of unknown outcome. */
function registerRetry(jobs: Command): void {
  jobs
    .command('retry')
    .description(
      'queue a failed, interrupted or cancelled job again; what may already have happened is checked with the service first and never repeated blindly',
    )
    .argument('<id>', 'job id', positiveInteger('id'))
    .option(
      '--resend [ids]',
      'after you checked the service: these ids of unknown outcome (comma-separated, or unknown for all; no value for a single call) did not happen, send them again',
      decisionList('--resend'),
    )
    .option(
      '--mark-sent [ids]',
      'after you checked the service: these ids of unknown outcome (or unknown for all; no value for a single call) did happen, do not send them',
      decisionList('--mark-sent'),
    )
    .action(
      withApp({}, async (app, id: number, options: RetryDecisions) => {
        const status = await retryJob(app.database.db, id, { resend: options.resend, markSent: options.markSent });
        process.stdout.write(status === 'succeeded' ? `job ${id} marked succeeded\n` : `job ${id} queued\n`);
      }),
    );
}

/** `jobs cancel ID`. */
function registerCancel(jobs: Command): void {
  jobs
    .command('cancel')
    .description('cancel a queued or interrupted job')
    .argument('<id>', 'job id', positiveInteger('id'))
    .action(
      withApp({}, async (app, id: number) => {
        await cancelJob(app.database.db, id);
        process.stdout.write(`job ${id} cancelled\n`);
      }),
    );
}

/** `jobs run`: drain the queues and exit. */
function registerRun(jobs: Command): void {
  jobs
    .command('run')
    .description(
      "run queued jobs until none is runnable, then exit: one at a time within an account, accounts side by side; exit code 1 if any failed, was interrupted or is left queued to be retried later, or an account's key was refused",
    )
    .option('--account <name>', 'run the jobs of this account (repeatable; default: every active account)', collect, [])
    .action(
      withApp(
        { migrate: 'auto', work: 'jobs', serves: (options: { account: string[] }) => options.account },
        async (app, options: { account: string[] }) => {
          // Checked before any work, so that nothing stops half-way; one that cannot be served is named and skipped.
          const { servable, skipped } = await servableAccounts(app, options.account);
          for (const problem of skipped) process.stderr.write(`invoice-mirror: ${problem.message}; its jobs wait\n`);
          if (servable.length === 0 && skipped.length === 0) {
            process.stderr.write(
              "invoice-mirror: no active account to run jobs for; 'invoice-mirror accounts list' shows them\n",
            );
            return 0;
          }
          const code = await runAccounts(app, servable);
          return skipped.length > 0 ? 1 : code;
        },
      ),
    );
}

/** What a `jobs run` saw, over every account: each job's last attempt, by job id. */
interface RunTally {
  last: Map<number, JobFinished>;
  needsAttention: number;
  refused: string[];
}

/**
 * Runs each account's jobs until none is runnable, accounts side by side: as many at once as the
 * pool has room for the connections each runner holds (its job lock and a request's service
 * lock), the others as those finish. The first Ctrl-C lets the jobs in progress finish and starts
 * no other account; a second one stops at once.
 */
async function runAccounts(app: App, accounts: readonly Account[]): Promise<number> {
  const tally: RunTally = { last: new Map(), needsAttention: 0, refused: [] };
  // Lines name the account only when there are several to tell apart.
  const prefix = accounts.length > 1 ? (account: Account) => `${account.name}: ` : () => '';
  const running = new Set<AccountRunner>();
  let stopping = false;
  const stop = () => {
    stopping = true;
    for (const open of running) void open.runner.stop();
  };
  process.once('SIGINT', stop).once('SIGTERM', stop);
  let results: PromiseSettledResult<void>[];
  try {
    results = await forEachAccount(accounts, accountsAtOnce(app.config, 'jobs', accounts.length), async (account) => {
      if (stopping) return;
      const open = createAccountRunner(app, account, { logger });
      running.add(open);
      try {
        await runOneAccount(open, prefix(account), tally);
      } finally {
        running.delete(open);
        await open.close();
      }
    });
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop);
  }
  const left = reportRun([...tally.last.values()]);
  // One account's failure (its database connection lost, say) stopped only its own run; report it now.
  const failure = results.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  return left > 0 || tally.needsAttention > 0 || tally.refused.length > 0 ? 1 : 0;
}

/**
 * The run's last lines: how many jobs ran (jobs, not attempts: a job retried within the run
 * counts once, with its last outcome), and, on stderr, the jobs it could not finish that are still
 * queued, with why. Returns how many jobs failed, were interrupted or are left queued.
 */
function reportRun(jobs: readonly JobFinished[]): number {
  const count = (status: JobFinished['status']) => jobs.filter((job) => job.status === status).length;
  const queued = jobs.filter((job) => job.status === 'queued');
  const later = queued.length > 0 ? `, ${queued.length} to be retried later` : '';
  process.stdout.write(
    `ran ${jobs.length} job${jobs.length === 1 ? '' : 's'}: ${count('succeeded')} succeeded, ${count('failed')} failed, ${count('interrupted')} interrupted${later}\n`,
  );
  if (queued.length > 0) {
    const reasons = new Map<FailureKind, JobFinished[]>();
    for (const job of queued)
      reasons.set(job.failure ?? 'other', [...(reasons.get(job.failure ?? 'other') ?? []), job]);
    // Each reason once, with its shortest message as the example.
    const why = [...reasons].map(([kind, left]) => {
      const [example] = left.map((job) => job.error ?? 'no message').sort((a, b) => a.length - b.length);
      return `${left.length} because ${FAILURE_WORDS[kind]} (${example}${left.length > 1 ? '; and the like' : ''})`;
    });
    process.stderr.write(
      `invoice-mirror: ${queued.length} job${queued.length === 1 ? '' : 's'} not finished, still queued: ${why.join('; ')}; they run once due, by 'invoice-mirror jobs run' or a daemon\n`,
    );
  }
  return count('failed') + count('interrupted') + queued.length;
}

/** Drains one account's queue, printing each job's outcome (prefixed with the account when several run). */
async function runOneAccount(open: AccountRunner, prefix: string, tally: RunTally): Promise<void> {
  const { runner, account } = open;
  runner.on('finished', (job: JobFinished) => {
    tally.last.set(job.id, job);
    process.stdout.write(`${prefix}job ${job.id} ${job.kind}: ${job.status}${job.error ? ` (${job.error})` : ''}\n`);
  });
  runner.on('recovered', (job: RecoveredJob) => {
    if (job.status !== 'queued') tally.needsAttention++;
    process.stdout.write(
      `${prefix}job ${job.id} ${job.kind}: left running by a worker that stopped; now ${job.status} (${job.message})\n`,
    );
  });
  const { refused } = await runner.runUntilEmpty();
  if (refused === undefined) return;
  tally.refused.push(account.name);
  const line = hasStoredCredentials(account)
    ? stateLine({ ...account, state: 'refused', state_reason: refused })
    : refusedLine(account);
  process.stderr.write(`invoice-mirror: account ${account.name}: ${line}; its jobs wait\n`);
}
