/**
 * One daemon of the fleet: it claims accounts whose work is due (src/fleet/leases.ts), as many at
 * once as ACCOUNT_CONCURRENCY, and for each does what is due: queued jobs first (outbound actions
 * are what a person waits for), then the scheduled pull; then it gives the account back, its next
 * pull due one interval later. Any number of daemons on any number of machines share the accounts
 * through the database alone; a daemon that dies or stalls loses its accounts to the others once
 * its leases run out.
 *
 * A pull gives way (after a page, going on from there at the account's next turn: see
 * sync/resume.ts) once it has run for PULL_SLICE, or when a job of its account is queued: within an
 * account, outbound actions (and the refreshes after them) come before pulls, and one long pull
 * (a first backfill of a large account) never holds a daemon's place for long. Pulls also leave
 * the last ACTION_RESERVE requests of the account's hourly budget to actions.
 *
 * Each account keeps its own client in this daemon (its rate gate, hourly budget and quota pause
 * carry over from one claim to the next); across daemons one request per account is in flight at
 * a time by the account's service lock. A spent quota parks the account until it comes back, in
 * the database, so no daemon tries it meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { accountsAtOnce, minimumPoolSize, type App } from '../app.js';
import type { InvoicingClient } from '../api/index.js';
import { pullAccount } from '../accounts/pull.js';
import { accountsWithIds, ensureDefaultAccount, type Account } from '../accounts/store.js';
import { errorMessage } from '../errors.js';
import {
  allDueNow,
  buryDeadDaemons,
  claimDue,
  heartbeat,
  park,
  registerDaemon,
  release,
  unregisterDaemon,
  withRunnableJobs,
  type Claimed,
  type DaemonIdentity,
} from '../fleet/leases.js';
import { JobRunner } from '../jobs/index.js';
import { createApiClient } from '../service-client.js';
import { packageVersion } from '../version.js';
import type { DaemonMetrics } from './metrics.js';

/** How often a daemon looks for due work when nothing woke it sooner. */
const CLAIM_EVERY_MS = 1000;
/** How long a claim may take before the daemon claims again beside it. */
const CLAIM_GIVE_UP_MS = 10_000;

interface Work {
  account: Account;
  /** performance.now() when the work began. */
  began: number;
  stop: AbortController;
  runner?: JobRunner;
  /** Set while it pulls: a job of the account is waiting (the pull gives way to it). */
  pulling?: { jobWaiting: boolean };
}

export class FleetDaemon {
  private readonly clients = new Map<number, InvoicingClient>();
  private readonly working = new Map<number, Work>();
  private readonly queue: PQueue;
  /** Accounts worked on at once: ACCOUNT_CONCURRENCY, as far as DB_POOL_SIZE has room. */
  readonly concurrency: number;
  private timers: NodeJS.Timeout[] = [];
  private unlisten: (() => Promise<void>) | undefined;
  private claiming: Promise<void> | null = null;
  /** When the database last failed a claim, until a claim succeeds again (see claim). */
  private outageAt: number | null = null;
  private stopping = false;

  constructor(
    private readonly app: App,
    /** Also the application_name of the app's database sessions (see newDaemonIdentity). */
    private readonly identity: DaemonIdentity,
    private readonly metrics: DaemonMetrics,
    private readonly log: Logger,
  ) {
    this.concurrency = accountsAtOnce(app.config, 'daemon', app.config.fleet.accountConcurrency);
    this.queue = new PQueue({ concurrency: this.concurrency });
  }

  get id(): string {
    return this.identity.id;
  }

  /** The clients of the accounts served so far (their gates' stalls are the daemon's health). */
  get accountClients(): readonly InvoicingClient[] {
    return [...this.clients.values()];
  }

  async start(): Promise<void> {
    const { db } = this.app.database;
    // A mirror with no account yet serves `default` (the INVOICING_API_* settings), as one account always did.
    await ensureDefaultAccount(db);
    await registerDaemon(db, this.identity, packageVersion());
    const { leaseSeconds } = this.app.config.fleet;
    this.timers.push(setInterval(() => void this.claimSoon(), CLAIM_EVERY_MS));
    this.timers.push(setInterval(() => void this.beat(), (leaseSeconds * 1000) / 3));
    // A job queued anywhere: its account may be claimed at once, or its pull give way to it.
    this.unlisten = await this.app.database.listen(`${this.app.config.schema}_jobs`, () => {
      void this.claimSoon();
      void this.noteWaitingJobs();
    });
    const { accountConcurrency } = this.app.config.fleet;
    if (this.concurrency < accountConcurrency)
      this.log.warn(
        { accountConcurrency, dbPoolSize: this.app.config.dbPoolSize, accountsAtOnce: this.concurrency },
        `DB_POOL_SIZE has room for ${this.concurrency} of ACCOUNT_CONCURRENCY's ${accountConcurrency} accounts at once; set DB_POOL_SIZE to ${minimumPoolSize('daemon', accountConcurrency)} for all`,
      );
    this.log.info({ daemon: this.identity.id, accountsAtOnce: this.concurrency }, 'fleet daemon started');
    void this.claimSoon();
  }

