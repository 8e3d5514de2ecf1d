/**
 * The daemon's metrics, with prom-client: Node's own process and event-loop metrics, what this
 * process saw (sync runs, job attempts, requests by endpoint and status), and, read at scrape
 * time, what lives in the database (jobs by status, when the mirror was last complete, what needs
 * attention), so several daemons on one database report the same truth. A value not known yet is
 * left out, never NaN.
 *
 * What is about an account carries an `account` label (its name), while the mirror holds at most
 * METRICS_ACCOUNT_LABELS accounts. Beyond that a scrape would hold a series per account and
 * metric, and cost a query per account: counts are then summed under `account="*"`, what only
 * makes sense per account (its last run, its last success) is left out, and how fresh the accounts
 * are is the histogram `invoice_mirror_account_pull_age_seconds`, there whatever the number.
 */
import type { Kysely } from 'kysely';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { listAccounts } from '../accounts/store.js';
import type { AttemptOutcome, InvoicingClient } from '../api/index.js';
import { ENTITY_NAMES } from '../catalog/index.js';
import {
  countJobsByStatus,
  fleetStatus,
  lastSucceededPullAt,
  needsAttention,
  pullAges,
  oneAccount,
  type AttentionOptions,
  type Database,
} from '../db/index.js';
import { JOB_STATUSES, type JobFinished } from '../jobs/index.js';
import type { SyncOutcome } from '../sync/index.js';

const JOB_DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const RECORD_OUTCOMES = ['fetched', 'inserted', 'updated', 'deleted', 'unchanged'] as const;
const PULL_KINDS = ['backfill', 'sync', 'refresh'] as const;
/** The label of every account once there are too many to name (see the module comment). */
const ALL_ACCOUNTS = '*';
const PULL_AGE_BUCKETS = [60, 120, 300, 600, 900, 1800, 3600, 4 * 3600, 86_400];

export class DaemonMetrics {
  readonly registry = new Registry();
  /** The API client of each account, whose rate-limit budget is reported. */
  private readonly clients = new Map<string, InvoicingClient>();
  /** Accounts reported at the last scrape (or start): above `accountLabels`, none is named. */
  private accountCount = 0;
  private readonly syncRuns = new Counter({
    name: 'invoice_mirror_sync_runs_total',
    help: 'Sync runs finished by this process, by account, kind and status.',
    labelNames: ['account', 'kind', 'status'],
    registers: [this.registry],
  });
  private readonly lastSyncDuration = new Gauge({
    name: 'invoice_mirror_last_sync_duration_seconds',
    help: "Duration of the account's last sync run in this process.",
    labelNames: ['account', 'kind'],
    registers: [this.registry],
  });
  private readonly lastSyncRecords = new Gauge({
    name: 'invoice_mirror_last_sync_records',
    help: "Records of the account's last sync run in this process, per entity and outcome.",
    labelNames: ['account', 'entity', 'outcome'],
    registers: [this.registry],
  });
  private readonly requests = new Counter({
    name: 'invoice_mirror_api_requests_total',
    help: 'Requests sent to the invoicing service by this process, by account, method, endpoint and status (or how the attempt failed).',
    labelNames: ['account', 'method', 'endpoint', 'status'],
    registers: [this.registry],
  });
  private readonly jobAttempts = new Counter({
    name: 'invoice_mirror_job_attempts_total',
    help: 'Job attempts run by this process, by account, kind and outcome.',
    labelNames: ['account', 'kind', 'status'],
    registers: [this.registry],
  });
  private readonly dutyRuns = new Counter({
    name: 'invoice_mirror_duty_runs_total',
    help: "Turns of this daemon's periodic duties (claim, heartbeat, bury, orphan-sweep, overdue, cron), by duty and outcome: ran, failed, or skipped (a maintenance duty while another daemon leads).",
    labelNames: ['duty', 'outcome'],
    registers: [this.registry],
  });
  private readonly leader = new Gauge({
    name: 'invoice_mirror_fleet_leader',
    help: "1 while this daemon leads the fleet (runs its maintenance: burying dead daemons, the orphan sweep, the overdue pass, SYNC_CRON's all-due), else 0; the fleet's sum is 1 but for a lease after a leader dies.",
    registers: [this.registry],
  });
  private readonly jobDuration = new Histogram({
    name: 'invoice_mirror_job_duration_seconds',
    help: 'Time one job attempt took, by account and kind.',
    labelNames: ['account', 'kind'],
    buckets: JOB_DURATION_BUCKETS,
    registers: [this.registry],
  });

