/**
 * What a command runs with: the validated configuration and an open database whose schema is
 * current (migrated by the commands that migrate, checked by the others).
 */
import type { Config } from './config.js';
import { ConfigError, RunError } from './errors.js';
import { sql } from 'kysely';
import { migrate, openDatabase, schemaProblem, type DatabaseHandle, type DatabaseOptions } from './db/index.js';
import { NoEmbeddedDatabaseError } from './db/embedded-server.js';
import { logger } from './log.js';
import type { InvoicingClient } from './api/index.js';
import type { PullingSession } from './accounts/session.js';
import type { PullSettings } from './sync/index.js';

export interface App {
  config: Config;
  database: DatabaseHandle;
  close(): Promise<void>;
}

export interface DatabaseNeeds {
  /**
   * `always`: the `migrate` command; `auto`: the commands that keep the mirror (sync, backfill,
   * daemon, jobs run) migrate unless AUTO_MIGRATE is off; `never` (default): the schema is only
   * checked, so a role that can only read can run the command. Only commands that migrate create
   * the embedded database; the others say when there is none.
   */
  migrate?: 'always' | 'auto' | 'never';
  /** Every session read-only (the `sql` command). */
  readOnly?: boolean;
  /** The sessions' application_name (a daemon's id, see src/fleet/leases.ts). */
  applicationName?: string;
  /**
   * Called before the mirror is created (no embedded database, or no schema with accounts, yet):
   * a check that throws to create nothing (the credentials its first pull will need).
   */
  beforeCreating?: () => void;
}

export async function openApp(config: Config, needs: DatabaseNeeds = {}): Promise<App> {
  const migrates = needs.migrate === 'always' || (needs.migrate === 'auto' && config.autoMigrate);
  const database = await openMirrorDatabase(
    {
      databaseUrl: config.databaseUrl,
      embeddedDbDir: config.embeddedDbDir,
      embeddedIdleStopMs: config.embeddedDbIdleStop,
      schema: config.schema,
      poolSize: config.dbPoolSize,
      create: needs.migrate === 'always' || needs.migrate === 'auto',
      readOnly: needs.readOnly,
      applicationName: needs.applicationName,
      eventsOnBackfill: config.events.onBackfill,
    },
    needs.beforeCreating,
  );
  try {
    if (needs.beforeCreating && !(await hasAccountsTable(database))) needs.beforeCreating();
    if (migrates) {
      const applied = await migrate(database.db, config.schema);
      if (applied.length > 0) logger.info({ migrations: applied, schema: config.schema }, 'applied migrations');
    } else {
      const problem = await schemaProblem(database.db, config.schema);
      if (problem) {
        const off = needs.migrate === 'auto' ? ' (AUTO_MIGRATE is off)' : '';
        throw new RunError(`${problem} in ${database.location}; run 'invoice-mirror migrate'${off}`);
      }
    }
  } catch (error) {
    await database.close();
    throw error;
  }
  return { config, database, close: () => database.close() };
}

/** Opens the database; an embedded one that is to be created is first shown to `beforeCreating`. */
async function openMirrorDatabase(options: DatabaseOptions, beforeCreating?: () => void): Promise<DatabaseHandle> {
  if (!beforeCreating || options.databaseUrl || options.create === false) return openDatabase(options);
  try {
    return await openDatabase({ ...options, create: false });
  } catch (error) {
    if (!(error instanceof NoEmbeddedDatabaseError)) throw error;
  }
  beforeCreating();
  return openDatabase(options);
}

async function hasAccountsTable(database: DatabaseHandle): Promise<boolean> {
  const { rows } = await sql<{ present: boolean }>`
    select to_regclass(format('%I.accounts', ${database.schema}::text)) is not null as present`.execute(database.db);
  return rows[0]?.present === true;
}

/**
 * The work a command does, by the connections it holds at once for the whole of a step: a sync
 * holds its run lock and, during each request, the service lock; the job runner holds its job lock
 * and the service lock; the daemon does both, one request at a time, and needs one more connection
 * for its other queries (health, metrics, the runner's polling).
 */
const WORK = {
  sync: { name: 'a sync', holds: "a sync lock and one request's service lock", pinned: 2, free: 0 },
  jobs: { name: 'running jobs', holds: "a job lock and one request's service lock", pinned: 2, free: 0 },
  daemon: {
    name: 'the daemon',
    holds: "a sync lock, a job lock and one request's service lock, plus one connection for its other queries",
    pinned: 3,
    free: 1,
  },
} as const;
export type Work = keyof typeof WORK;

/** The smallest DB_POOL_SIZE that cannot deadlock for this work (on `accounts` accounts at once). */
export function minimumPoolSize(work: Work, accounts = 1): number {
  return WORK[work].pinned * accounts + WORK[work].free;
}

/** Refuses, before any work starts, a pool too small for the connections the command holds at once. */
export function checkPoolSize(config: Config, work: Work): void {
  const needed = minimumPoolSize(work);
  if (config.dbPoolSize < needed) {
    throw new ConfigError(
      `DB_POOL_SIZE: ${config.dbPoolSize} is too small for ${WORK[work].name}, which holds ${WORK[work].holds} at once; set it to at least ${needed}`,
    );
  }
}

/**
 * How many accounts a command or a daemon works on at once: each holds its own connections (see
 * WORK), so as many as DB_POOL_SIZE has room for, at most ACCOUNT_CONCURRENCY.
 */
export function accountsAtOnce(config: Config, work: Work, accounts: number): number {
  const room = Math.floor((config.dbPoolSize - WORK[work].free) / WORK[work].pinned);
  return Math.max(1, Math.min(config.fleet.accountConcurrency, accounts, room));
}

/**
 * The settings of an account's pull from the configuration. Pages are written two at a time on
 * their own connections when the pool has room beside what the command holds (for `atOnce`
 * accounts), else on the run's own connection. `allowDeletes` (from `--allow-deletes`) adds to
 * the ALLOW_DELETES setting.
 */
export function pullSettings(
  app: App,
  {
    allowDeletes = [],
    work = 'sync',
    atOnce = 1,
  }: { allowDeletes?: string[] | 'all'; work?: Work; atOnce?: number } = {},
): PullSettings {
  const { deletes } = app.config;
  const allow = deletes.allow === 'all' || allowDeletes === 'all' ? 'all' : [...deletes.allow, ...allowDeletes];
  return {
    writeConcurrency: Math.max(1, Math.min(2, app.config.dbPoolSize - minimumPoolSize(work) * atOnce)),
    deletes: { ...deletes, allow },
    reconcileAfterHours: app.config.reconcileIntervalHours,
  };
}

/** The session of an account pulled through `client` (its own), for a pull started here. */
export function pullSession(app: App, client: InvoicingClient, account: { id: number; name: string }): PullingSession {
  return {
    account: { id: account.id, name: account.name },
    db: app.database.db,
    schema: app.config.schema,
    client,
    log: logger.child({ account: account.name }),
  };
}
