/**
 * The daemon's pulls of one account: one at a time (a pull asked for while one runs is skipped), stopped by the
 * daemon's signal, and pulled again as soon as the database answers when a pull lost it (a
 * restart, a full disk), rather than leaving the mirror stale and health failed until the next
 * scheduled sync.
 */
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { InvoicingClient } from '../api/index.js';
import type { App } from '../app.js';
import { pullAccount } from '../accounts/pull.js';
import type { Account } from '../accounts/store.js';
import { errorMessage } from '../errors.js';
import { SyncBusyError } from '../sync/index.js';
import type { DaemonMetrics } from './metrics.js';

/** How often the daemon asks whether the database answers again after a pull lost it. */
const CATCH_UP_RETRY_MS = 2000;

export class SyncDriver {
  private current: Promise<void> | null = null;
  private stopping = false;
  private catchUp: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly app: App,
    private readonly account: Account,
    private readonly client: InvoicingClient,
    private readonly metrics: DaemonMetrics,
    private readonly log: Logger,
    /** Told when the service refused the account's key: its work stops. */
    private readonly onRefused: () => void,
    /** Accounts pulled at the same time (for the connections each pull may use). */
    private readonly atOnce = 1,
  ) {}

  /** Starts a pull unless one is running (then resolves when that one ends). */
  sync(reason: string): Promise<void> {
    if (this.current || this.stopping) {
      if (this.current) this.log.info({ reason }, 'sync skipped: the previous one is still running');
      return this.current ?? Promise.resolve();
    }
    const began = performance.now();
    const { app, account, client } = this;
    const options = { kind: 'sync' as const, signal: this.abort.signal };
    this.current = pullAccount(app, { account, client, options, work: 'daemon', atOnce: this.atOnce })
      .then((outcome) => {
        this.metrics.recordSync(this.account.name, 'sync', performance.now() - began, outcome);
        if (outcome.refused) this.onRefused();
      })
      .catch((error: unknown) => {
        if (error instanceof SyncBusyError) return this.log.info('sync skipped: another process is running one');
        this.log.error({ error: errorMessage(error) }, 'sync failed');
        this.syncWhenDatabaseAnswers();
      })
      .finally(() => {
        this.current = null;
      });
    return this.current;
  }

  /** Stops taking pulls, interrupts the one running (after its page) and resolves when it ended. */
  stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    clearTimeout(this.catchUp);
    return this.current ?? Promise.resolve();
  }

  private syncWhenDatabaseAnswers(): void {
    if (this.stopping || this.catchUp) return;
    this.catchUp = setTimeout(async () => {
      this.catchUp = undefined;
      if (this.stopping) return;
      const answers = await sql`select 1`.execute(this.app.database.db).then(
        () => true,
        () => false,
      );
      if (answers) void this.sync('the database answers again');
      else this.syncWhenDatabaseAnswers();
    }, CATCH_UP_RETRY_MS);
  }
}
