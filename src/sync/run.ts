/**
 * A sync run: pulls each entity through the client, merges page by page, sweeps deletes after a
 * complete pull, and records the run in `sync_runs`. One run at a time per mirror, across
 * processes (a session advisory lock held for the whole run).
 *
 * Statuses: `succeeded` when every entity was pulled completely; `partial` when some were not
 * (an error, the rate limit, unreadable records, a stop request); `failed` when none was.
 */
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { InvoicingClient } from '../api/index.js';
import { ApiError, AuthenticationError, NetworkError, RateLimitedError } from '../api/errors.js';
import type { EntityCounts, SyncRunStatus } from '../../migrations/0001_core.js';
import { jsonb, lockKey, type Database } from '../db/index.js';
import { RunError, errorMessage } from '../errors.js';
import { logger as defaultLogger } from '../log.js';
import {
  ENTITIES,
  identify,
  toStagedRow,
  type EntityDefinition,
  type MirrorTable,
  type RecordIdentity,
  type StagedRow,
} from './entities.js';
import {
  keysToMerge,
  preparePage,
  sweepDeleted,
  touchSeen,
  writePage,
  type PreparedPage,
  type WriteMode,
} from './merge.js';

/** A record as the client parsed it: typed fields under their spec names, plus `raw`. */
type ParsedRecord = Record<string, unknown>;

export interface SyncDeps {
  db: Kysely<Database>;
  client: InvoicingClient;
  schema: string;
  logger?: Logger;
  /**
   * Pages written at the same time, each in its own transaction on its own connection (default
   * 1). Postgres parses and stores a page on one core; two let a second core work while the
   * next page is fetched. Must be 1 on the embedded database, which has a single connection.
   */
  writeConcurrency?: number;
}

export interface SyncProgress {
  entity: MirrorTable;
  /** Records received so far for this entity. */
  fetched: number;
  /** Time since this entity's pull began. */
  elapsedMs: number;
  done: boolean;
}

export interface SyncOptions {
  kind: 'backfill' | 'sync';
  /** Default: every entity. */
  entities?: readonly MirrorTable[];
  /** Records per list request (default: the client's). */
  pageSize?: number;
  onProgress?: (progress: SyncProgress) => void;
  /** Aborting stops the run after the page being written; the run ends `partial`. */
  signal?: AbortSignal;
}

export interface EntityOutcome extends EntityCounts {
  restored: number;
  complete: boolean;
  error?: string;
}

export interface SyncOutcome {
  runId: number;
  status: SyncRunStatus;
  entities: Partial<Record<MirrorTable, EntityOutcome>>;
  requestsMade: number;
  error: string | null;
}

/** Thrown when another process is running a sync or backfill on the same mirror. */
export class SyncBusyError extends RunError {
  constructor() {
    super('another sync or backfill is running on this mirror; try again when it has finished');
  }
}

/** SQLSTATE of a deadlock: two page writes that shared a key (a record listed twice). */
const DEADLOCK_DETECTED = '40P01';

/**
 * Runs one page's single-statement write (atomic on its own). The statements commit without
 * waiting for the WAL flush: a crash of the database server could lose the last pages, and the
 * next pull writes them again (a lost sweep is redone too), so a flush per page buys nothing.
 * A deadlock with another page is retried once.
 */
async function writeOnce<T>(work: () => Promise<T>, retried = false): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!retried && (error as { code?: string }).code === DEADLOCK_DETECTED) return writeOnce(work, true);
    throw error;
  }
}

/** How often an unchanged row's `last_seen_at` is refreshed (see touchSeen). */
const LAST_SEEN_RESOLUTION_HOURS = 24;

