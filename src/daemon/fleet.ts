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
 * the database, so no daemon tries it meanwhile (a budget spent down to ACTION_RESERVE parks its
 * pulls alone).
 *
 * Its periodic duties are modules of their own (duties/), started and stopped alike: claiming and
 * the heartbeat are every daemon's; the fleet's maintenance (burying dead daemons and ending their
 * sessions, the orphan sweep, the overdue pass, SYNC_CRON's all-due) is the leader's, one daemon
 * elected in Postgres (fleet/elector.ts) whose lease another takes within a lease of its death.
 * It says what it does as events (FleetEvents), which tests wait on instead of sleeping.
 *
 * What only this daemon cannot do is set aside here, not recorded: an account its settings cannot
 * serve (credentials missing, a key its master secret does not open, an address pointing at
 * another service than the account's rows come from) and one whose INVOICING_API_* credentials
 * the service refused (`default`: the key is this process's). It claims them again a
 * SYNC_INTERVAL later, and the other daemons serve them meanwhile.
 */
import { EventEmitter } from 'node:events';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { accountsAtOnce, minimumPoolSize, type App } from '../app.js';
import type { InvoicingClient } from '../api/index.js';
import { pullAccount } from '../accounts/pull.js';
import { accountProblem } from '../accounts/serve.js';
import { openSession, type AccountSession } from '../accounts/session.js';
import { mismatchError, sameService } from '../accounts/service.js';
import {
  accountsWithIds,
  ensureDefaultAccount,
  hasStoredCredentials,
  refusedLine,
  type Account,
} from '../accounts/store.js';
import { ConfigError, errorMessage } from '../errors.js';
import { listenFor } from '../db/channels.js';
import { Coalesced } from '../coalesced.js';
import type { Duty, PeriodicDuty } from '../fleet/duty.js';
import { LeaderElector } from '../fleet/elector.js';
import {
  accountsWithWaitingJobs,
  claimDue,
  msUntilNextDue,
  park,
  registerDaemon,
  release,
  unregisterDaemon,
  type Claimed,
  type DaemonIdentity,
} from '../fleet/leases.js';
import { sessionRunner, type JobRunner } from '../jobs/index.js';
import { packageVersion } from '../version.js';
import { buryDuty } from './duties/bury.js';
import { CLAIM_EVERY_MS, CLAIM_GIVE_UP_MS, claimDuty } from './duties/claim.js';
import { cronDuty } from './duties/cron.js';
import { beatEveryMs, heartbeatDuty } from './duties/heartbeat.js';
import { orphanSweepDuty } from './duties/orphan-sweep.js';
import { overdueDuty } from './duties/overdue.js';
import type { DaemonMetrics } from './metrics.js';

/** What a daemon does, as it does it (for tests to wait on, and for anyone watching in-process). */
export interface FleetEvents {
  /** Started: registered, its duties running, listening for queued jobs. */
  listening: [];
  /** Claimed these accounts' work. */
  claimed: [accountIds: number[]];
  /** A pull of the account gave way (to a job, its budget's reserve, or the end of its slice). */
  'gave way': [accountId: number, why: string];
  /** Gave the account back (`next`: when its next pull is due; see release). */
  released: [accountId: number, next: 'interval' | 'cron' | 'now' | null];
  /** Lost the lease on the account to another daemon (and stopped working on it). */
  abandoned: [accountId: number];
  /** Took the lead of the fleet's maintenance. */
  'leader taken': [];
  /** No longer leads (`leader`: who does, if known). */
  'leader lost': [leader: string | undefined];
  /** Buried these dead daemons (as the leader). */
  buried: [daemons: string[]];
}

interface Work {
  account: Account;
  /** performance.now() when the work began. */
  began: number;
  stop: AbortController;
  runner?: JobRunner;
  /** Set while it pulls: a job of the account is waiting (the pull gives way to it). */
  pulling?: { jobWaiting: boolean };
}

export class FleetDaemon extends EventEmitter<FleetEvents> {
  /** Each account's session (its client), with the credentials (as in its row) it was made from. */
  private readonly sessions = new Map<number, { session: AccountSession; from: string }>();
  /** Accounts this daemon does not claim, each until a time (performance.now()). */
  private readonly setAside = new Map<number, number>();
  private readonly working = new Map<number, Work>();
  private readonly queue: PQueue;
  /** Accounts worked on at once: ACCOUNT_CONCURRENCY, as far as DB_POOL_SIZE has room. */
  readonly concurrency: number;
  private unlisten: (() => Promise<void>) | undefined;
  /** The look for waiting jobs a notification asked for, and whether another was asked meanwhile. */
  private readonly looks = new Coalesced(() => this.lookOnce());
  /** Whether this daemon leads the fleet's maintenance. */
  readonly elector: LeaderElector;
  private readonly claimer: PeriodicDuty;
  /** Its duties, claiming first, the heartbeat last (started in this order, stopped in the reverse). */
  private readonly duties: Duty[];
  /** When the database last failed a claim, until a claim succeeds again (see claim). */
  private outageAt: number | null = null;
  private stopping = false;
  /** A claim set for the moment the next account falls due, sooner than the next tick. */
  private dueTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly app: App,
    /** Also the application_name of the app's database sessions (see newDaemonIdentity). */
    private readonly identity: DaemonIdentity,
    private readonly metrics: DaemonMetrics,
    private readonly log: Logger,
  ) {
    super();
    this.concurrency = accountsAtOnce(app.config, 'daemon', app.config.fleet.accountConcurrency);
    this.queue = new PQueue({ concurrency: this.concurrency });
    this.elector = new LeaderElector(app.database.db, identity.id, app.config.fleet.leaseSeconds);
    this.claimer = claimDuty({
      claim: () => this.claim(),
      // Taken for a failure of the database under the claim (see afterOutage).
      onStall: () => {
        this.outageAt ??= performance.now() - CLAIM_GIVE_UP_MS;
      },
      log,
      report: this.report,
    });
    this.duties = [this.claimer, ...this.otherDuties()];
  }

  private readonly report = (duty: string, outcome: string) => this.metrics.recordDuty(duty, outcome);

  /** The heartbeat, and the leader's maintenance (run at once when this daemon takes the lead). */
  private otherDuties(): Duty[] {
    const { database, config } = this.app;
    const { db } = database;
    const { leaseSeconds } = config.fleet;
    const [log, report, leads] = [this.log, this.report, () => this.elector.leads];
    // As often as the heartbeat: a dead worker's job is recovered within a lease and a beat.
    const everyMs = Math.max(1000, beatEveryMs(leaseSeconds));
    const sweep = orphanSweepDuty({ database, everyMs, leads, onRecovered: () => this.claimSoon(), log, report });
    const onBuried = (daemons: string[]) => {
      this.emit('buried', daemons);
      // Their sessions are ended, so their job locks are free: what they left running is recovered now.
      void sweep.soon();
    };
    const bury = buryDuty({ db, leaseSeconds, everyMs, leads, onBuried, log, report });
    const overdue = overdueDuty({ db, leads, log, report });
    const held = () => [...this.working.keys()];
    const abandon = (id: number) => this.abandon(id);
    const beat = heartbeatDuty({
      db,
      identity: this.identity,
      leaseSeconds,
      held,
      abandon,
      elector: this.elector,
      log,
      report,
    });
    this.elector.on('elected', () => {
      this.metrics.setLeader(true);
      log.info({ daemon: this.identity.id }, "this daemon leads the fleet's maintenance");
      this.emit('leader taken');
      for (const duty of [bury, sweep, overdue]) void duty.soon();
    });
    this.elector.on('deposed', (leader) => {
      this.metrics.setLeader(false);
      log.info({ daemon: this.identity.id, leader }, "this daemon no longer leads the fleet's maintenance");
      this.emit('leader lost', leader);
    });
    const { syncCron } = config;
    const claimSoon = () => this.claimSoon();
    // SYNC_CRON, when set, makes every account due at its ticks; else each is due an interval after its last pull.
    const cron = syncCron
      ? [cronDuty({ expression: syncCron, db, elector: this.elector, claimSoon, log, report })]
      : [];
    // The heartbeat last: its first beat, at start, may elect this daemon, which runs the others at once.
    return [bury, sweep, overdue, ...cron, beat];
  }

  get id(): string {
    return this.identity.id;
  }

  /** The clients of the accounts served so far (their gates' stalls are the daemon's health). */
  get accountClients(): readonly InvoicingClient[] {
    return [...this.sessions.values()].map((known) => known.session.client);
  }

  async start(): Promise<void> {
    const { db } = this.app.database;
    // A mirror with no account yet serves `default` (the INVOICING_API_* settings), as one account always did.
    await ensureDefaultAccount(db);
    await registerDaemon(db, this.identity, packageVersion());
    for (const duty of this.duties) await duty.start();
    // A job queued anywhere: its account may be claimed at once, or its pull give way to it.
    const look = () => this.lookForWaitingJobs();
    this.unlisten = await listenFor(this.app.database, 'jobs', look, this.log, look);
    const { accountConcurrency } = this.app.config.fleet;
    if (this.concurrency < accountConcurrency)
      this.log.warn(
        { accountConcurrency, dbPoolSize: this.app.config.dbPoolSize, accountsAtOnce: this.concurrency },
        `DB_POOL_SIZE has room for ${this.concurrency} of ACCOUNT_CONCURRENCY's ${accountConcurrency} accounts at once; set DB_POOL_SIZE to ${minimumPoolSize('daemon', accountConcurrency)} for all`,
      );
    this.log.info({ daemon: this.identity.id, accountsAtOnce: this.concurrency }, 'fleet daemon started');
    this.emit('listening');
  }

  /** Claims now (or once more right after the claim under way). */
  claimSoon(): void {
    if (!this.stopping) void this.claimer.soon();
  }

  /** Claims what is due, as far as this daemon has room (the claim duty's turn). */
  private async claim(): Promise<void> {
    const { db } = this.app.database;
    const { leaseSeconds } = this.app.config.fleet;
    try {
      const free = this.concurrency - this.working.size;
      const claimed = await claimDue(
        db,
        this.identity.id,
        free,
        leaseSeconds,
        [...this.working.keys()],
        this.asideNow(),
      );
      if (this.outageAt !== null) this.afterOutage(this.outageAt);
      if (claimed.length > 0) await this.beginClaimed(claimed);
      // After the claimed work began, so that it does not wait for this read.
      if (claimed.length < free) await this.claimWhenDue();
    } catch (error) {
      this.outageAt ??= performance.now();
      this.log.error({ error: errorMessage(error) }, 'could not claim work; trying again');
    }
  }

  private async beginClaimed(claimed: readonly Claimed[]): Promise<void> {
    const accounts = await accountsWithIds(
      this.app.database.db,
      claimed.map((item) => item.accountId),
    );
    for (const item of claimed) {
      const account = accounts.find((a) => a.id === item.accountId);
      if (account) this.begin(account, item);
    }
    this.emit(
      'claimed',
      claimed.map((item) => item.accountId),
    );
  }

  /**
   * With room left, claims again when the next account falls due if that comes before the next
   * tick: an account due between two ticks waited half a tick on average, which with 1,000
   * accounts every two minutes was most of the pulls' margin (bench/README, issue 46).
   */
  private async claimWhenDue(): Promise<void> {
    const ms = await msUntilNextDue(this.app.database.db, CLAIM_EVERY_MS);
    if (ms === null || this.stopping) return;
    clearTimeout(this.dueTimer);
    // A few milliseconds after: the time is the database's, and the claim compares with its now().
    this.dueTimer = setTimeout(() => this.claimSoon(), ms + 5);
    this.dueTimer.unref();
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
    // A pull done frees its slot for the next due account now, not at the next claim tick (with
    // ticks alone a slot pulls at most once a second). Jobs alone, a pull not run, or a failure
    // wait for the tick: an account whose work cannot start would otherwise be claimed in a loop.
    let pulled = false;
    void this.queue
      .add(async () => {
        pulled = await this.serve(work, claimed);
      })
      .catch((error: unknown) =>
        this.log.error({ account: account.name, error: errorMessage(error) }, 'work on the account failed'),
      )
      .finally(() => {
        if (this.working.get(account.id) === work) this.working.delete(account.id);
        if (pulled) this.claimSoon();
      });
  }

  /** Jobs first, then the pull if it is due; then the account is given back. Whether it pulled. */
  private async serve(work: Work, claimed: Claimed): Promise<boolean> {
    const { account } = work;
    const log = this.log.child({ account: account.name });
    const session = this.sessionOf(account, log);
    // Without a session it is set aside: tried again an interval later, not at every claim.
    if (!session) {
      await release(this.app.database.db, this.identity.id, account.id, 'interval', this.app.config.syncInterval);
      return false;
    }
    const { database, config } = this.app;
    const { client } = session;
    work.runner = sessionRunner(session, config);
    work.runner.on('finished', (job) => this.metrics.recordJob(account.name, job));
    const ran = await work.runner.runUntilEmpty();
    if (ran.refused !== undefined && !hasStoredCredentials(account)) this.putAside(account, refusedLine(account), log);
    let next: 'interval' | 'cron' | 'now' | null = null;
    let pulledForMs = 0;
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
      pulledForMs = performance.now() - began;
      this.metrics.recordSync(account.name, 'sync', pulledForMs, outcome);
      if (outcome.refused && !hasStoredCredentials(account)) this.putAside(account, refusedLine(account), log);
      // Given way to a job or to the others: its turn again at once (behind those waiting). Given
      // way to keep the budget for actions: an interval later, as after a pull.
      next = outcome.gaveWay && !budgetLow ? 'now' : this.app.config.syncCron ? 'cron' : 'interval';
      if (outcome.gaveWay) this.emit('gave way', account.id, outcome.gaveWay);
      await this.parkIfSpent(account, client);
    }
    if (work.stop.signal.aborted) return false;
    await release(database.db, this.identity.id, account.id, next, config.syncInterval, pulledForMs);
    this.emit('released', account.id, next);
    // `next` is set once a pull ran (a pull due but not run, after a refused key, gives it none).
    return next !== null;
  }

  /**
   * A job was queued (a notification says no more, and may be forged): one query for the accounts
   * with a job waiting. One this daemon pulls gives way to it; one nobody holds is claimed now.
   * Notifications that come while it runs are answered by one more look.
   */
  private lookForWaitingJobs(): void {
    this.looks.ask();
  }

  private async lookOnce(): Promise<void> {
    if (this.stopping) return; // nothing to claim for a daemon that stops
    try {
      const waiting = await accountsWithWaitingJobs(this.app.database.db, this.identity.id);
      let unclaimed = false;
      for (const { accountId, heldHere } of waiting) {
        const work = heldHere ? this.working.get(accountId) : undefined;
        if (!work) unclaimed = true;
        else if (work.pulling) work.pulling.jobWaiting = true;
      }
      if (unclaimed) this.claimSoon();
    } catch (error) {
      this.log.warn({ error: errorMessage(error) }, 'could not look for waiting jobs; the next claim will');
    }
  }

  /**
   * After a pull: the account's quota is spent (403), or its budget down to what is kept for
   * actions: parked in the database until it comes back (all its work, or only its pulls), so
   * that no daemon pulls it meanwhile. One warning, where each pull would have failed or given way.
   */
  private async parkIfSpent(account: Account, client: InvoicingClient): Promise<void> {
    const wait = client.pullsWait(this.app.config.fleet.actionReserve);
    if (!wait) return;
    const { until, all, why } = wait;
    const ms = Math.max(1000, until.getTime() - Date.now());
    const reason = all
      ? `${why}; parked until ${until.toISOString()}`
      : `${why}; its pulls are parked until ${until.toISOString()} (its jobs go on)`;
    await park(this.app.database.db, account.id, ms, reason, !all);
    this.log.warn(
      { account: account.name, until, why },
      all
        ? 'quota spent: the account is parked until it comes back'
        : "budget spent: the account's pulls are parked until it comes back (its jobs go on)",
    );
  }

  /**
   * The account's session (its client), made again when its credentials changed (`accounts add`
   * gave it new ones); undefined, with the account set aside, when this daemon cannot serve it:
   * its credentials cannot be had, or its address is another service than its rows come from.
   */
  private sessionOf(account: Account, log: Logger): AccountSession | undefined {
    const from = JSON.stringify([account.api_url, account.api_user, account.api_key]);
    const known = this.sessions.get(account.id);
    if (known?.from === from) return this.servesHere(account, known.session.client, log) ? known.session : undefined;
    if (known) void known.session.client.close();
    this.sessions.delete(account.id);
    try {
      const session = openSession(this.app, account, {
        onAttempt: this.metrics.countAttempts(account.name),
        logger: this.log,
      });
      this.metrics.watch(account.name, session.client);
      this.sessions.set(account.id, { session, from });
      return this.servesHere(account, session.client, log) ? session : undefined;
    } catch (error) {
      // A key the master secret cannot open, missing settings: this account waits, the others go on.
      if (!(error instanceof ConfigError)) throw error;
      this.putAside(account, accountProblem(account, error).message, log);
      return undefined;
    }
  }

  /** Whether the account's rows come from the service the client calls (else it is set aside). */
  private servesHere(account: Account, client: InvoicingClient, log: Logger): boolean {
    if (sameService(account.service_url, client.baseUrl)) return true;
    this.putAside(account, mismatchError(account, account.service_url!, client.baseUrl).message, log);
    return false;
  }

  /** This daemon leaves the account to the others for an interval (one line, not one per claim). */
  private putAside(account: Account, why: string, log: Logger): void {
    this.setAside.set(account.id, performance.now() + this.app.config.syncInterval);
    log.error(
      { error: why, retryInMs: this.app.config.syncInterval },
      'this daemon cannot serve the account; it leaves it to the others and tries again later',
    );
  }

  /** The accounts set aside now (those whose time is up are forgotten). */
  private asideNow(): number[] {
    const now = performance.now();
    for (const [id, until] of this.setAside) if (until <= now) this.setAside.delete(id);
    return [...this.setAside.keys()];
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
    this.emit('abandoned', accountId);
  }

  /** Stops claiming, lets the work in flight finish its page and job, gives every account back. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.dueTimer);
    for (const duty of [...this.duties].reverse()) await duty.stop();
    // The next daemon to ask leads at once, not a lease later.
    await this.elector.resign().catch(() => undefined);
    await this.unlisten?.().catch(() => undefined);
    await this.looks.current;
    for (const work of this.working.values()) {
      work.stop.abort('the daemon stops');
      void work.runner?.stop();
    }
    await this.queue.onIdle();
    await unregisterDaemon(this.app.database.db, this.identity.id).catch(() => undefined);
    await Promise.all([...this.sessions.values()].map((known) => known.session.client.close()));
  }
}
