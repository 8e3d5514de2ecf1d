/**
 * The client of the invoicing service for one account, built from the account's row and the
 * settings. Apart from app.ts so that commands that never call the service do not load the HTTP
 * client.
 */
import type { Logger } from 'pino';
import { InvoicingClient, type ClientOptions } from './api/index.js';
import { credentialsOf, type Account } from './accounts/store.js';
import type { Config } from './config.js';
import { serviceLock, type DatabaseHandle } from './db/index.js';
import { logger as defaultLogger } from './log.js';

/**
 * The client of one account (see src/api). Each account has its own: its own request queue, rate
 * gate, hourly budget and quota pause, since the service counts and pauses each account apart.
 * Its requests hold the account's service lock, so processes sharing the database never call the
 * service for the same account at once (other accounts' calls go on). Its log lines name the
 * account. A ConfigError when the account's credentials cannot be had (see credentialsOf).
 */
export function createApiClient(
  app: { readonly config: Config; readonly database: DatabaseHandle },
  account: Account,
  extra: Pick<ClientOptions, 'onAttempt' | 'logger'> = {},
): InvoicingClient {
  const { config } = app;
  const { baseUrl, user, apiKey } = credentialsOf(account, config);
  return new InvoicingClient({
    baseUrl,
    user,
    apiKey,
    pageSize: config.api.pageSize,
    requestsPerHour: config.api.requestsPerHour,
    timeoutMs: config.api.timeoutMs,
    sendMsPerInvoice: config.api.sendMsPerInvoice,
    rateLimitPauseMs: config.api.rateLimitPauseMs,
    maxRetries: config.api.maxRetries,
    exclusive: serviceLock(app.database, account.id),
    ...extra,
    logger: accountLogger(extra.logger ?? defaultLogger, account),
  });
}

/**
 * The logger with the account's name bound, unless it is bound already (the daemon binds it once
 * for all of an account's work; a second binding would repeat the key in every line).
 */
export function accountLogger(base: Logger, account: Pick<Account, 'name'>): Logger {
  return base.bindings().account === account.name ? base : base.child({ account: account.name });
}
