/**
 * What a command runs with: the validated configuration and an open, migrated database.
 */
import { InvoicingClient } from './api/index.js';
import { apiCredentials, type Config } from './config.js';
import { ConfigError } from './errors.js';
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
 * The work a command does, by the connections it holds at once for the whole of a step: a sync
 * holds its run lock and, during each request, the service lock; the job runner holds its job lock
 * and the service lock; the daemon does both, one request at a time, and needs one more connection
 * for its other queries (health, metrics, the runner's polling).
 */
const PINNED = { sync: 2, jobs: 2, daemon: 3 } as const;
const FREE = { sync: 0, jobs: 0, daemon: 1 } as const;
export type Work = keyof typeof PINNED;

/** The smallest DB_POOL_SIZE that cannot deadlock for this work. */
export function minimumPoolSize(work: Work): number {
  return PINNED[work] + FREE[work];
}

/** Refuses, before any work starts, a pool too small for the connections the command holds at once. */
export function checkPoolSize(config: Config, work: Work): void {
  if (config.databaseUrl === undefined) return; // the embedded database is one connection, shared
  const needed = minimumPoolSize(work);
  if (config.dbPoolSize < needed) {
    const holds =
      work === 'daemon'
        ? "a sync lock, a job lock and one request's service lock, plus one connection for its other queries"
        : work === 'jobs'
          ? "a job lock and one request's service lock"
          : "a sync lock and one request's service lock";
    throw new ConfigError(
      `DB_POOL_SIZE: ${config.dbPoolSize} is too small for ${work === 'daemon' ? 'the daemon' : work === 'jobs' ? 'running jobs' : 'a sync'}, which holds ${holds} at once; set it to at least ${needed}`,
    );
  }
}

/**
 * What the sync engine needs. Pages are written two at a time on their own connections when the
 * pool has room beside what the command holds, else on the run's own connection; one on the
 * single-connection embedded database. `allowDeletes` (from `--allow-deletes`) adds to the
 * ALLOW_DELETES setting.
 */
export function syncDeps(
  app: App,
  client: InvoicingClient,
  allowDeletes: string[] | 'all' = [],
  work: Work = 'sync',
): SyncDeps {
  const { deletes } = app.config;
  const allow = deletes.allow === 'all' || allowDeletes === 'all' ? 'all' : [...deletes.allow, ...allowDeletes];
  return {
    db: app.database.db,
    client,
    schema: app.config.schema,
    logger,
    writeConcurrency:
      app.database.kind === 'postgres'
        ? Math.max(1, Math.min(2, app.config.dbPoolSize - PINNED[work] - FREE[work]))
        : 1,
    deletes: { ...deletes, allow },
  };
}
