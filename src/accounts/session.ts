/**
 * One account as a process works on it: which account it is, and what every piece of work on it
 * goes through (the database, the account's own client, a logger bound to the account). Made by
 * `openSession`, the one builder of a session from an account's row (the accounts themselves come
 * from the one resolver, resolve.ts); the sync engine, jobs, reports and the console take a session
 * instead of a loose account id beside a database and a logger.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ClientOptions, InvoicingClient } from '../api/client.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { oneAccount, type AccountScope } from '../db/scope.js';
import { logger as programLogger } from '../log.js';
import { accountLogger, createApiClient } from '../service-client.js';
import { hasStoredCredentials, type Account } from './store.js';

/** The account itself, as work on it needs it (not its row: no credentials). */
export interface AccountIdentity {
  readonly id: number;
  readonly name: string;
}

export interface AccountSession {
  readonly account: AccountIdentity;
  /** The mirror's database (every row read or written through the session is the account's). */
  readonly db: Kysely<Database>;
  /** The mirror's schema. */
  readonly schema: string;
  /** The account's own client: its credentials, rate gate, hourly budget and quota pause. */
  readonly client: InvoicingClient;
  /** Bound to the account (`{ account: name }`) once, here. */
  readonly log: Logger;
  /** The open database behind `db`: its locks and NOTIFY channels (the job runner's). */
  readonly database: DatabaseHandle;
  /**
   * Whether the account's credentials are its own (a sealed key): then a 401 refuses the account
   * for every process. Without (`default`) they are this process's INVOICING_API_* settings.
   */
  readonly ownKey: boolean;
  /** What reads for the account cover (its rows only): for the reports' and the console's queries. */
  readonly scope: AccountScope;
}

/**
 * What a pull needs of a session: the sync engine reads no more, so a pull may be run with a
 * client made elsewhere (a test's, the sandbox's) as well as through openSession.
 */
export type PullingSession = Pick<AccountSession, 'account' | 'db' | 'schema' | 'client' | 'log'>;

/** What a session is opened from: the settings and the open mirror (an App has both). */
export interface SessionSource {
  readonly config: Config;
  readonly database: DatabaseHandle;
}

export interface SessionOptions {
  /** The logger the session's is bound from (default: the program's). */
  logger?: Logger;
  /** Told of every request attempt of the account's client (the daemon's metrics). */
  onAttempt?: ClientOptions['onAttempt'];
}

/**
 * The session of one account: its own client (createApiClient: a ConfigError when its credentials
 * cannot be had) and its logger, bound to the account once. Closing the session's client is the
 * caller's (`session.client.close()`).
 */
export function openSession(from: SessionSource, account: Account, options: SessionOptions = {}): AccountSession {
  const log = accountLogger(options.logger ?? programLogger, account);
  const client = createApiClient(from, account, {
    logger: log,
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
  });
  return {
    account: { id: account.id, name: account.name },
    db: from.database.db,
    schema: from.config.schema,
    client,
    log,
    database: from.database,
    ownKey: hasStoredCredentials(account),
    scope: oneAccount(account.id),
  };
}
