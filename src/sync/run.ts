/**
 * A sync run: pulls each entity through the client, merges page by page, sweeps deletes after a
 * complete pull (with the delete safeguard), and records the run in `sync_runs`. A run pulls one
 * account; one run at a time per account, across processes (a session advisory lock held for the
 * whole run).
 *
 * Statuses: `succeeded` when every entity was pulled completely and stored exactly; `partial`
 * when some were not (an error, the rate limit, held deletes, values not stored as sent, a stop
 * request); `failed` when none was and nothing was written. One entity's failure does not stop
 * the others; only a spent quota, refused credentials or an unreachable service end the run.
 */
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { InvoicingClient } from '../api/index.js';
import { ENTITY_NAMES, type EntityName } from '../catalog/index.js';
import {
  ABANDONED_PULL,
  closeOrphanedRuns,
  closeRunIfRunning,
  finishRun,
  lockKey,
  recordPendingRunEnds,
  recordRunEnd,
  recordRunProgress,
  startRun,
  type Database,
  type EntityCounts,
  type SyncRunStatus,
} from '../db/index.js';
import { RunError, errorMessage, isConnectionLost } from '../errors.js';
import { logger as defaultLogger } from '../log.js';
import { DEFINITIONS, type EntityDefinition } from './entities.js';
import {
  prepareEntityPull,
  readEntity,
  type EntityPullResult,
  type PreparedPull,
  type PullContext,
  type ReadPull,
} from './entity-pull.js';
import { DEFAULT_RECONCILE_HOURS } from './incremental.js';
import { passUnderWay } from './resume.js';
import type { DeletePolicy } from './safeguard.js';

export interface SyncDeps {
  db: Kysely<Database>;
  /** The account pulled; `client` is that account's. */
  accountId: number;
  client: InvoicingClient;
  schema: string;
  logger?: Logger;
  /**
   * Pages written at the same time, each in its own transaction on its own connection (default
   * 1). Postgres parses and stores a page on one core; two let a second core work while the
   * next page is fetched.
   */
  writeConcurrency?: number;
  /** The delete safeguard's settings (default: DEFAULT_DELETE_POLICY with the options' allowDeletes). */
  deletes?: DeletePolicy;
  /** Hours after which a sync pulls an incremental entity in full again (default 24). */
  reconcileAfterHours?: number;
}

export interface SyncProgress {
  entity: EntityName;
  /** Records received so far for this entity. */
  fetched: number;
  /** List pages received so far. */
  pages: number;
  /**
   * The records expected: the live rows the last complete pull left, for a full pull of an entity
   * pulled completely before; null when not known (a first pull, an incremental one).
   */
  expected: number | null;
  /** Time since this entity's pull began. */
  elapsedMs: number;
  /**
   * `pulling` until the entity's pull is over; `done` when its list was read to the end,
   * `stopped` when Ctrl-C (or SIGTERM) stopped it after a page, else `failed`.
   */
  state: 'pulling' | 'done' | 'stopped' | 'failed';
}

export interface SyncOptions {
  kind: 'backfill' | 'sync';
  /** Default: every entity. */
  entities?: readonly EntityName[];
  /** Records per list request (default: the client's). */
  pageSize?: number;
  onProgress?: (progress: SyncProgress) => void;
  /**
   * Aborting stops the run after the page being written. The run is marked `interrupted` at once
   * (so `status` tells the truth even if the process is then killed) and ends so, unless every
   * entity had completed.
   */
  signal?: AbortSignal;
  /** Entities whose deletes are applied however many (when `deps.deletes` is not given). */
  allowDeletes?: string[] | 'all';
  /** A full, reconciling pull of the incremental entities (a backfill always is one). */
  full?: boolean;
  /**
   * Asked after each page of a full pull: a reason to give way (the daemon's slice is over, a job
   * is waiting), or null to go on. Giving way ends the run after that page; the entity's pass goes
   * on from there at the next pull (resume.ts).
   */
  giveWay?: () => string | null;
}

