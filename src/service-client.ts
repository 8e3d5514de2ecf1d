/**
 * The client of the invoicing service a command uses, built from the settings. Apart from app.ts
 * so that commands that never call the service do not load the HTTP client.
 */
import { InvoicingClient, type ClientOptions } from './api/index.js';
import type { App } from './app.js';
import { apiCredentials } from './config.js';
import { serviceLock } from './db/index.js';
import { logger } from './log.js';

/**
 * The one client of the process for the configured account (see src/api). Its requests hold the
 * mirror's service lock, so processes sharing the database never call the service at once.
 */
export function createApiClient(
  app: Pick<App, 'config' | 'database'>,
  extra: Pick<ClientOptions, 'onAttempt'> = {},
): InvoicingClient {
  const { config } = app;
  const { user, apiKey } = apiCredentials(config);
  return new InvoicingClient({
    baseUrl: config.api.url,
    user,
    apiKey,
    pageSize: config.api.pageSize,
    requestsPerHour: config.api.requestsPerHour,
    timeoutMs: config.api.timeoutMs,
    sendMsPerInvoice: config.api.sendMsPerInvoice,
    rateLimitPauseMs: config.api.rateLimitPauseMs,
    maxRetries: config.api.maxRetries,
    exclusive: serviceLock(app.database),
    logger,
    ...extra,
  });
}
