/**
 * The daemon's accounts: for each active account, its own client (its own rate gate, hourly
 * budget and quota pause), job runner and pulls. The set follows the `accounts` table: an account
 * added or resumed is served from the next schedule tick on, one paused, refused or removed stops
 * being served; a key the service refuses stops its account's work at once and no other's.
 */
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { accountsAtOnce, type App } from '../app.js';
import type { InvoicingClient } from '../api/index.js';
import { accountsToServe, type Account } from '../accounts/store.js';
import { oneAccount, secondsSinceLastPullStarted } from '../db/index.js';
import { errorMessage } from '../errors.js';
import { JobRunner } from '../jobs/index.js';
import { createApiClient } from '../service-client.js';
import type { DaemonMetrics } from './metrics.js';
import { SyncDriver } from './sync-driver.js';

interface AccountWork {
  account: Account;
  client: InvoicingClient;
  runner: JobRunner;
  pulls: SyncDriver;
}

export class DaemonAccounts {
  private readonly served = new Map<number, AccountWork>();
  /** Scheduled pulls of all accounts go through here, as many at once as the pool has room for. */
  private readonly pullQueue: PQueue;
  private readonly atOnce: number;
  private stopping = false;

  constructor(
    private readonly app: App,
    private readonly metrics: DaemonMetrics,
    private readonly log: Logger,
  ) {
    this.atOnce = accountsAtOnce(app.config, 'daemon', Number.MAX_SAFE_INTEGER);
    this.pullQueue = new PQueue({ concurrency: this.atOnce });
  }

  get work(): readonly AccountWork[] {
    return [...this.served.values()];
  }

  /** Serves the active accounts: starts the new ones, stops those no longer active. */
  async follow(): Promise<void> {
    if (this.stopping) return;
    const active = await accountsToServe(this.app.database.db);
    const activeIds = new Set(active.map((account) => account.id));
    for (const [id, work] of this.served)
      if (!activeIds.has(id)) await this.retire(id, `account ${work.account.name} is no longer active`);
    for (const account of active) if (!this.served.has(account.id)) this.serve(account);
  }

  /** Queues a pull of every account served (of those behind, when `onlyBehindMs` is given). */
  async syncAll(reason: string, onlyBehindMs?: number): Promise<void> {
    await this.follow().catch((error: unknown) =>
      this.log.error({ error: errorMessage(error) }, 'could not read the accounts'),
    );
    const pulls = this.work.map(async (work) => {
      if (onlyBehindMs !== undefined) {
        const age = await secondsSinceLastPullStarted(this.app.database.db, oneAccount(work.account.id));
        if (age !== null && age * 1000 <= onlyBehindMs) return;
      }
      await this.pullQueue.add(() => work.pulls.sync(reason));
    });
    await Promise.allSettled(pulls);
  }

  private serve(account: Account): void {
    const log = this.log.child({ account: account.name });
    let client: InvoicingClient;
    try {
      client = createApiClient(this.app, account, { onAttempt: this.metrics.countAttempts(account.name) });
    } catch (error) {
      // A key the master secret cannot open, missing settings: this account waits, the others go on.
      log.error({ error: errorMessage(error) }, 'cannot serve the account');
      return;
    }
    this.metrics.watch(account.name, client);
    const { database, config } = this.app;
    const runner = new JobRunner({ database, client, config, logger: log, account });
    runner.on('finished', (job) => this.metrics.recordJob(account.name, job));
    runner.on('refused', () => void this.retire(account.id, 'its key was refused'));
    const refused = () => void this.refused(account);
    const pulls = new SyncDriver(this.app, account, client, this.metrics, log, refused, this.atOnce);
    this.served.set(account.id, { account, client, runner, pulls });
    runner.start();
    log.info('serving the account');
  }

  private async refused(account: Account): Promise<void> {
    this.log.warn(
      { account: account.name },
      'the service refused the API key (401); the account is no longer served until resumed',
    );
    await this.retire(account.id, 'its key was refused');
  }

  private async retire(id: number, reason: string): Promise<void> {
    const work = this.served.get(id);
    if (!work) return;
    this.served.delete(id);
    this.log.info({ account: work.account.name, reason }, 'no longer serving the account');
    await Promise.all([work.runner.stop(), work.pulls.stop()]);
    await work.client.close();
  }

  /** Stops every account's work (the current job and page finish). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.pullQueue.clear();
    await Promise.all([...this.served.keys()].map((id) => this.retire(id, 'the daemon stops')));
  }
}
