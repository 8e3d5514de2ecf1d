/**
 * The runner of one account as the commands and the daemon start it: a JobRunner for the jobs of an
 * account's session (src/accounts/session.ts: its own client, its bound logger). The commands open
 * a session per run (`createAccountRunner`); the daemon keeps each account's session from one claim
 * to the next and makes a runner of it per claim (`sessionRunner`), the same way.
 */
import type { Logger } from 'pino';
import type { ClientOptions, InvoicingClient } from '../api/index.js';
import { openSession, type AccountSession, type SessionSource } from '../accounts/session.js';
import type { Account } from '../accounts/store.js';
import type { Config } from '../config.js';
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
  readonly session: AccountSession;
  readonly runner: JobRunner;
  /** The account's client (the session's); `close()` closes it. */
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
  app: SessionSource,
  account: Account,
  options: AccountRunnerOptions = {},
): AccountRunner {
  const session = openSession(app, account, {
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const runner = sessionRunner(session, app.config, options.backoff);
  return {
    account,
    session,
    runner,
    client: session.client,
    async close() {
      await runner.stop();
      await session.client.close();
    },
  };
}

/** A runner of the session's account's jobs, not started; the session's client stays open after it. */
export function sessionRunner(session: AccountSession, config: Config, backoff?: Backoff): JobRunner {
  return new JobRunner({
    database: session.database,
    account: { ...session.account, ownKey: session.ownKey },
    client: session.client,
    config,
    logger: session.log,
    ...(backoff ? { backoff } : {}),
  });
}
