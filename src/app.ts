/**
 * What a command runs with: the validated configuration and an open, migrated database.
 */
import { InvoicingClient } from './api/index.js';
import { apiCredentials, type Config } from './config.js';
import { migrate, openDatabase, serviceLock, type DatabaseHandle } from './db/index.js';
import { logger } from './log.js';
import type { SyncDeps } from './sync/run.js';

export interface App {
  config: Config;
  database: DatabaseHandle;
  close(): Promise<void>;
}

/** Opens the database and applies pending migrations (every command migrates first). */
export async function openApp(config: Config): Promise<App> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    embeddedDbDir: config.embeddedDbDir,
    schema: config.schema,
    poolSize: config.dbPoolSize,
  });
  try {
    const applied = await migrate(database.db, config.schema);
    if (applied.length > 0) logger.info({ migrations: applied, schema: config.schema }, 'applied migrations');
  } catch (error) {
    await database.close();
    throw error;
  }
  return { config, database, close: () => database.close() };
}

/**
 * The one client of the process for the configured account (see src/api). Its requests hold the
 * mirror's service lock, so processes sharing the database never call the service at once.
 */
export function createApiClient(app: Pick<App, 'config' | 'database'>): InvoicingClient {
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
  });
}

/**
 * What the sync engine needs; two page writers on Postgres, one on the single-connection embedded
 * database. `allowDeletes` (from `--allow-deletes`) adds to the ALLOW_DELETES setting.
 */
export function syncDeps(app: App, client: InvoicingClient, allowDeletes: string[] | 'all' = []): SyncDeps {
  const { deletes } = app.config;
  const allow = deletes.allow === 'all' || allowDeletes === 'all' ? 'all' : [...deletes.allow, ...allowDeletes];
  return {
    db: app.database.db,
    client,
    schema: app.config.schema,
    logger,
    writeConcurrency: app.database.kind === 'postgres' ? 2 : 1,
    deletes: { ...deletes, allow },
  };
}
