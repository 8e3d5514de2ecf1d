/**
 * The daemon's metrics in Prometheus text format. What the process saw itself (sync runs, job
 * attempts, requests) is counted here; what lives in the database (jobs by status, the last
 * run) is read at scrape time, so several daemons on one database report the same truth.
 */
import type { Kysely } from 'kysely';
import type { InvoicingClient } from '../api/index.js';
import { countJobsByStatus, secondsSinceLastPullWithData, type Database } from '../db/index.js';
import { JOB_STATUSES, type JobFinished } from '../jobs/index.js';
import type { SyncOutcome } from '../sync/index.js';

const JOB_DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

interface Histogram {
  buckets: number[];
  sum: number;
  count: number;
}

type Labels = Record<string, string>;

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(
    ([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  return parts.length > 0 ? `{${parts.join(',')}}` : '';
}

export class DaemonMetrics {
  private readonly syncRuns = new Map<string, number>();
  private lastSync: { kind: string; durationSeconds: number; outcome: SyncOutcome } | null = null;
  private readonly jobDurations = new Map<string, Histogram>();
  private readonly jobAttempts = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly client: InvoicingClient,
  ) {}

  recordSync(kind: string, durationMs: number, outcome: SyncOutcome): void {
    const key = labelText({ kind, status: outcome.status });
    this.syncRuns.set(key, (this.syncRuns.get(key) ?? 0) + 1);
    this.lastSync = { kind, durationSeconds: durationMs / 1000, outcome };
  }

  recordJob(job: JobFinished): void {
    const attemptKey = labelText({ kind: job.kind, status: job.status });
    this.jobAttempts.set(attemptKey, (this.jobAttempts.get(attemptKey) ?? 0) + 1);
    const durationKey = labelText({ kind: job.kind });
    const histogram = this.jobDurations.get(durationKey) ?? {
      buckets: JOB_DURATION_BUCKETS.map(() => 0),
      sum: 0,
      count: 0,
    };
    const seconds = job.durationMs / 1000;
    JOB_DURATION_BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) histogram.buckets[i]!++;
    });
    histogram.sum += seconds;
    histogram.count++;
    this.jobDurations.set(durationKey, histogram);
  }

  async render(): Promise<string> {
    const out: string[] = [];
    const metric = (name: string, type: string, help: string, samples: Array<[Labels | string, number]>) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const [labels, value] of samples)
        out.push(
          `${name}${typeof labels === 'string' ? labels : labelText(labels)} ${Number.isFinite(value) ? value : 'NaN'}`,
        );
    };

    metric('invoice_mirror_sync_runs_total', 'counter', 'Sync runs finished by this process, by kind and status.', [
      ...this.syncRuns.entries(),
    ]);
    if (this.lastSync) {
      const { kind, durationSeconds, outcome } = this.lastSync;
      metric('invoice_mirror_last_sync_duration_seconds', 'gauge', 'Duration of the last sync run of this process.', [
        [{ kind }, durationSeconds],
      ]);
      const samples: Array<[Labels, number]> = [];
      for (const [entity, counts] of Object.entries(outcome.entities)) {
        for (const field of ['fetched', 'inserted', 'updated', 'deleted', 'unchanged'] as const)
          samples.push([{ entity, outcome: field }, counts![field]]);
      }
      metric(
        'invoice_mirror_last_sync_records',
        'gauge',
        'Records of the last sync run, per entity and outcome.',
        samples,
      );
    }
    metric(
      'invoice_mirror_api_requests_total',
      'counter',
      'HTTP requests sent to the invoicing service by this process.',
      [['', this.client.requestsMade]],
    );
    metric(
      'invoice_mirror_rate_limit_remaining',
      'gauge',
      'The last X-RateLimit-Remaining the service sent (NaN: none seen yet).',
      [['', this.client.rateLimitRemaining ?? Number.NaN]],
    );

    const byStatus = await countJobsByStatus(this.db);
    metric(
      'invoice_mirror_jobs',
      'gauge',
      'Jobs in the job table, by status.',
      JOB_STATUSES.map((status) => [{ status }, byStatus[status] ?? 0]),
    );
    metric('invoice_mirror_job_attempts_total', 'counter', 'Job attempts run by this process, by kind and outcome.', [
      ...this.jobAttempts.entries(),
    ]);

    out.push(
      '# HELP invoice_mirror_job_duration_seconds Time one job attempt took, by kind.',
      '# TYPE invoice_mirror_job_duration_seconds histogram',
    );
    for (const [labels, histogram] of this.jobDurations) {
      const inner = labels.slice(1, -1);
      for (const [i, bound] of JOB_DURATION_BUCKETS.entries())
        out.push(`invoice_mirror_job_duration_seconds_bucket{${inner},le="${bound}"} ${histogram.buckets[i]}`);
      out.push(`invoice_mirror_job_duration_seconds_bucket{${inner},le="+Inf"} ${histogram.count}`);
      out.push(
        `invoice_mirror_job_duration_seconds_sum${labels} ${histogram.sum}`,
        `invoice_mirror_job_duration_seconds_count${labels} ${histogram.count}`,
      );
    }

    const lastAge = await secondsSinceLastPullWithData(this.db);
    metric(
      'invoice_mirror_last_sync_age_seconds',
      'gauge',
      'Seconds since the last sync run that pulled data finished (any process).',
      [['', lastAge ?? Number.NaN]],
    );
    return `${out.join('\n')}\n`;
  }
}
