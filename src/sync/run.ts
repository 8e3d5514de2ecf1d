/**
 * A sync run: pulls each entity through the client, merges page by page, sweeps deletes after a
 * complete pull (with the delete safeguard), and records the run in `sync_runs`. One run at a time
 * per mirror, across processes (a session advisory lock held for the whole run).
 *
 * Statuses: `succeeded` when every entity was pulled completely and stored exactly; `partial`
 * when some were not (an error, the rate limit, held deletes, values not stored as sent, a stop
 * request); `failed` when none was and nothing was written. One entity's failure does not stop
 * the others; only a spent quota, refused credentials or an unreachable service end the run.
 */
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  ApiError,
  AuthenticationError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  type InvoicingClient,
  type ValueIssue,
} from '../api/index.js';
import { ENTITY_NAMES, MAX_INTEGER, type EntityName, type SingleReadEntity } from '../catalog/index.js';
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
import {
  DEFINITIONS,
  identify,
  toStagedRow,
  type EntityDefinition,
  type ReadEntityRecord,
  type RecordIdentity,
  type StagedRow,
} from './entities.js';
import {
  changingNotListed,
  DEFAULT_RECONCILE_HOURS,
  listsOf,
  earlierIssues,
  planPull,
  recordCompletePull,
} from './incremental.js';
import { keysToMerge, preparePage, touchSeen, type PreparedPage } from './merge.js';
import { PageWriter } from './page-writer.js';
import { recordIssues, resolveIssues } from './rejected.js';
import { DEFAULT_DELETE_POLICY, sweepWithSafeguard, type DeletePolicy } from './safeguard.js';

