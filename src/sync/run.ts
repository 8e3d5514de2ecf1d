/**
 * A sync run: pulls each entity through the client, merges page by page, sweeps deletes after a
 * complete pull (with the delete safeguard), and records the run in `sync_runs`. A run pulls one
 * account; one run at a time per account, across processes (the account's `sync` lock, a lease of
 * the run's connection held for the whole run: db/locks.ts).
 *
 * Statuses: `succeeded` when every entity was pulled completely and stored exactly; `partial`
 * when some were not (an error, the rate limit, held deletes, values not stored as sent, a stop
 * request); `failed` when none was and nothing was written. One entity's failure does not stop
 * the others; only a spent quota, refused credentials or an unreachable service end the run.
 */
import type { PullingSession } from '../accounts/session.js';
import { ENTITY_NAMES, type EntityName } from '../catalog/index.js';
import {
  ABANDONED_PULL,
  closeOrphanedRuns,
  closeRunIfRunning,
  finishRun,
  recordPendingRunEnds,
  recordRunEnd,
  recordRunProgress,
  releaseLease,
  startRun,
  takeLease,
  type SyncRunStatus,
} from '../db/index.js';
import { RunError, errorMessage, isConnectionLost } from '../errors.js';
import { DEFINITIONS, type EntityDefinition } from './entities.js';
import {
  prepareEntityPull,
  readEntity,
  type EntityPullResult,
  type PreparedPull,
  type ReadPull,
} from './entity-pull.js';
import { DEFAULT_RECONCILE_HOURS } from './incremental.js';
import { Ahead, Behind } from './pipeline.js';
import { passUnderWay } from './resume.js';
import { failureOf, stopsRun } from './stop.js';
import type { EntityOutcome, PullRun, PullSettings, RunEntityCounts, SyncOptions } from './types.js';

export type {
  EntityOutcome,
  PullSettings,
  RunEntityCounts,
  SyncOptions,
  SyncProgress,
} from './types.js';

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

/** Pulls the session's account: the entities the options name, with the configuration's settings. */
export async function runSync(
  session: PullingSession,
  settings: PullSettings,
  options: SyncOptions,
): Promise<SyncOutcome> {
  const { log } = session;
  const wanted = options.entities ?? ENTITY_NAMES;
  const definitions = DEFINITIONS.filter((e) => wanted.includes(e.name));
  const accountId = session.account.id;
  // The lock is the session's, so the whole run stays on one connection.
  return session.db.connection().execute(async (runDb) => {
    if (!(await takeLease(runDb, accountId, 'sync'))) throw new SyncBusyError();
    try {
      // We hold the lock, so no run still marked running goes on: first record the true ends of
      // this process's runs the database did not take, then close what other processes left.
      await recordPendingRunEnds(runDb, session.schema);
      await closeOrphanedRuns(runDb, accountId, ['backfill', 'sync'], ABANDONED_PULL);
      const runId = await startRun(
        runDb,
        accountId,
        options.kind,
        definitions.map((d) => d.name),
      );
      const markInterrupted = () => {
        void closeRunIfRunning(session.db, runId, 'interrupted', interruptedMessage(options.signal)).catch(
          (error: unknown) => log.warn({ runId, error: errorMessage(error) }, 'could not mark the run interrupted'),
        );
      };
      options.signal?.addEventListener('abort', markInterrupted, { once: true });
      try {
        const pass = await passUnderWay(runDb, accountId, settings.reconcileAfterHours ?? DEFAULT_RECONCILE_HOURS);
        return await pullAll({ session, runDb, settings, options, runId, pass }, definitions);
      } catch (error) {
        // The run's own connection failed (the database restarted, the backend was ended) or the
        // database refused a write (a full disk): the pull stops, and the run is marked failed
        // through another connection of the pool, as soon as the database takes the write.
        const message = isConnectionLost(error)
          ? `the database connection was lost: ${errorMessage(error)}`
          : `the pull stopped: ${errorMessage(error)}`;
        log.error({ runId, error: errorMessage(error) }, 'sync run failed');
        if (!(await recordRunEnd(session.db, session.schema, runId, 'failed', message)))
          log.warn({ runId }, 'could not mark the run failed yet; trying again in the background');
        throw new RunError(`run ${runId} failed: ${message}`);
      } finally {
        options.signal?.removeEventListener('abort', markInterrupted);
      }
    } finally {
      // A lost connection took the lock with it.
      await releaseLease(runDb, accountId, 'sync');
    }
  });
}

/** What the run has found so far: each entity's outcome, and why it stops (if it does). */
interface RunStory {
  readonly outcomes: Outcomes;
  stopReason: string | null;
  refused: boolean;
  gaveWay: string | null;
}

/** Takes an entity's result into the run's story. */
function tell(story: RunStory, definition: EntityDefinition, { outcome, stop }: EntityPullResult): void {
  story.outcomes[definition.name] = outcome;
  if (stop.kind === 'refused') story.refused = true;
  if (stopsRun(stop)) story.stopReason = failureOf(stop) ?? 'stopped';
  if (stop.kind === 'gaveWay') {
    story.gaveWay = stop.reason;
    story.stopReason = `gave way (${stop.reason}); the next run goes on where this one stopped`;
  }
}