  /** With SYNC_CRON: every account's pull is due now. */
  async scheduleAll(): Promise<void> {
    await allDueNow(this.app.database.db).catch((error: unknown) =>
      this.log.error({ error: errorMessage(error) }, 'could not mark the accounts due'),
    );
    void this.claimSoon();
  }

  private claimSoon(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    // A claim that never settles (a connection lost under a waiting query: porsager/postgres#1195)
    // must not stop the daemon from claiming: after a while the next tick claims again.
    if (this.claiming) return this.claiming;
    let settled = false;
    const claim = this.claim().finally(() => {
      settled = true;
    });
    const gaveUp = sleep(CLAIM_GIVE_UP_MS, undefined, { ref: false }).then(() => {
      if (!settled) this.outageAt ??= performance.now() - CLAIM_GIVE_UP_MS;
    });
    this.claiming = Promise.race([claim, gaveUp]).finally(() => {
      this.claiming = null;
    });
    return this.claiming;
  }

  private async claim(): Promise<void> {
    const { db } = this.app.database;
    const { leaseSeconds } = this.app.config.fleet;
    try {
      const free = this.concurrency - this.working.size;
      const claimed = await claimDue(db, this.identity.id, free, leaseSeconds, [...this.working.keys()]);
      if (this.outageAt !== null) this.afterOutage(this.outageAt);
      if (claimed.length === 0) return;
      const accounts = await accountsWithIds(
        db,
        claimed.map((item) => item.accountId),
      );
      for (const item of claimed) {
        const account = accounts.find((a) => a.id === item.accountId);
        if (account) this.begin(account, item);
      }
    } catch (error) {
      this.outageAt ??= performance.now();
      this.log.error({ error: errorMessage(error) }, 'could not claim work; trying again');
    }
  }

  /**
   * The database answers again after failing: work begun before it failed may wait forever on a
   * connection lost under it (porsager/postgres#1195), so it is let go (stopped, and no longer
   * counted) and its accounts claimed afresh. Should it wake after all, the account's locks keep
   * it from running beside the new work.
   */
  private afterOutage(outageAt: number): void {
    this.outageAt = null;
    for (const [id, work] of this.working) {
      if (work.began > outageAt) continue;
      this.log.warn(
        { account: work.account.name },
        'the database failed under work on the account; claiming it afresh',
      );
      work.stop.abort('the database failed');
      void work.runner?.stop();
      this.working.delete(id);
    }
  }

  private begin(account: Account, claimed: Claimed): void {
    const work: Work = { account, began: performance.now(), stop: new AbortController() };
    this.working.set(account.id, work);
    void this.queue
      .add(() => this.serve(work, claimed))
      .catch((error: unknown) =>
        this.log.error({ account: account.name, error: errorMessage(error) }, 'work on the account failed'),
      )
      .finally(() => {
        if (this.working.get(account.id) === work) this.working.delete(account.id);
      });
  }

  /** Jobs first, then the pull if it is due; then the account is given back. */
  private async serve(work: Work, claimed: Claimed): Promise<void> {
    const { account } = work;
    const log = this.log.child({ account: account.name });
    const client = this.clientOf(account, log);
    // Without a client (a key the master secret cannot open) it is tried again an interval later,
    // not at every claim.
    if (!client)
      return release(this.app.database.db, this.identity.id, account.id, 'interval', this.app.config.syncInterval);
    const { database, config } = this.app;
    work.runner = new JobRunner({ database, account, client, config, logger: log });
    work.runner.on('finished', (job) => this.metrics.recordJob(account.name, job));
    const ran = await work.runner.runUntilEmpty();
    let next: 'interval' | 'cron' | 'now' | null = null;
    if (claimed.pullDue && !work.stop.signal.aborted && ran.refused === undefined) {
      const began = performance.now();
      const { pullSlice: slice, actionReserve: reserve } = this.app.config.fleet;
      const pulling = { jobWaiting: false };
      work.pulling = pulling;
      let budgetLow = false;
      const giveWay = () => {
        if (pulling.jobWaiting) return 'a job of the account is waiting';
        budgetLow = client.budgetLeft <= reserve;
        if (budgetLow) return `the last ${reserve} requests of its hourly budget are kept for actions`;
        return performance.now() - began > slice ? `its slice of ${slice / 1000} s is over` : null;
      };
      const options = { kind: 'sync' as const, signal: work.stop.signal, giveWay };
      const outcome = await pullAccount(this.app, {
        account,
        client,
        options,
        work: 'daemon',
        atOnce: this.concurrency,
      });
      work.pulling = undefined;
      this.metrics.recordSync(account.name, 'sync', performance.now() - began, outcome);
      // Given way to a job or to the others: its turn again at once (behind those waiting). Given
      // way to keep the budget for actions: an interval later, as after a pull.
      next = outcome.gaveWay && !budgetLow ? 'now' : this.app.config.syncCron ? 'cron' : 'interval';
      await this.parkIfSpent(account, client);
    }
    if (!work.stop.signal.aborted) await release(database.db, this.identity.id, account.id, next, config.syncInterval);
  }

