/**
 * `jobs add|list|show|retry|cancel|run`: queue and steer outbound actions, or drain the queue.
 */
import type { Command } from 'commander';
import { createApiClient } from '../service-client.js';
import { RunError, UsageError, errorMessage } from '../errors.js';
import { OUTPUT_FORMATS, formatRows, type OutputFormat } from '../format.js';
import { logger } from '../log.js';
import {
  JOB_STATUSES,
  JobRunner,
  KIND_NAMES,
  KINDS,
  kindNamed,
  PayloadError,
  PrecheckError,
  addJob,
  cancelJob,
  getJob,
  listJobs,
  retryJob,
  type JobFinished,
  type JobStatus,
  type RecoveredJob,
  type RetryDecisions,
} from '../jobs/index.js';
import { choice, positiveInteger, withApp } from './context.js';

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
    .description('validate a job and queue it; prints its id')
    .argument('<kind>', `one of: ${KIND_NAMES.join(', ')}`)
    .argument('<json>', 'the payload, e.g. \'{"ids": [12, 13], "delete": true}\'')
    .option(
      '--key <idempotency-key>',
      "queuing the same action again with this key does nothing (prints the first job's id)",
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
      withApp(
        {},
        async (app, kind: string, json: string, options: { key?: string; maxAttempts?: number; force?: boolean }) => {
          const payload = parseJson(json);
          try {
            const { id, created } = await addJob(app.database.db, {
              kind,
              payload,
              idempotencyKey: options.key,
              maxAttempts: options.maxAttempts ?? app.config.jobs.maxAttempts,
              force: options.force,
            });
            if (!created) process.stderr.write(`invoice-mirror: already queued as job ${id} (same idempotency key)\n`);
            process.stdout.write(`${id}\n`);
          } catch (error) {
            if (error instanceof PayloadError) throw new UsageError(error.message);
            if (error instanceof PrecheckError)
              throw new RunError(
                `${error.message}; nothing queued (--force queues it anyway, if the mirror is behind)`,
              );
            throw error;
          }
        },
      ),
    );
}

/** `jobs list`: the newest jobs. */
function registerList(jobs: Command): void {
  jobs
    .command('list')
    .description('the newest jobs, optionally of one status')
    .option('--status <status>', JOB_STATUSES.join(', '), choice('--status', JOB_STATUSES))
    .option('--limit <n>', 'how many (default 50)', positiveInteger('--limit'))
    .option('--format <format>', OUTPUT_FORMATS.join(', '), choice('--format', OUTPUT_FORMATS), 'table')
    .action(
      withApp({}, async (app, options: { status?: JobStatus; limit?: number; format: OutputFormat }) => {
        const rows = await listJobs(app.database.db, { status: options.status, limit: options.limit });
        const columns = [
          'id',
          'kind',
          'status',
          'attempts',
          'max_attempts',
          'run_after',
          'created_at',
          'finished_at',
          'last_error',
        ];
        process.stdout.write(formatRows(rows as unknown as Record<string, unknown>[], options.format, columns));
      }),
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

/** `jobs run`: drain the queue and exit. */
function registerRun(jobs: Command): void {
  jobs
    .command('run')
    .description(
      'run queued jobs one at a time until none is runnable, then exit; exit code 1 if any failed or was interrupted',
    )
    .action(
      withApp({ migrate: 'auto', work: 'jobs', callsService: true }, async (app) => {
        const client = createApiClient(app);
        const runner = new JobRunner({ database: app.database, client, config: app.config, logger });
        const counts = { succeeded: 0, failed: 0, queued: 0, interrupted: 0 };
        let needsAttention = 0;
        runner.on('finished', (job: JobFinished) => {
          counts[job.status]++;
          process.stdout.write(`job ${job.id} ${job.kind}: ${job.status}${job.error ? ` (${job.error})` : ''}\n`);
        });
        runner.on('recovered', (job: RecoveredJob) => {
          if (job.status !== 'queued') needsAttention++;
          process.stdout.write(
            `job ${job.id} ${job.kind}: left running by a worker that stopped; now ${job.status} (${job.message})\n`,
          );
        });
        // The first Ctrl-C lets the job in progress finish; a second one stops at once.
        const stop = () => void runner.stop();
        process.once('SIGINT', stop).once('SIGTERM', stop);
        try {
          const { ran, failed } = await runner.runUntilEmpty();
          const waiting = counts.queued > 0 ? `, ${counts.queued} to be retried later` : '';
          process.stdout.write(
            `ran ${ran} job${ran === 1 ? '' : 's'}: ${counts.succeeded} succeeded, ${counts.failed} failed, ${counts.interrupted} interrupted${waiting}\n`,
          );
          return failed > 0 || needsAttention > 0 ? 1 : 0;
        } finally {
          process.off('SIGINT', stop).off('SIGTERM', stop);
          await client.close();
        }
      }),
    );
}