/**
 * The run's story: each entity pulled in turn (until the run is stopped), then the run's end
 * recorded. The next entity's pull is planned and its first page asked for as soon as this one
 * has read what it reads from the service, while it is written (`Ahead`); and, when its reading
 * leaves the run's connection alone (see ReadPull.concludesAside), read while this one concludes
 * (sweeps, records its pull) on the run's connection (`Behind`). So the service is asked for pages
 * while the mirror concludes, rather than waiting for it, and one conclusion runs at a time, in
 * entity order.
 */
async function pullAll(run: PullRun, everyDefinition: readonly EntityDefinition[]): Promise<SyncOutcome> {
  const { session, options, runId } = run;
  const requestsAtStart = session.client.requestsMade;
  const story: RunStory = { outcomes: {}, stopReason: null, refused: false, gaveWay: null };
  const definitions = stillToPull(run, everyDefinition);
  session.log.info({ runId, kind: options.kind, entities: definitions.map((d) => d.name) }, 'sync run started');
  const record = async (definition: EntityDefinition, pulled: EntityPullResult) => {
    tell(story, definition, pulled);
    await recordRunProgress(run.runDb, runId, countsOf(story.outcomes), session.client.requestsMade - requestsAtStart);
  };
  const ahead = new Ahead<PreparedPull>();
  const behind = new Behind<EntityPullResult>();
  try {
    for (const [index, definition] of definitions.entries()) {
      if (options.signal?.aborted) story.stopReason ??= 'stopped before it finished';
      if (story.stopReason) break;
      const read = await readInTurn(run, definition, definitions[index + 1], ahead, behind);
      // Read to its end and nothing to stop for: the next entity is read while this one concludes.
      const goesOn = !stopsRun(read.stop) && read.stop.kind !== 'gaveWay';
      if (read.concludesAside && goesOn && !story.stopReason && definitions[index + 1])
        behind.begin(read.conclude(), (pulled) => record(definition, pulled));
      else await record(definition, await read.conclude());
    }
  } finally {
    // A failure elsewhere (the run fails): a conclusion under way is let finish first.
    await behind.drain();
  }
  await behind.settle();
  // A pull planned ahead and not run (the run stopped): its plan is let finish.
  await ahead.take();
  return finishPull(run, story, definitions.length, session.client.requestsMade - requestsAtStart);
}

/**
 * Reads an entity in its turn (from its plan made ahead, if any), planning the next one ahead as
 * soon as its requests are done; the conclusion behind it is taken meanwhile (its failure fails
 * the run, once this one's last pages are stored). A reading that lost a connection reads again.
 */
async function readInTurn(
  run: PullRun,
  definition: EntityDefinition,
  next: EntityDefinition | undefined,
  ahead: Ahead<PreparedPull>,
  behind: Behind<EntityPullResult>,
): Promise<ReadPull> {
  const { options, session } = run;
  const prepared = await ahead.take();
  const prepareNext = () => {
    if (next && !options.signal?.aborted)
      ahead.begin(
        () => prepareEntityPull(run, next),
        (error) =>
          session.log.warn({ entity: next.name, error: errorMessage(error) }, 'could not plan the next entity ahead'),
      );
  };
  const read = await readEntity(run, definition, { prepared, onRequestsDone: prepareNext });
  await behind.settle(read.stored);
  if (read.stop.kind === 'connectionLost' && !options.signal?.aborted)
    return readAgain(run, definition, read, prepareNext);
  return read;
}

/** Records the run's end from its story. */
async function finishPull(run: PullRun, story: RunStory, wanted: number, requestsMade: number): Promise<SyncOutcome> {
  const { session, options, runId } = run;
  const { outcomes, stopReason, refused, gaveWay } = story;
  const { status, error } = runEnd(outcomes, wanted, stopReason, options.signal, gaveWay !== null);
  await finishRun(run.runDb, runId, {
    status,
    error,
    counts: countsOf(outcomes),
    requestsMade,
    rateLimitRemaining: session.client.rateLimitRemaining,
  });
  session.log.info({ runId, status, requestsMade, counts: countsOf(outcomes), error }, 'sync run finished');
  return { runId, status, entities: outcomes, requestsMade, error, refused, gaveWay };
}

/**
 * The entities this run pulls: while a pass of the account is under way (a pull gave way, or was
 * stopped, before the end of its list), the ones it completed since it began are not pulled
 * again, so that a pass given way in slices reads every entity once.
 */
function stillToPull(
  { pass, session }: PullRun,
  definitions: readonly EntityDefinition[],
): readonly EntityDefinition[] {
  if (!pass) return definitions;
  const left = definitions.filter((d) => pass.cursors.has(d.name) || !pass.completed.has(d.name));
  if (left.length < definitions.length)
    session.log.info(
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
  run: PullRun,
  definition: EntityDefinition,
  first: ReadPull,
  onRequestsDone: () => void,
): Promise<ReadPull> {
  const firstResult = await first.conclude();
  run.session.log.warn(
    { entity: definition.name, error: firstResult.outcome.error },
    'lost a database connection; pulling the entity again',
  );
  const again = await readEntity(run, definition, { onRequestsDone });
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