  /** A job was queued: the pulls of its account (if this daemon pulls it) give way to it. */
  private async noteWaitingJobs(): Promise<void> {
    const pulling = [...this.working.values()].filter((work) => work.pulling && !work.pulling.jobWaiting);
    if (pulling.length === 0) return;
    try {
      const waiting = new Set(
        await withRunnableJobs(
          this.app.database.db,
          pulling.map((work) => work.account.id),
        ),
      );
      for (const work of pulling) if (work.pulling && waiting.has(work.account.id)) work.pulling.jobWaiting = true;
    } catch (error) {
      this.log.warn({ error: errorMessage(error) }, 'could not look for waiting jobs; the pulls go on');
    }
  }

  /** The account's quota is spent: parked in the database until the client's pause ends. */
  private async parkIfSpent(account: Account, client: InvoicingClient): Promise<void> {
    const until = client.pausedUntil;
    if (!until) return;
    const ms = Math.max(1000, until.getTime() - Date.now());
    await park(
      this.app.database.db,
      account.id,
      ms,
      `its hourly quota was spent (403); parked until ${until.toISOString()}`,
    );
    this.log.warn({ account: account.name, until }, 'quota spent: the account is parked until it comes back');
  }

  private clientOf(account: Account, log: Logger): InvoicingClient | undefined {
    const known = this.clients.get(account.id);
    if (known) return known;
    try {
      const client = createApiClient(this.app, account, {
        onAttempt: this.metrics.countAttempts(account.name),
        logger: log,
      });
      this.metrics.watch(account.name, client);
      this.clients.set(account.id, client);
      return client;
    } catch (error) {
      // A key the master secret cannot open, missing settings: this account waits, the others go on.
      log.error({ error: errorMessage(error) }, 'cannot serve the account');
      return undefined;
    }
  }

  /** Renews the leases held; gives up the accounts taken over; finds the dead daemons. */
  private async beat(): Promise<void> {
    const { db } = this.app.database;
    const { leaseSeconds } = this.app.config.fleet;
    try {
      const { lost, declaredDead } = await heartbeat(db, this.identity.id, [...this.working.keys()], leaseSeconds);
      for (const id of declaredDead ? [...this.working.keys()] : lost) this.abandon(id);
      if (declaredDead) {
        // Found dead while it could not beat (stopped, or cut off): its sessions were ended and its
        // work given to others; it starts again with nothing held.
        this.log.warn({ daemon: this.identity.id }, 'this daemon was found dead by the fleet; starting again');
        await registerDaemon(db, this.identity, packageVersion());
      }
      const buried = await buryDeadDaemons(db, leaseSeconds);
      if (buried.length > 0)
        this.log.warn({ daemons: buried }, 'daemons without a heartbeat: their accounts go to the others');
    } catch (error) {
      this.log.error({ error: errorMessage(error) }, 'heartbeat failed; trying again');
    }
  }

  /** Another daemon holds the account now: stop working on it (the page and job in flight end). */
  private abandon(accountId: number): void {
    const work = this.working.get(accountId);
    if (!work) return;
    this.log.warn(
      { account: work.account.name },
      'lost the lease on the account; leaving its work to the daemon that holds it',
    );
    work.stop.abort('lease lost');
    void work.runner?.stop();
  }

  /** Stops claiming, lets the work in flight finish its page and job, gives every account back. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.unlisten?.().catch(() => undefined);
    for (const work of this.working.values()) {
      work.stop.abort('the daemon stops');
      void work.runner?.stop();
    }
    await this.queue.onIdle();
    await unregisterDaemon(this.app.database.db, this.identity.id).catch(() => undefined);
    await Promise.all([...this.clients.values()].map((client) => client.close()));
  }
}