export interface SyncDeps {
  db: Kysely<Database>;
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
  /** `pulling` until the entity's pull is over; `done` when its list was read to the end, else `failed`. */
  state: 'pulling' | 'done' | 'failed';
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

export interface SyncOutcome {
  runId: number;
  status: SyncRunStatus;
  entities: Partial<Record<EntityName, EntityOutcome>>;
  requestsMade: number;
  error: string | null;
}

/** Thrown when another process is running a sync or backfill on the same mirror. */
export class SyncBusyError extends RunError {
  constructor() {
    super('another sync or backfill is running on this mirror; try again when it has finished');
  }
}

/** How often an unchanged row's `last_seen_at` is refreshed (see touchSeen). */
const LAST_SEEN_RESOLUTION_HOURS = 24;

export async function runSync(deps: SyncDeps, options: SyncOptions): Promise<SyncOutcome> {
  const log = deps.logger ?? defaultLogger;
  const wanted = options.entities ?? ENTITY_NAMES;
  const definitions = DEFINITIONS.filter((e) => wanted.includes(e.name));

  // The lock is a session lock, so the whole run stays on one connection.
  return deps.db.connection().execute(async (db) => {
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_lock(${lockKey(deps.schema, 'sync')}) as locked`.execute(db);
    if (!rows[0]?.locked) throw new SyncBusyError();
    try {
      // We hold the lock, so no run still marked running goes on: first record the true ends of
      // this process's runs the database did not take, then close what other processes left.
      await recordPendingRunEnds(db);
      await closeOrphanedRuns(db, ['backfill', 'sync'], ABANDONED_PULL);
      const runId = await startRun(
        db,
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
        return await pullAll(db, deps, options, definitions, runId, log);
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
      await sql`select pg_advisory_unlock(${lockKey(deps.schema, 'sync')})`.execute(db).catch(() => undefined);
    }
  });
}

async function pullAll(
  db: Kysely<Database>,
  deps: SyncDeps,
  options: SyncOptions,
  definitions: readonly EntityDefinition[],
  runId: number,
  log: Logger,
): Promise<SyncOutcome> {
  const requestsAtStart = deps.client.requestsMade;
  const outcomes: Partial<Record<EntityName, EntityOutcome>> = {};
  let stopReason: string | null = null;
  log.info({ runId, kind: options.kind, entities: definitions.map((d) => d.name) }, 'sync run started');

  for (const definition of definitions) {
    if (options.signal?.aborted) stopReason ??= 'stopped before it finished';
    if (stopReason) break;
    let { outcome, stopRun, connectionLost } = await pullEntity(db, deps, options, definition, runId, log);
    if (connectionLost && !options.signal?.aborted) {
      // A pooled connection that died (an ended backend, a restart) failed one statement: pull the
      // entity again on fresh connections. Its pages are upserts, so what was written stays right.
      log.warn(
        { entity: definition.name, error: outcome.error },
        'lost a database connection; pulling the entity again',
      );
      const first = outcome;
      ({ outcome, stopRun, connectionLost } = await pullEntity(db, deps, options, definition, runId, log));
      for (const count of ['inserted', 'updated', 'restored', 'deleted', 'rejected'] as const)
        outcome[count] += first[count];
    }
    outcomes[definition.name] = outcome;
    if (stopRun) stopReason = outcome.error ?? 'stopped';
    await recordRunProgress(db, runId, countsOf(outcomes), deps.client.requestsMade - requestsAtStart);
  }

  const results = Object.values(outcomes) as EntityOutcome[];
  const completed = results.filter((o) => o.complete).length;
  const changedAnything = results.some((o) => o.inserted + o.updated + o.deleted > 0);
  const interrupted = options.signal?.aborted === true && completed < definitions.length;
  const status: SyncRunStatus = interrupted
    ? 'interrupted'
    : completed === definitions.length
      ? 'succeeded'
      : completed === 0 && !changedAnything
        ? 'failed'
        : 'partial';
  // An interrupted run's own errors are the requests cut short by the interrupt: not worth saying.
  const errors = interrupted
    ? [
        `${interruptedMessage(options.signal)}; ${completed} of ${definitions.length} entities were pulled completely (${completedNames(outcomes) || 'none'})`,
      ]
    : results.filter((o) => o.error).map((o) => o.error!);
  if (stopReason && !interrupted && !errors.includes(stopReason)) errors.push(stopReason);
  const error = errors.length > 0 ? errors.join('; ') : null;
  const requestsMade = deps.client.requestsMade - requestsAtStart;
  await finishRun(db, runId, {
    status,
    error,
    counts: countsOf(outcomes),
    requestsMade,
    rateLimitRemaining: deps.client.rateLimitRemaining,
  });
  log.info({ runId, status, requestsMade, counts: countsOf(outcomes), error }, 'sync run finished');
  return { runId, status, entities: outcomes, requestsMade, error };
}

function countsOf(outcomes: Partial<Record<EntityName, EntityOutcome>>): Record<string, RunEntityCounts> {
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

function completedNames(outcomes: Partial<Record<EntityName, EntityOutcome>>): string {
  return Object.entries(outcomes)
    .filter(([, outcome]) => outcome!.complete)
    .map(([name]) => name)
    .join(', ');
}

function interruptedMessage(signal: AbortSignal | undefined): string {
  const reason = typeof signal?.reason === 'string' ? ` (${signal.reason})` : '';
  return `interrupted${reason}: stopped after the page being written; running the command again resumes safely`;
}

/** The error that ends the whole run: without a quota, valid credentials or a reachable service, every entity would fail the same way. */
function endsRun(error: unknown): boolean {
  return (
    error instanceof RateLimitedError ||
    error instanceof AuthenticationError ||
    (error instanceof NetworkError && error.transport === 'connect')
  );
}

/** The numeric id text of a record that could not be stored, when it could name a stored row. */
function storableKey(id: string | null): number | null {
  if (id === null || !/^\d+$/.test(id)) return null;
  const key = Number(id);
  return key <= MAX_INTEGER ? key : null;
}

/**
 * Pulls one entity: pages are read, compared with the mirror and written (up to
 * writeConcurrency at once) while the next page is fetched; after a complete pull the records
 * not seen are swept (with the delete safeguard). `stopRun` says the other entities would fail
 * the same way.
 */
async function pullEntity(
  db: Kysely<Database>,
  deps: SyncDeps,
  options: SyncOptions,
  definition: EntityDefinition,
  runId: number,
  log: Logger,
): Promise<{ outcome: EntityOutcome; stopRun: boolean; connectionLost: boolean }> {
  const entity = definition.name;
  let stopRun = false;
  let connectionLost = false;
  const outcome: EntityOutcome = {
    fetched: 0,
    inserted: 0,
    updated: 0,
    restored: 0,
    deleted: 0,
    unchanged: 0,
    held: 0,
    rejected: 0,
    complete: false,
  };
  const seen = new Set<number>();
  let unidentified = 0;
  // The database's clock, the one `last_changed_at` is written with: rows changed after this
  // moment by someone else (a job's refresh) are not swept even though this pull missed them.
  const { rows: clock } = await sql<{ now: Date }>`select clock_timestamp() as now`.execute(db);
  const startedAt = clock[0]!.now;
  const began = performance.now();

  // Into an empty table every record is new: skip asking which ones changed, and write pages
  // with plain inserts until one meets a stored key (then the page is merged instead).
  const { rows: emptiness } = await sql<{
    empty: boolean;
  }>`select not exists (select 1 from ${sql.table(entity)}) as empty`.execute(db);
  const tableWasEmpty = emptiness[0]!.empty;
  const plan = await planPull(db, definition, {
    full: options.kind === 'backfill' || options.full === true,
    reconcileAfterHours: deps.reconcileAfterHours ?? DEFAULT_RECONCILE_HOURS,
  });
  if (plan.mode === 'incremental') outcome.incremental = true;
  else if (definition.incremental) log.info({ entity, reason: plan.reason }, 'full, reconciling pull');
  // An incremental pull needs the keys it saw (to know which records to read one by one) even
  // into an empty table.
  const trackSeen = !tableWasEmpty || plan.mode === 'incremental';
  const cap = await db.selectFrom('list_caps').select('max_count').where('list', '=', entity).executeTakeFirst();
  const expected = options.onProgress && plan.mode === 'full' ? await expectedRecords(db, entity) : null;
  let pages = 0;
  const progress = (state: SyncProgress['state']) =>
    options.onProgress?.({
      entity,
      fetched: outcome.fetched,
      pages,
      expected,
      elapsedMs: performance.now() - began,
      state,
    });
  let learnedCap: number | null = null;
  const listOf = (filters: Readonly<Record<string, string>>) =>
    deps.client.list(entity, {
      pageSize: options.pageSize,
      wait: false,
      filters,
      knownCap: learnedCap ?? cap?.max_count ?? null,
      onCapLearned: (max) => {
        learnedCap = max;
      },
    });
  const pendingIssues: ValueIssue[] = [];
  const writer = new PageWriter(
    (deps.writeConcurrency ?? 1) > 1 ? deps.db : db,
    definition,
    runId,
    tableWasEmpty ? 'insert' : 'merge',
    deps.writeConcurrency ?? 1,
    (refused) => {
      pendingIssues.push({
        entity,
        id: refused.key,
        field: '(record)',
        message: refused.reason,
        value: refused.rawText.length > 200 ? `${refused.rawText.slice(0, 199)}…` : refused.rawText,
        action: 'skipped',
      });
    },
  );
  const flushIssues = async () => {
    if (pendingIssues.length === 0) return;
    const issues = pendingIssues.splice(0);
    outcome.rejected += issues.length;
    await recordIssues(db, runId, issues);
  };

  // Maps the records that need writing (new, changed or returning ones) to rows and builds the
  // page text in one go, so that only the text is held while the page is written: the parsed
  // records become garbage at once, and the garbage collector reclaims them young instead of
  // copying them into the old generation.
  const stage = (
    records: ReadEntityRecord[],
    identities: RecordIdentity[],
    needed: Set<number> | null,
  ): PreparedPage => {
    const rows: StagedRow[] = [];
    for (let i = 0; i < records.length; i++) {
      if (!needed || needed.has(identities[i]!.key)) rows.push(toStagedRow(definition, records[i]!, identities[i]));
    }
    writer.countUnchanged(records.length - rows.length);
    return preparePage(definition, rows);
  };

  let stoppedEarly = false;
  const streams: ReturnType<typeof listOf>[] = [];
  let unresolved = 0;
  let issuesBefore = 0;
  try {
    for (const filters of listsOf(definition, plan)) {
      const stream = listOf(filters);
      streams.push(stream);
      for await (const page of stream) {
        outcome.fetched += page.received;
        pages++;
        for (const skipped of page.skipped) {
          pendingIssues.push(skipped);
          const key = storableKey(skipped.id);
          if (key !== null)
            seen.add(key); // it exists upstream, even if we cannot read it: never sweep it
          else if (skipped.id === null || !/^\d+$/.test(skipped.id)) unidentified++;
          log.warn({ entity, id: skipped.id, field: skipped.field }, `record not stored: ${skipped.message}`);
        }
        const records = uniqueRecords(definition, page.records as unknown as ReadEntityRecord[], pendingIssues, log);
        for (const read of records) if (read.issues.length > 0) pendingIssues.push(...read.issues);
        const identities = records.map((read) => identify(definition, read));
        // The sweep and the single reads use the keys seen; a table that was empty is not swept.
        if (trackSeen) for (const identity of identities) seen.add(identity.key);
        // A page of records that may be stored already: only the ones whose hash differs are written.
        const needed = tableWasEmpty ? null : await keysToMerge(writer.db, definition, identities);
        await writer.write(stage(records, identities, needed));
        await flushIssues();
        progress('pulling');
        if (options.signal?.aborted) {
          stoppedEarly = true;
          break;
        }
      }
      if (stoppedEarly || !stream.complete) break;
    }
    if (plan.mode === 'incremental' && !stoppedEarly && streams.every((s) => s.complete)) {
      // What the mirror holds as open and neither list had: paid, written off or deleted since.
      // Read one by one, then written as one page.
      const reads: ReadEntityRecord[] = [];
      for (const key of await changingNotListed(db, definition, seen)) {
        if (options.signal?.aborted) {
          stoppedEarly = true;
          break;
        }
        try {
          reads.push((await deps.client.read(entity as SingleReadEntity, key)) as unknown as ReadEntityRecord);
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
          // One missing record is not proof enough of a delete: the next pull, a full one, decides.
          unresolved++;
          log.warn({ entity, id: key }, 'held as open in the mirror, but not found upstream; the next pull reconciles');
        }
      }
      if (reads.length > 0) {
        outcome.fetched += reads.length;
        for (const read of reads) if (read.issues.length > 0) pendingIssues.push(...read.issues);
        const identities = reads.map((read) => identify(definition, read));
        for (const identity of identities) seen.add(identity.key);
        await writer.write(stage(reads, identities, await keysToMerge(writer.db, definition, identities)));
        await flushIssues();
      }
    }
    await writer.finish();
  } catch (error) {
    await writer.settle();
    outcome.error = `${entity}: ${errorMessage(error)}`;
    stopRun = endsRun(error);
    connectionLost = isConnectionLost(error);
    if (!(error instanceof ApiError)) log.error({ err: error, entity }, 'pull failed');
    log.warn({ entity, error: outcome.error }, 'pull stopped early; nothing is marked deleted');
  }
  Object.assign(outcome, writer.counts);
  await flushIssues();
  if (learnedCap !== null) await rememberCap(db, entity, learnedCap, runId);

  const unfinished = streams.find((stream) => !stream.complete);
  const listComplete = !outcome.error && !stoppedEarly && unfinished === undefined;
  if (listComplete && unidentified === 0 && plan.mode === 'incremental') {
    // Only what can have changed was read: nothing is swept, and issues of records not read stay.
    await touchSeen(db, definition, seen, LAST_SEEN_RESOLUTION_HOURS);
    await recordCompletePull(db, definition, runId, plan, unresolved > 0);
    issuesBefore = await earlierIssues(db, entity, runId);
    outcome.complete = outcome.rejected === 0 && issuesBefore === 0 && unresolved === 0;
  } else if (listComplete && unidentified === 0) {
    // A table that was empty when the pull began holds only rows written during the pull (by it,
    // or by a job's refresh): the sweep is for older rows, and every `last_seen_at` is fresh. So
    // both scans are skipped; the next pull judges any row this one did not see.
    if (!tableWasEmpty) {
      const swept = await sweepWithSafeguard(
        db,
        definition,
        seen,
        startedAt,
        runId,
        deps.deletes ?? policyOf(options),
        log,
      );
      outcome.deleted = swept.deleted;
      outcome.held = swept.held;
      await touchSeen(db, definition, seen, LAST_SEEN_RESOLUTION_HOURS);
    }
    await resolveIssues(db, entity, runId);
    await recordCompletePull(db, definition, runId, plan, false);
    outcome.complete = outcome.held === 0 && outcome.rejected === 0;
  }
  if (!outcome.error) {
    const problems: string[] = [];
    if (stoppedEarly) problems.push('stopped before the end of the list');
    else if (unfinished)
      problems.push(`the list did not end cleanly (${unfinished.warnings.join('; ') || 'incomplete'})`);
    else if (unidentified > 0)
      problems.push(`${unidentified} record(s) without a readable id; nothing is marked deleted`);
    if (outcome.held > 0)
      problems.push(
        `${outcome.held} deletes held (run invoice-mirror sync --allow-deletes ${entity} if they are real)`,
      );
    if (outcome.rejected > 0)
      problems.push(`${outcome.rejected} value(s) not stored as sent (see invoice-mirror status)`);
    if (issuesBefore > 0)
      problems.push(
        `${issuesBefore} value(s) stored other than as sent by an earlier pull (see invoice-mirror status); the next full pull reads them again`,
      );
    if (unresolved > 0)
      problems.push(
        `${unresolved} record(s) the mirror holds as open were not found upstream; they stay until the next pull, a full one, confirms`,
      );
    if (problems.length > 0) outcome.error = `${entity}: ${problems.join('; ')}`;
  }
  // Failed: the list did not end (an error, a stop); done: read to its end (the outcome's
  // `complete` says whether it is also stored exactly).
  progress(listComplete ? 'done' : 'failed');
  return { outcome, stopRun, connectionLost };
}

/** The live rows of an entity pulled completely before (what a full pull should find), else null. */
async function expectedRecords(db: Kysely<Database>, entity: EntityName): Promise<number | null> {
  const { rows } = await sql<{ live: number | null }>`
    select case when exists (select 1 from entity_pulls where entity = ${entity} and last_complete_at is not null)
                then (select count(*) from ${sql.table(entity)} where deleted_at is null)::int end as live`.execute(db);
  return rows[0]?.live ?? null;
}

/** The delete policy of a run given only the CLI's `allowDeletes` (tests and callers without a config). */
function policyOf(options: SyncOptions): DeletePolicy {
  return { ...DEFAULT_DELETE_POLICY, allow: options.allowDeletes ?? [] };
}

/**
 * One record per key: a record listed twice in one answer is stored once (the later copy, as the
 * service would have it last); when the copies differ, that is reported, since either may be the true one.
 */
function uniqueRecords(
  definition: EntityDefinition,
  records: ReadEntityRecord[],
  issues: ValueIssue[],
  log: Logger,
): ReadEntityRecord[] {
  const byKey = new Map<number, ReadEntityRecord>();
  for (const read of records) {
    const key = read.record[definition.key] as number;
    const earlier = byKey.get(key);
    if (earlier && earlier.rawText !== read.rawText) {
      const message = 'listed twice in one answer with different content; the later copy is stored';
      issues.push({
        entity: definition.name as ValueIssue['entity'],
        id: String(key),
        field: '(duplicate)',
        message,
        value: earlier.rawText.length > 200 ? `${earlier.rawText.slice(0, 199)}…` : earlier.rawText,
        action: 'skipped',
      });
      log.warn({ entity: definition.name, id: key }, message);
    }
    byKey.set(key, read);
  }
  return byKey.size === records.length ? records : [...byKey.values()];
}

async function rememberCap(db: Kysely<Database>, list: string, maxCount: number, runId: number): Promise<void> {
  await db
    .insertInto('list_caps')
    .values({ list, max_count: maxCount, run_id: runId })
    .onConflict((oc) =>
      oc.column('list').doUpdateSet({ max_count: maxCount, run_id: runId, learned_at: sql`clock_timestamp()` }),
    )
    .execute();
}
