/**
 * `jobs add|list|show|retry|cancel|run`: queue and steer outbound actions, or drain the queue.
 * A job belongs to an account: `add` and `run` take `--account` (with one account, it is that
 * one), `list` filters by it; `show`, `retry` and `cancel` go by id, unique across accounts.
 */
import type { Command } from 'commander';
import {
  accountsNamed,
  accountsToServe,
  credentialsOf,
  listAccounts,
  stateLine,
  type Account,
} from '../accounts/store.js';
import { accountsAtOnce, type App } from '../app.js';
import { forEachAccount } from '../accounts/pull.js';
import type { Config } from '../config.js';
import { ConfigError, RunError, UsageError, errorMessage } from '../errors.js';
import { OUTPUT_FORMATS, formatRows, type OutputFormat } from '../format.js';
import { logger } from '../log.js';
import {
  JOB_STATUSES,
  KIND_NAMES,
  KINDS,
  kindNamed,
  PayloadError,
  PrecheckError,
  accountForJob,
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
        const account = await accountForJob(app.database.db, options.account);
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
          const named = options.account.length > 0 ? await accountsNamed(db, options.account) : null;
          const scope = named ? { ids: named.map((account) => account.id) } : ('all' as const);
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
      "run queued jobs until none is runnable, then exit: one at a time within an account, accounts side by side; exit code 1 if any failed or was interrupted, or an account's key was refused",
    )
    .option('--account <name>', 'run the jobs of this account (repeatable; default: every active account)', collect, [])
    .action(
      withApp({ migrate: 'auto', work: 'jobs' }, async (app, options: { account: string[] }) => {
        const accounts = await accountsToServe(app.database.db, options.account);
        if (accounts.length === 0) {
          process.stderr.write(
            "invoice-mirror: no active account to run jobs for; 'invoice-mirror accounts list' shows them\n",
          );
          return 0;
        }
        const { servable, skipped } = withCredentials(accounts, app.config, options.account.length > 0);
        const code = await runAccounts(app, servable);
        return skipped > 0 ? 1 : code;
      }),
    );
}

/**
 * The accounts whose credentials can be had, checked before any work so that nothing stops
 * half-way. Accounts named on the command line must all have them (a ConfigError, exit 2); of
 * every active account, one without them is named on stderr and skipped, and the others run
 * (a ConfigError when none can).
 */
function withCredentials(
  accounts: readonly Account[],
  config: Config,
  named: boolean,
): { servable: Account[]; skipped: number } {
  const servable: Account[] = [];
  const problems: { account: Account; error: ConfigError }[] = [];
  for (const account of accounts) {
    try {
      credentialsOf(account, config);
      servable.push(account);
    } catch (error) {
      if (named || !(error instanceof ConfigError)) throw error;
      problems.push({ account, error });
    }
  }
  if (servable.length === 0) throw problems[0]!.error;
  for (const { account, error } of problems)
    process.stderr.write(`invoice-mirror: account ${account.name}: ${error.message}; its jobs wait\n`);
  return { servable, skipped: problems.length };
}

/** What a `jobs run` saw, over every account. */
interface RunTally {
  succeeded: number;
  failed: number;
  queued: number;
  interrupted: number;
  ran: number;
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
  const tally: RunTally = {
    succeeded: 0,
    failed: 0,
    queued: 0,
    interrupted: 0,
    ran: 0,
    needsAttention: 0,
    refused: [],
  };
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
  const later = tally.queued > 0 ? `, ${tally.queued} to be retried later` : '';
  process.stdout.write(
    `ran ${tally.ran} job${tally.ran === 1 ? '' : 's'}: ${tally.succeeded} succeeded, ${tally.failed} failed, ${tally.interrupted} interrupted${later}\n`,
  );
  // One account's failure (its database connection lost, say) stopped only its own run; report it now.
  const failure = results.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  return tally.failed + tally.interrupted > 0 || tally.needsAttention > 0 || tally.refused.length > 0 ? 1 : 0;
}

/** Drains one account's queue, printing each job's outcome (prefixed with the account when several run). */
async function runOneAccount(open: AccountRunner, prefix: string, tally: RunTally): Promise<void> {
  const { runner, account } = open;
  runner.on('finished', (job: JobFinished) => {
    tally[job.status]++;
    process.stdout.write(`${prefix}job ${job.id} ${job.kind}: ${job.status}${job.error ? ` (${job.error})` : ''}\n`);
  });
  runner.on('recovered', (job: RecoveredJob) => {
    if (job.status !== 'queued') tally.needsAttention++;
    process.stdout.write(
      `${prefix}job ${job.id} ${job.kind}: left running by a worker that stopped; now ${job.status} (${job.message})\n`,
    );
  });
  const { ran, refused } = await runner.runUntilEmpty();
  tally.ran += ran;
  if (refused === undefined) return;
  tally.refused.push(account.name);
  const refusedAccount = { ...account, state: 'refused' as const, state_reason: refused };
  process.stderr.write(`invoice-mirror: account ${account.name}: ${stateLine(refusedAccount)}; its jobs wait\n`);
}