export async function runSync(deps: SyncDeps, options: SyncOptions): Promise<SyncOutcome> {
  const log = deps.logger ?? defaultLogger;
  const wanted = options.entities ?? ENTITIES.map((e) => e.name);
  const definitions = ENTITIES.filter((e) => wanted.includes(e.name));

  // The lock is a session lock, so the whole run stays on one connection.
  return deps.db.connection().execute(async (db) => {
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_lock(${lockKey(deps.schema, 'sync')}) as locked`.execute(db);
    if (!rows[0]?.locked) throw new SyncBusyError();
    try {
      // We hold the lock, so any run still marked running belongs to a process that died.
      await db
        .updateTable('sync_runs')
        .set({
          status: 'failed',
          finished_at: new Date(),
          error: 'interrupted: the process stopped before the run finished',
        })
        .where('status', '=', 'running')
        .where('kind', 'in', ['backfill', 'sync'])
        .execute();
      return await pullAll(db, deps, options, definitions, log);
    } finally {
      await sql`select pg_advisory_unlock(${lockKey(deps.schema, 'sync')})`.execute(db);
    }
  });
}

async function pullAll(
  db: Kysely<Database>,
  deps: SyncDeps,
  options: SyncOptions,
  definitions: readonly EntityDefinition[],
  log: Logger,
): Promise<SyncOutcome> {
  const run = await db
    .insertInto('sync_runs')
    .values({ kind: options.kind, entities: definitions.map((d) => d.name) })
    .returning(['id'])
    .executeTakeFirstOrThrow();
  const runId = Number(run.id);
  const requestsAtStart = deps.client.requestsMade;
  const outcomes: Partial<Record<MirrorTable, EntityOutcome>> = {};
  let stopReason: string | null = null;
  log.info({ runId, kind: options.kind, entities: definitions.map((d) => d.name) }, 'sync run started');

  for (const definition of definitions) {
    if (options.signal?.aborted) stopReason ??= 'stopped before it finished';
    if (stopReason) break;
    const { outcome, stopRun } = await pullEntity(db, deps, options, definition, runId, log);
    outcomes[definition.name] = outcome;
    if (stopRun) stopReason = outcome.error ?? 'stopped';
    await db
      .updateTable('sync_runs')
      .set({ counts: jsonb(countsOf(outcomes)), requests_made: deps.client.requestsMade - requestsAtStart })
      .where('id', '=', runId)
      .execute();
  }

  const results = Object.values(outcomes) as EntityOutcome[];
  const completed = results.filter((o) => o.complete).length;
  const status: SyncRunStatus =
    completed === definitions.length
      ? 'succeeded'
      : completed === 0 && results.every((o) => o.fetched === 0)
        ? 'failed'
        : 'partial';
  const errors = results.filter((o) => o.error).map((o) => o.error!);
  if (stopReason && !errors.includes(stopReason)) errors.push(stopReason);
  const error = errors.length > 0 ? errors.join('; ') : null;
  const requestsMade = deps.client.requestsMade - requestsAtStart;
  await db
    .updateTable('sync_runs')
    .set({
      status,
      finished_at: new Date(),
      error,
      requests_made: requestsMade,
      counts: jsonb(countsOf(outcomes)),
      rate_limit_remaining: deps.client.rateLimitRemaining,
    })
    .where('id', '=', runId)
    .execute();
  log.info({ runId, status, requestsMade, counts: countsOf(outcomes), error }, 'sync run finished');
  return { runId, status, entities: outcomes, requestsMade, error };
}

function countsOf(
  outcomes: Partial<Record<MirrorTable, EntityOutcome>>,
): Record<string, EntityCounts & { restored: number }> {
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
      },
    ]),
  );
}

/**
 * Pulls one entity. Writing a page overlaps with fetching the next one (up to writeConcurrency
 * pages are written at once). `stopRun` says the other entities would fail the same way.
 */
async function pullEntity(
  db: Kysely<Database>,
  deps: SyncDeps,
  options: SyncOptions,
  definition: EntityDefinition,
  runId: number,
  log: Logger,
): Promise<{ outcome: EntityOutcome; stopRun: boolean }> {
  let stopRun = false;
  const outcome: EntityOutcome = {
    fetched: 0,
    inserted: 0,
    updated: 0,
    restored: 0,
    deleted: 0,
    unchanged: 0,
    complete: false,
  };
  const seen = new Set<number>();
  let unidentified = 0;
  let problems = 0;
  // The database's clock, the one `last_changed_at` is written with: rows changed after this
  // moment by someone else (a job's refresh) are not swept even though this pull missed them.
  const { rows: clock } = await sql<{ now: Date }>`select clock_timestamp() as now`.execute(db);
  const startedAt = clock[0]!.now;
  const began = Date.now();
  const stream = deps.client.list(definition.name, { pageSize: options.pageSize, wait: false });
  const writer = (deps.writeConcurrency ?? 1) > 1 ? deps.db : db;
  const inFlight: Promise<void>[] = [];
  let stoppedEarly = false;

  // Into an empty table every record is new: skip asking which ones changed, and write pages
  // with plain inserts until one meets a stored key (then writePage merged it instead).
  const { rows: emptiness } = await sql<{
    empty: boolean;
  }>`select not exists (select 1 from ${sql.table(definition.name)}) as empty`.execute(db);
  const tableWasEmpty = emptiness[0]!.empty;
  let mode: WriteMode = tableWasEmpty ? 'insert' : 'merge';

  // Maps the records that need writing (new, changed or returning ones) to rows and builds the
  // page text in one go, so that only the text is held while the page is written: the parsed
  // records become garbage at once, and the garbage collector reclaims them young instead of
  // copying them into the old generation.
  const stage = (records: ParsedRecord[], identities: RecordIdentity[], needed: Set<number> | null): PreparedPage => {
    const rows: StagedRow[] = [];
    for (let i = 0; i < records.length; i++) {
      if (!needed || needed.has(identities[i]!.key)) rows.push(toStagedRow(definition, records[i]!, identities[i]));
    }
    outcome.unchanged += records.length - rows.length;
    return preparePage(definition, rows);
  };
  const write = async (page: PreparedPage) => {
    const merged = await writeOnce(() => writePage(writer, definition, page, runId, mode));
    // Once a page had to be merged, so are the rest (a page still in flight may finish as inserts).
    if (merged.mode === 'merge') mode = 'merge';
    outcome.inserted += merged.inserted;
    outcome.updated += merged.updated + merged.restored;
    outcome.restored += merged.restored;
    outcome.unchanged += merged.unchanged;
  };
  // A page of records that may be stored already: only the ones whose hash differs are written.
  const compareAndWrite = async (records: ParsedRecord[], identities: RecordIdentity[]) =>
    write(stage(records, identities, await keysToMerge(writer, definition, identities)));

  try {
    for await (const page of stream) {
      outcome.fetched += page.received;
      for (const problem of page.problems) {
        problems++;
        const id = problem.id !== null && /^\d+$/.test(problem.id) ? Number(problem.id) : null;
        if (id === null) unidentified++;
        else seen.add(id); // it exists upstream, even if we cannot read it: never sweep it
        log.warn(
          { entity: definition.name, id: problem.id, field: problem.field },
          `unreadable record skipped: ${problem.message}`,
        );
      }
      const records = page.records as unknown as ParsedRecord[];
      const identities = records.map((record) => identify(definition, record));
      // Only the sweep reads the keys seen, and a table that was empty is not swept (see below).
      if (!tableWasEmpty) for (const identity of identities) seen.add(identity.key);
      // The next page is fetched while this one is written; at most writeConcurrency in flight.
      if (inFlight.length >= Math.max(1, deps.writeConcurrency ?? 1)) await inFlight.shift();
      inFlight.push(tableWasEmpty ? write(stage(records, identities, null)) : compareAndWrite(records, identities));
      options.onProgress?.({
        entity: definition.name,
        fetched: outcome.fetched,
        elapsedMs: Date.now() - began,
        done: false,
      });
      if (options.signal?.aborted) {
        stoppedEarly = true;
        break;
      }
    }
    while (inFlight.length > 0) await inFlight.shift();
  } catch (error) {
    await Promise.allSettled(inFlight);
    outcome.error = `${definition.name}: ${errorMessage(error)}`;
    // Without a quota, valid credentials or a reachable service the other entities would fail the same way.
    if (error instanceof RateLimitedError || error instanceof AuthenticationError || error instanceof NetworkError)
      stopRun = true;
    else if (!(error instanceof ApiError)) log.error({ err: error, entity: definition.name }, 'pull failed');
    log.warn({ entity: definition.name, error: outcome.error }, 'pull stopped early; nothing is marked deleted');
  }

  if (!outcome.error && !stoppedEarly && stream.complete && unidentified === 0) {
    // A table that was empty when the pull began holds only rows written during the pull (by it,
    // or by a job's refresh): the sweep is for older rows, and every `last_seen_at` is fresh. So
    // both scans are skipped; the next pull judges any row this one did not see.
    if (!tableWasEmpty) {
      outcome.deleted = await writeOnce(() => sweepDeleted(db, definition, seen, startedAt, runId));
      await touchSeen(db, definition, seen, LAST_SEEN_RESOLUTION_HOURS);
    }
    await db
      .insertInto('entity_pulls')
      .values({ entity: definition.name, last_complete_at: new Date(), last_complete_run_id: runId })
      .onConflict((oc) =>
        oc.column('entity').doUpdateSet({ last_complete_at: new Date(), last_complete_run_id: runId }),
      )
      .execute();
    outcome.complete = problems === 0;
  }
  if (!outcome.error) {
    if (stoppedEarly) outcome.error = `${definition.name}: stopped before the end of the list`;
    else if (!stream.complete)
      outcome.error = `${definition.name}: the list did not end cleanly (${stream.warnings.join('; ') || 'incomplete'})`;
    else if (problems > 0) outcome.error = `${definition.name}: ${problems} unreadable record(s) skipped`;
  }
  options.onProgress?.({
    entity: definition.name,
    fetched: outcome.fetched,
    elapsedMs: Date.now() - began,
    done: true,
  });
  return { outcome, stopRun };
}
