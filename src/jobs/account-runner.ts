/**
 * The runner of one account as the commands and the daemon start it: the account's own client
 * (its credentials, rate gate, hourly budget and quota pause) and a JobRunner for its jobs.
 */
import type { Logger } from 'pino';
import type { ClientOptions, InvoicingClient } from '../api/index.js';
import type { Account } from '../accounts/store.js';
import type { App } from '../app.js';
import { createApiClient } from '../service-client.js';
import type { Backoff } from './outcome.js';
import { JobRunner } from './runner.js';

export interface AccountRunnerOptions {
  logger?: Logger;
  /** Retry delays (default: DEFAULT_BACKOFF). */
  backoff?: Backoff;
  /** Told of every request attempt of the account's client (the daemon's metrics). */
  onAttempt?: ClientOptions['onAttempt'];
}

export interface AccountRunner {
  readonly account: Account;
  readonly runner: JobRunner;
  /** The account's client; `close()` closes it. */
  readonly client: InvoicingClient;
  /** Stops the runner (the job in progress finishes), then closes the client. */
  close(): Promise<void>;
}

/**
 * A runner of the account's jobs, not started: `runner.start()` runs jobs as they come,
 * `runner.runUntilEmpty()` drains the queue. A ConfigError when the account's credentials cannot
 * be had (no ACCOUNTS_SECRET for a stored key, no INVOICING_API_* for `default`).
 */
export function createAccountRunner(
  app: Pick<App, 'config' | 'database'>,
  account: Account,
  options: AccountRunnerOptions = {},
): AccountRunner {
  const client = createApiClient(app, account, {
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const runner = new JobRunner({
    database: app.database,
    account,
    client,
    config: app.config,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.backoff ? { backoff: options.backoff } : {}),
  });
  return {
    account,
    runner,
    client,
    async close() {
      await runner.stop();
      await client.close();
    },
  };
}
