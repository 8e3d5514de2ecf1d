/**
 * The daemon's metrics, with prom-client: Node's own process and event-loop metrics, what this
 * process saw (sync runs, job attempts, requests by endpoint and status), and, read at scrape
 * time, what lives in the database (jobs by status, when the mirror was last complete, what needs
 * attention), so several daemons on one database report the same truth. A value not known yet is
 * left out, never NaN.
 */
import type { Kysely } from 'kysely';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AttemptOutcome, InvoicingClient } from '../api/index.js';
import {
  countJobsByStatus,
  lastSucceededPullAt,
  needsAttention,
  type AttentionOptions,
  type Database,
} from '../db/index.js';
import { JOB_STATUSES, type JobFinished } from '../jobs/index.js';
import type { SyncOutcome } from '../sync/index.js';

const JOB_DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const RECORD_OUTCOMES = ['fetched', 'inserted', 'updated', 'deleted', 'unchanged'] as const;

export class DaemonMetrics {
  readonly registry = new Registry();
  private client: InvoicingClient | undefined;
  private readonly syncRuns = new Counter({
    name: 'invoice_mirror_sync_runs_total',
    help: 'Sync runs finished by this process, by kind and status.',
    labelNames: ['kind', 'status'],
    registers: [this.registry],
  });
  private readonly lastSyncDuration = new Gauge({
    name: 'invoice_mirror_last_sync_duration_seconds',
    help: 'Duration of the last sync run of this process.',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  private readonly lastSyncRecords = new Gauge({
    name: 'invoice_mirror_last_sync_records',
    help: 'Records of the last sync run of this process, per entity and outcome.',
    labelNames: ['entity', 'outcome'],
    registers: [this.registry],
  });
  private readonly requests = new Counter({
    name: 'invoice_mirror_api_requests_total',
    help: 'Requests sent to the invoicing service by this process, by method, endpoint and status (or how the attempt failed).',
    labelNames: ['method', 'endpoint', 'status'],
    registers: [this.registry],
  });
  private readonly jobAttempts = new Counter({
    name: 'invoice_mirror_job_attempts_total',
    help: 'Job attempts run by this process, by kind and outcome.',
    labelNames: ['kind', 'status'],
    registers: [this.registry],
  });
  private readonly jobDuration = new Histogram({
    name: 'invoice_mirror_job_duration_seconds',
    help: 'Time one job attempt took, by kind.',
    labelNames: ['kind'],
    buckets: JOB_DURATION_BUCKETS,
    registers: [this.registry],
  });

  constructor(
    private readonly db: Kysely<Database>,
    version: string,
    /** How the attention list judges pulls (the daemon's schedule and uptime). */
    private readonly attention: () => AttentionOptions,
  ) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'invoice_mirror_build_info',
      help: 'Always 1; the labels say which build runs.',
      labelNames: ['version', 'node_version'],
      registers: [this.registry],
    }).set({ version, node_version: process.version }, 1);
    const metrics = this;
    new Gauge({
      name: 'invoice_mirror_rate_limit_remaining',
      help: 'The last X-RateLimit-Remaining the service sent (absent until one is seen).',
      registers: [this.registry],
      collect() {
        const remaining = metrics.client?.rateLimitRemaining;
        if (remaining !== undefined && remaining !== null) this.set(remaining);
        // prom-client's reset() leaves an unlabelled gauge at 0, which reads as "quota spent" (an
        // alert's trigger); with no value seen, the series must be absent instead.
        else (this as unknown as { hashMap: Record<string, unknown> }).hashMap = {};
      },
    });
    new Gauge({
      name: 'invoice_mirror_jobs',
      help: 'Jobs in the job table, by status.',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        const byStatus = await countJobsByStatus(metrics.db);
        for (const status of JOB_STATUSES) this.set({ status }, byStatus[status] ?? 0);
      },
    });
    new Gauge({
      name: 'invoice_mirror_attention',
      help: 'What needs attention (the list /healthz and invoice-mirror status show), by kind: deletes held, values not stored as sent, jobs interrupted; 1 for a failed or stale sync or a spent rate limit.',
      labelNames: ['kind'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const item of await needsAttention(metrics.db, metrics.attention()))
          this.inc({ kind: item.kind }, item.count);
      },
    });
    new Gauge({
      name: 'invoice_mirror_last_sync_success_timestamp_seconds',
      help: 'When the last sync or backfill that succeeded (complete and exact) finished, any process (absent: never).',
      registers: [this.registry],
      async collect() {
        this.reset();
        const at = await lastSucceededPullAt(metrics.db);
        if (at) this.set(at.getTime() / 1000);
      },
    });
  }

  /** Hand to the API client (`onAttempt`): counts every request by endpoint and status. */
  readonly countAttempt = (attempt: AttemptOutcome): void => {
    this.requests.inc({ method: attempt.method, endpoint: attempt.endpoint, status: attempt.status });
  };

  /** The client whose rate-limit budget is reported. */
  watch(client: InvoicingClient): void {
    this.client = client;
  }

  recordSync(kind: string, durationMs: number, outcome: SyncOutcome): void {
    this.syncRuns.inc({ kind, status: outcome.status });
    this.lastSyncDuration.reset();
    this.lastSyncDuration.set({ kind }, durationMs / 1000);
    this.lastSyncRecords.reset();
    for (const [entity, counts] of Object.entries(outcome.entities))
      for (const field of RECORD_OUTCOMES) this.lastSyncRecords.set({ entity, outcome: field }, counts![field]);
  }

  recordJob(job: JobFinished): void {
    this.jobAttempts.inc({ kind: job.kind, status: job.status });
    this.jobDuration.observe({ kind: job.kind }, job.durationMs / 1000);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
