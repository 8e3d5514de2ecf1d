/**
 * `jobs add|list|show|retry|cancel|run`: queue and steer outbound actions, or drain the queue.
 */
import type { Command } from 'commander';
import { createApiClient } from '../app.js';
import { UsageError, errorMessage } from '../errors.js';
import { OUTPUT_FORMATS, formatRows, type OutputFormat } from '../format.js';
import { logger } from '../log.js';
import {
  JOB_STATUSES,
  JobRunner,
  KIND_NAMES,
  KINDS,
  PayloadError,
  addJob,
  cancelJob,
  getJob,
  listJobs,
  retryJob,
  type JobFinished,
  type JobStatus,
  type RecoveredJob,
} from '../jobs/index.js';
import { choice, positiveInteger, withApp } from './context.js';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`JSON: not valid JSON (${errorMessage(error)})`);
  }
}

function kindHelp(): string {
  return ['', 'Kinds:', ...KIND_NAMES.map((name) => `  ${name.padEnd(26)} ${KINDS[name].summary}`)].join('\n');
}

export function registerJobsCommands(program: Command): void {
  const jobs = program.command('jobs').description('queue and steer outbound actions (the jobs table)');

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
      positiveInteger('--max-attempts'),
    )
    .addHelpText('after', kindHelp())
    .action(
      withApp(async (app, kind: string, json: string, options: { key?: string; maxAttempts?: number }) => {
        const payload = parseJson(json);
        try {
          const { id, created } = await addJob(app.database.db, {
            kind,
            payload,
            idempotencyKey: options.key,
            maxAttempts: options.maxAttempts ?? app.config.jobs.maxAttempts,
          });
          if (!created) process.stderr.write(`invoice-mirror: already queued as job ${id} (same idempotency key)\n`);
          process.stdout.write(`${id}\n`);
        } catch (error) {
          if (error instanceof PayloadError) throw new UsageError(error.message);
          throw error;
        }
      }),
    );

  jobs
    .command('list')
    .description('the newest jobs, optionally of one status')
    .option('--status <status>', JOB_STATUSES.join(', '), choice('--status', JOB_STATUSES))
    .option('--limit <n>', 'how many (default 50)', positiveInteger('--limit'))
    .option('--format <format>', OUTPUT_FORMATS.join(', '), choice('--format', OUTPUT_FORMATS), 'table')
    .action(
      withApp(async (app, options: { status?: JobStatus; limit?: number; format: OutputFormat }) => {
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

  jobs
    .command('show')
    .description('everything about one job: payload, result, every failed attempt')
    .argument('<id>', 'job id', positiveInteger('id'))
    .option('--format <format>', 'text or json', choice('--format', ['text', 'json'] as const), 'text')
    .action(
      withApp(async (app, id: number, options: { format: 'text' | 'json' }) => {
        const job = await getJob(app.database.db, id);
        if (options.format === 'json') {
          process.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
          return;
        }
        const lines: string[] = [];
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

  const steering = [
    {
      name: 'retry',
      description: 'queue a failed, interrupted or cancelled job again (a send sends only the ids not confirmed sent)',
      steer: retryJob,
      done: 'queued',
    },
    { name: 'cancel', description: 'cancel a queued or interrupted job', steer: cancelJob, done: 'cancelled' },
  ];
  for (const { name, description, steer, done } of steering) {
    jobs
      .command(name)
      .description(description)
      .argument('<id>', 'job id', positiveInteger('id'))
      .action(
        withApp(async (app, id: number) => {
          await steer(app.database.db, id);
          process.stdout.write(`job ${id} ${done}\n`);
        }),
      );
  }

  jobs
    .command('run')
    .description(
      'run queued jobs one at a time until none is runnable, then exit; exit code 1 if any failed or was interrupted',
    )
    .action(
      withApp(async (app) => {
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