  constructor(
    private readonly db: Kysely<Database>,
    version: string,
    /** How the attention list judges pulls (the daemon's schedule and uptime). */
    private readonly attention: () => AttentionOptions,
    /** LEASE_SECONDS: a daemon whose heartbeat is older is not alive. */
    private readonly leaseSeconds = 30,
    /** METRICS_ACCOUNT_LABELS: up to this many accounts, each has series of its own. */
    private readonly accountLabels = 50,
  ) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'invoice_mirror_build_info',
      help: 'Always 1; the labels say which build runs.',
      labelNames: ['version', 'node_version'],
      registers: [this.registry],
    }).set({ version, node_version: process.version }, 1);
    this.leader.set(0);
    this.accountGauges();
    this.fleetGauges();
  }

  /**
   * What is read from the database at scrape time. A gauge left with no sample for an account
   * (reset, nothing set) is absent, never 0: prom-client's reset() would leave an unlabelled gauge
   * at 0, which for the rate limit reads as "quota spent" (an alert's trigger).
   */
  private accountGauges(): void {
    const metrics = this;
    new Gauge({
      name: 'invoice_mirror_rate_limit_remaining',
      help: 'The last X-RateLimit-Remaining the service sent for the account (absent until one is seen).',
      labelNames: ['account'],
      registers: [this.registry],
      collect() {
        this.reset();
        // Summed over the accounts, the one closest to its quota is what matters.
        let least = Number.POSITIVE_INFINITY;
        for (const [account, client] of metrics.clients) {
          const remaining = client.rateLimitRemaining;
          if (remaining === undefined || remaining === null) continue;
          if (metrics.named) this.set({ account }, remaining);
          least = Math.min(least, remaining);
        }
        if (!metrics.named && Number.isFinite(least)) this.set({ account: ALL_ACCOUNTS }, least);
      },
    });
    new Gauge({
      name: 'invoice_mirror_jobs',
      help: 'Jobs in the job table, by account and status.',
      labelNames: ['account', 'status'],
      registers: [this.registry],
      async collect() {
        this.reset();
        const accounts = await metrics.accounts();
        const scopes = metrics.named
          ? accounts.map(({ id, name }) => ({ account: name, scope: oneAccount(id) }))
          : [{ account: ALL_ACCOUNTS, scope: 'all' as const }];
        for (const { account, scope } of scopes) {
          const byStatus = await countJobsByStatus(metrics.db, scope);
          for (const status of JOB_STATUSES) this.set({ account, status }, byStatus[status] ?? 0);
        }
      },
    });
    new Gauge({
      name: 'invoice_mirror_attention',
      help: 'What needs attention (the list /healthz and invoice-mirror status show), by account and kind: deletes held, values not stored as sent, jobs interrupted; 1 for a failed or stale sync, a spent rate limit, a refused or paused account.',
      labelNames: ['account', 'kind'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const item of await needsAttention(metrics.db, 'all', metrics.attention()))
          this.inc({ account: item.account ? metrics.label(item.account) : '', kind: item.kind }, item.count);
      },
    });
    new Gauge({
      name: 'invoice_mirror_last_sync_success_timestamp_seconds',
      help: "When the account's last sync or backfill that succeeded (complete and exact) finished, any process (absent: never).",
      labelNames: ['account'],
      registers: [this.registry],
      async collect() {
        this.reset();
        if (!metrics.named) return;
        for (const { id, name } of await metrics.accounts()) {
          const at = await lastSucceededPullAt(metrics.db, oneAccount(id));
          if (at) this.set({ account: name }, at.getTime() / 1000);
        }
      },
    });
  }

  /** The fleet as the database holds it, read at scrape time (one series each, whatever the number of accounts). */
  private fleetGauges(): void {
    const metrics = this;
    new Gauge({
      name: 'invoice_mirror_fleet',
      help: 'The fleet sharing this database, one series each (no label per account, however many there are): daemons alive, accounts being worked on, active accounts overdue (due, not worked on), accounts parked (quota spent).',
      labelNames: ['what'],
      registers: [this.registry],
      async collect() {
        const fleet = await fleetStatus(metrics.db, 'all', metrics.leaseSeconds);
        this.set({ what: 'daemons_alive' }, fleet.daemonsAlive);
        this.set({ what: 'accounts_working' }, fleet.leasesHeld);
        this.set({ what: 'accounts_overdue' }, fleet.overdue);
        this.set({ what: 'accounts_parked' }, fleet.parked.length);
        this.set({ what: 'accounts_never_complete' }, fleet.neverComplete);
      },
    });
    new Histogram({
      name: 'invoice_mirror_account_pull_age_seconds',
      help: 'How fresh the accounts are: each active account\'s time since its last sync or backfill that succeeded, by any process (those with none yet: invoice_mirror_fleet{what="accounts_never_complete"}). One series, whatever the number of accounts.',
      buckets: PULL_AGE_BUCKETS,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const age of await pullAges(metrics.db)) if (age !== null) this.observe(age);
      },
    });
  }

  /** Whether accounts are named in labels (see the module comment). */
  private get named(): boolean {
    return this.accountCount <= this.accountLabels;
  }

  /** The `account` label of an account: its name, or `*` once there are too many to name. */
  private label(account: string): string {
    return this.named ? account : ALL_ACCOUNTS;
  }

  /** The accounts reported: all but the removed ones (their rows are kept, nothing happens to them). */
  private async accounts(): Promise<{ id: number; name: string }[]> {
    const accounts = (await listAccounts(this.db)).filter((account) => account.state !== 'removed');
    this.accountCount = accounts.length;
    return accounts;
  }

  /** Counts the accounts (whether they are named in labels) before the first scrape. */
  async start(): Promise<void> {
    await this.accounts();
  }

  /** Hand to the account's API client (`onAttempt`): counts every request by endpoint and status. */
  countAttempts(account: string): (attempt: AttemptOutcome) => void {
    return (attempt) =>
      this.requests.inc({
        account: this.label(account),
        method: attempt.method,
        endpoint: attempt.endpoint,
        status: attempt.status,
      });
  }

  /** The account's client, whose rate-limit budget is reported. */
  watch(account: string, client: InvoicingClient): void {
    this.clients.set(account, client);
  }

  recordSync(account: string, kind: string, durationMs: number, outcome: SyncOutcome): void {
    this.syncRuns.inc({ account: this.label(account), kind, status: outcome.status });
    // An account's last run is about that account alone: not summed.
    if (!this.named) return;
    // The account's last run replaces its earlier one; the other accounts' stay.
    for (const other of PULL_KINDS) this.lastSyncDuration.remove({ account, kind: other });
    this.lastSyncDuration.set({ account, kind }, durationMs / 1000);
    for (const entity of ENTITY_NAMES)
      for (const field of RECORD_OUTCOMES) this.lastSyncRecords.remove({ account, entity, outcome: field });
    for (const [entity, counts] of Object.entries(outcome.entities))
      for (const field of RECORD_OUTCOMES)
        this.lastSyncRecords.set({ account, entity, outcome: field }, counts![field]);
  }

  recordJob(account: string, job: JobFinished): void {
    this.jobAttempts.inc({ account: this.label(account), kind: job.kind, status: job.status });
    this.jobDuration.observe({ account: this.label(account), kind: job.kind }, job.durationMs / 1000);
  }

  /** One turn of a periodic duty (fleet/duty.ts). */
  recordDuty(duty: string, outcome: string): void {
    this.dutyRuns.inc({ duty, outcome });
  }

  /** Whether this daemon leads the fleet now. */
  setLeader(leads: boolean): void {
    this.leader.set(leads ? 1 : 0);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