/** What a run records per entity in `sync_runs.counts`. */
export interface RunEntityCounts extends EntityCounts {
  restored: number;
  /** Records found missing upstream whose delete is held (the delete safeguard). */
  held: number;
  /** Values not stored as sent (rejected, repaired, or their record skipped); see `rejected_values`. */
  rejected: number;
}

export interface EntityOutcome extends RunEntityCounts {
  complete: boolean;
  /** Set when only what could have changed was pulled (see incremental.ts). */
  incremental?: boolean;
  error?: string;
}

type Outcomes = Partial<Record<EntityName, EntityOutcome>>;

export interface SyncOutcome {
  runId: number;
  status: SyncRunStatus;
  entities: Outcomes;
  requestsMade: number;
  error: string | null;
  /** The service refused the account's credentials (401): the account is to be marked `refused`. */
  refused: boolean;
  /** Why the run gave way before its pass was over (options.giveWay); the next run goes on with it. */
  gaveWay: string | null;
}

/** Thrown when another process is running a sync or backfill of the same account. */
export class SyncBusyError extends RunError {
  constructor() {
    super('another sync or backfill of this account is running; try again when it has finished');
  }
}

export async function runSync(deps: SyncDeps, options: SyncOptions): Promise<SyncOutcome> {
  const log = deps.logger ?? defaultLogger;
  const wanted = options.entities ?? ENTITY_NAMES;
  const definitions = DEFINITIONS.filter((e) => wanted.includes(e.name));

  const { accountId } = deps;
  const lock = lockKey(deps.schema, 'sync', accountId);
  // The lock is a session lock, so the whole run stays on one connection.
  return deps.db.connection().execute(async (db) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${lock}) as locked`.execute(db);
    if (!rows[0]?.locked) throw new SyncBusyError();
    try {
      // We hold the lock, so no run still marked running goes on: first record the true ends of
      // this process's runs the database did not take, then close what other processes left.
      await recordPendingRunEnds(db);
      await closeOrphanedRuns(db, accountId, ['backfill', 'sync'], ABANDONED_PULL);
      const runId = await startRun(
        db,
        accountId,
        options.kind,
        definitions.map((d) => d.name),
      );
      const markInterrupted = () => {
        void closeRunIfRunning(deps.db, runId, 'interrupted', interruptedMessage(options.signal)).catch(
          (error: unknown) => log.warn({ runId, error: errorMessage(error) }, 'could not mark the run interrupted'),
        );
      };
      options.signal?.addEventListener('abort', markInterrupted, { once: true });
      try {
        const pass = await passUnderWay(db, accountId, deps.reconcileAfterHours ?? DEFAULT_RECONCILE_HOURS);
        return await pullAll({ db, accountId, deps, options, runId, log, pass }, definitions);
      } catch (error) {
        // The run's own connection failed (the database restarted, the backend was ended) or the
        // database refused a write (a full disk): the pull stops, and the run is marked failed
        // through another connection of the pool, as soon as the database takes the write.
        const message = isConnectionLost(error)
          ? `the database connection was lost: ${errorMessage(error)}`
          : `the pull stopped: ${errorMessage(error)}`;
        log.error({ runId, error: errorMessage(error) }, 'sync run failed');
        if (!(await recordRunEnd(deps.db, runId, 'failed', message)))
          log.warn({ runId }, 'could not mark the run failed yet; trying again in the background');
        throw new RunError(`run ${runId} failed: ${message}`);
      } finally {
        options.signal?.removeEventListener('abort', markInterrupted);
      }
    } finally {
      // A lost connection took the lock with it.
      await sql`select pg_advisory_unlock(${lock})`.execute(db).catch(() => undefined);
    }
  });
}

/** The run's story: each entity pulled in turn (until the run is stopped), then the run's end recorded. */
async function pullAll(context: PullContext, everyDefinition: readonly EntityDefinition[]): Promise<SyncOutcome> {
  const { db, deps, options, runId, log } = context;
  const requestsAtStart = deps.client.requestsMade;
  const outcomes: Outcomes = {};
  let stopReason: string | null = null;
  let refused = false;
  let gaveWay: string | null = null;
  const definitions = stillToPull(context, everyDefinition);
  log.info({ runId, kind: options.kind, entities: definitions.map((d) => d.name) }, 'sync run started');

  // The next entity's pull is planned and its first page asked for as soon as this one has read
  // what it reads from the service, while it is written; and, when its reading leaves the run's
  // connection alone (see ReadPull.concludesAside), read while this one concludes (sweeps, records
  // its pull) on the run's connection. So the service is asked for pages while the mirror
  // concludes, rather than waiting for it, and one conclusion runs at a time, in entity order.
  let prepared: Promise<PreparedPull | undefined> | undefined;
  let concluding: { definition: EntityDefinition; result: Promise<EntityPullResult> } | undefined;
  const record = async (definition: EntityDefinition, pulled: EntityPullResult) => {
    const { outcome, stopRun } = pulled;
    refused ||= pulled.refused;
    outcomes[definition.name] = outcome;
    if (stopRun) stopReason = outcome.error ?? 'stopped';
    if (pulled.gaveWay) {
      gaveWay = pulled.gaveWay;
      stopReason = `gave way (${gaveWay}); the next run goes on where this one stopped`;
    }
    await recordRunProgress(db, runId, countsOf(outcomes), deps.client.requestsMade - requestsAtStart);
  };
  /** Waits for the entity concluding aside, and records it. */
  const concluded = async () => {
    if (!concluding) return;
    const { definition, result } = concluding;
    concluding = undefined;
    await record(definition, await result);
  };
  try {
    for (const [index, definition] of definitions.entries()) {
      if (options.signal?.aborted) stopReason ??= 'stopped before it finished';
      if (stopReason) break;
      const next = definitions[index + 1];
      const ahead = await prepared;
      prepared = undefined;
      const prepareNext = () => {
        if (next && !options.signal?.aborted)
          prepared ??= prepareEntityPull(context, next).catch((error: unknown) => {
            log.warn({ entity: next.name, error: errorMessage(error) }, 'could not plan the next entity ahead');
            return undefined;
          });
      };
      let read = await readEntity(context, definition, { prepared: ahead, onRequestsDone: prepareNext });
      // The entity before failed to conclude: the run fails, once this one's last pages are stored.
      await concluded().catch(async (error: unknown) => {
        await read.stored;
        throw error;
      });
      if (read.connectionLost && !options.signal?.aborted)
        read = await readAgain(context, definition, read, prepareNext);
      // Read to its end and nothing to stop for: the next entity is read while this one concludes.
      if (read.concludesAside && !read.stopRun && !read.gaveWay && !stopReason && next) {
        const result = read.conclude();
        result.catch(() => {}); // awaited by concluded(), after the next entity's reading
        concluding = { definition, result };
      } else await record(definition, await read.conclude());
    }
  } finally {
    // A failure elsewhere (the run fails): a conclusion under way is let finish first.
    if (concluding) await concluding.result.catch(() => {});
  }
  await concluded();
  // A pull planned ahead and not run (the run stopped): its plan is let finish.
  await prepared;

  const { status, error } = runEnd(outcomes, definitions.length, stopReason, options.signal, gaveWay !== null);
  const requestsMade = deps.client.requestsMade - requestsAtStart;
  await finishRun(db, runId, {
    status,
    error,
    counts: countsOf(outcomes),
    requestsMade,
    rateLimitRemaining: deps.client.rateLimitRemaining,
  });
  log.info({ runId, status, requestsMade, counts: countsOf(outcomes), error }, 'sync run finished');
  return { runId, status, entities: outcomes, requestsMade, error, refused, gaveWay };
}

/**
 * The entities this run pulls: while a pass of the account is under way (a pull gave way, or was
 * stopped, before the end of its list), the ones it completed since it began are not pulled
 * again, so that a pass given way in slices reads every entity once.
 */
function stillToPull(
  { pass, log }: PullContext,
  definitions: readonly EntityDefinition[],
): readonly EntityDefinition[] {
  if (!pass) return definitions;
  const left = definitions.filter((d) => pass.cursors.has(d.name) || !pass.completed.has(d.name));
  if (left.length < definitions.length)
    log.info(
      { done: definitions.filter((d) => !left.includes(d)).map((d) => d.name), since: pass.startedAt },
      'going on with the pass under way: the entities it completed are not pulled again',
    );
  return left.length > 0 ? left : definitions;
}

/**
 * After a reading that lost a pooled connection (an ended backend, a restart) on one statement:
 * concludes it, and reads the entity again on fresh connections. Its pages are upserts, so what
 * was written stays right; the counts of both pulls add up.
 */
async function readAgain(
  context: PullContext,
  definition: EntityDefinition,
  first: ReadPull,
  onRequestsDone: () => void,
): Promise<ReadPull> {
  const firstResult = await first.conclude();
  context.log.warn(
    { entity: definition.name, error: firstResult.outcome.error },
    'lost a database connection; pulling the entity again',
  );
  const again = await readEntity(context, definition, { onRequestsDone });
  return {
    ...again,
    conclude: async () => {
      const result = await again.conclude();
      for (const count of ['inserted', 'updated', 'restored', 'deleted', 'rejected'] as const)
        result.outcome[count] += firstResult.outcome[count];
      return result;
    },
  };
}

/** The run's status and error, from its entities' outcomes. */
function runEnd(
  outcomes: Outcomes,
  wanted: number,
  stopReason: string | null,
  signal: AbortSignal | undefined,
  /** It gave way: its pass goes on at the next run, which is no failure even if it changed nothing. */
  gaveWay = false,
): { status: SyncRunStatus; error: string | null } {
  const results = Object.values(outcomes) as EntityOutcome[];
  const completed = results.filter((o) => o.complete).length;
  const changedAnything = results.some((o) => o.inserted + o.updated + o.deleted > 0);
  const interrupted = signal?.aborted === true && completed < wanted;
  const status: SyncRunStatus = interrupted
    ? 'interrupted'
    : completed === wanted
      ? 'succeeded'
      : completed === 0 && !changedAnything && !gaveWay
        ? 'failed'
        : 'partial';
  // An interrupted run's own errors are the requests cut short by the interrupt: not worth saying.
  const errors = interrupted
    ? [
        `${interruptedMessage(signal)}; ${completed} of ${wanted} entities were pulled completely (${completedNames(outcomes) || 'none'})`,
      ]
    : results.filter((o) => o.error).map((o) => o.error!);
  if (stopReason && !interrupted && !errors.includes(stopReason)) errors.push(stopReason);
  return { status, error: errors.length > 0 ? errors.join('; ') : null };
}

function countsOf(outcomes: Outcomes): Record<string, RunEntityCounts> {
  return Object.fromEntries(
    Object.entries(outcomes).map(([name, o]) => [
      name,
      {
        fetched: o!.fetched,
        inserted: o!.inserted,
        updated: o!.updated,
        restored: o!.restored,
        deleted: o!.deleted,
        unchanged: o!.unchanged,
        held: o!.held,
        rejected: o!.rejected,
      },
    ]),
  );
}

function completedNames(outcomes: Outcomes): string {
  return Object.entries(outcomes)
    .filter(([, outcome]) => outcome!.complete)
    .map(([name]) => name)
    .join(', ');
}

function interruptedMessage(signal: AbortSignal | undefined): string {
  const reason = typeof signal?.reason === 'string' ? ` (${signal.reason})` : '';
  return `interrupted${reason}: stopped after the page being written; running the command again pulls again, keeping what was written`;
}
