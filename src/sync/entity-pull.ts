/**
 * The pull of one entity, as values passed from phase to phase:
 *
 * - **plan** (entity-plan.ts): full or incremental, how pages are written, what to compare with;
 * - **read** (entity-read.ts): the lists page by page, and (incremental pulls) what changes; it
 *   gives back a `Reading` with one `Stop` (stop.ts): how the reading ended;
 * - **conclude** a pull read to its end: sweep the records not seen (with the delete safeguard),
 *   record the pull and its cursor;
 * - a full pull that stops early saves where it is (resume.ts), and the next pull of the entity
 *   goes on from there: a long list is read in slices (the run gives way when `options.giveWay`
 *   says so) and survives kills, quota pauses and restarts;
 * - **problems** (pure): what keeps the entity from being pulled completely and stored exactly,
 *   as its error.
 */
import { heldDeletesLine } from '../db/index.js';
import type { EntityDefinition } from './entities.js';
import { planEntityPull, type PlannedPull } from './entity-plan.js';
import { EntityReader, type Reading } from './entity-read.js';
import { entityTable, type EntityTable } from './entity-table.js';
import { DEFAULT_DELETE_POLICY, type DeletePolicy } from './safeguard.js';
import { failureOf, progressState, readToEnd, stopProblem, type Stop } from './stop.js';
import type { EntityOutcome, PullRun, SyncOptions } from './types.js';

export interface EntityPullResult {
  outcome: EntityOutcome;
  stop: Stop;
}

/** How often an unchanged row's `last_seen_at` is refreshed (see touchSeen). */
const LAST_SEEN_RESOLUTION_HOURS = 24;
/** Records inserted into an empty table from which its key columns are analyzed (see analyzeFilled). */
const ANALYZE_AFTER_FILLING = 1_000;

/** An entity's pull planned ahead, its first page asked for (see prepareEntityPull). */
export interface PreparedPull {
  readonly definition: EntityDefinition;
  readonly planned: PlannedPull;
  readonly reader: EntityReader;
}

/**
 * Plans an entity's pull and asks for its first page, while the run's connection still concludes
 * the entity before: the plan reads through the pool (its queries only read), and the request
 * waits for the client's slot like any other. Its plan's clock is then earlier, which only spares
 * more rows from its sweep.
 */
export async function prepareEntityPull(run: PullRun, definition: EntityDefinition): Promise<PreparedPull> {
  const planned = await planEntityPull(run, entityTable(run.session, definition));
  const reader = new EntityReader(run, definition, planned);
  reader.prefetch();
  return { definition, planned, reader };
}

/** An entity's pull whose lists are read and stored, its conclusion still to come. */
export interface ReadPull {
  /** How its reading ended, as far as the run must know before it goes on. */
  readonly stop: Stop;
  /**
   * Its reading used pooled connections only, never the run's own: the next entity may be read
   * while this one concludes on the run's connection (see pullAll in run.ts).
   */
  readonly concludesAside: boolean;
  /** Settles once the pages it read are stored (or could not be): a run that fails meanwhile waits for it. */
  readonly stored: Promise<void>;
  /** Concludes it (see the phases above) on the run's connection. */
  conclude(): Promise<EntityPullResult>;
}

/**
 * The first phases of an entity's pull (see above), from its plan or from one made ahead: plan,
 * read the lists and what changes, store them. `onRequestsDone` is called once it has read
 * everything it reads from the service, if it read it all.
 */
export async function readEntity(
  run: PullRun,
  definition: EntityDefinition,
  { prepared, onRequestsDone }: { prepared?: PreparedPull; onRequestsDone?: () => void } = {},
): Promise<ReadPull> {
  const onRun = entityTable({ account: run.session.account, db: run.runDb }, definition);
  const { planned, reader } =
    prepared?.definition === definition
      ? prepared
      : await (async () => {
          const plan = await planEntityPull(run, onRun);
          return { planned: plan, reader: new EntityReader(run, definition, plan) };
        })();
  const stop = await reader.read(onRequestsDone);
  return {
    stop,
    concludesAside: reader.readsAside,
    stored: reader.stored,
    conclude: async () => {
      const reading = await reader.finish();
      const outcome = await concludeReading(run, onRun, planned, reading);
      reader.progress(progressState(reading.stop, run.options.signal?.aborted === true));
      return { outcome, stop: reading.stop };
    },
  };
}

/** What the conclusion of a pull read to its end found. */
interface Conclusion {
  deleted: number;
  held: number;
  complete: boolean;
  /** Values stored other than as sent by an earlier pull and not read again by this one. */
  issuesBefore: number;
}

/** Remembers a cap learned, concludes a pull read to its end (and every record identified), and gives its outcome. */
async function concludeReading(
  run: PullRun,
  table: EntityTable,
  planned: PlannedPull,
  reading: Reading,
): Promise<EntityOutcome> {
  if (reading.learnedCap !== null) await table.rememberCap(reading.learnedCap, run.runId);
  const concluded =
    readToEnd(reading.stop) && reading.unidentified === 0 ? await conclude(run, table, planned, reading) : null;
  const outcome: EntityOutcome = {
    ...reading.counts,
    deleted: concluded?.deleted ?? 0,
    held: concluded?.held ?? 0,
    complete: concluded?.complete ?? false,
  };
  if (planned.plan.mode === 'incremental') outcome.incremental = true;
  const failure = failureOf(reading.stop);
  const problems = failure ? [] : problemsOf(table.definition.name, reading, concluded);
  if (failure) outcome.error = failure;
  else if (problems.length > 0) outcome.error = `${table.definition.name}: ${problems.join('; ')}`;
  return outcome;
}

/** After every list was read to its end and every record identified. */
async function conclude(run: PullRun, table: EntityTable, planned: PlannedPull, reading: Reading): Promise<Conclusion> {
  const concluded =
    planned.plan.mode === 'incremental'
      ? await concludeIncremental(run, table, planned, reading)
      : await concludeFull(run, table, planned, reading);
  if (planned.plan.mode === 'full') await table.dropCursor();
  if (planned.tableWasEmpty && reading.counts.inserted >= ANALYZE_AFTER_FILLING) await table.analyzeFilled();
  return concluded;
}

/** Only what can have changed was read: nothing is swept, and issues of records not read stay. */
async function concludeIncremental(
  { runId }: PullRun,
  table: EntityTable,
  { plan }: PlannedPull,
  { seen, unresolved, counts }: Reading,
): Promise<Conclusion> {
  await table.touchSeen(seen, LAST_SEEN_RESOLUTION_HOURS);
  await table.recordCompletePull(runId, plan, unresolved > 0);
  const issuesBefore = await table.earlierIssues(runId);
  return {
    deleted: 0,
    held: 0,
    complete: counts.rejected === 0 && issuesBefore === 0 && unresolved === 0,
    issuesBefore,
  };
}

async function concludeFull(
  { runId, settings, options, session }: PullRun,
  table: EntityTable,
  planned: PlannedPull,
  { seen, counts, stop }: Reading,
): Promise<Conclusion> {
  // A table that was empty when the pull began holds only rows written during the pull (by it,
  // or by a job's refresh): the sweep is for older rows, and every `last_seen_at` is fresh. So
  // both scans are skipped; the next pull judges any row this one did not see. A pass whose list
  // shifted while it was away may have skipped a record: it sweeps nothing either.
  if (stop.kind === 'shifted') return { deleted: 0, held: 0, complete: false, issuesBefore: 0 };
  let swept = { deleted: 0, held: 0 };
  if (!planned.tableWasEmpty) {
    const policy = settings.deletes ?? policyOf(options);
    swept = await table.sweep(seen, planned.startedAt, runId, policy, session.log);
    await table.touchSeen(seen, LAST_SEEN_RESOLUTION_HOURS);
  }
  await table.resolveIssues(planned.passRunId);
  await table.recordCompletePull(runId, planned.plan, false);
  // A pass over several runs: what its earlier runs met is not stored as sent either.
  const issuesBefore = planned.passRunId !== runId ? await table.earlierIssues(runId) : 0;
  const complete = swept.held === 0 && counts.rejected === 0 && issuesBefore === 0;
  return { deleted: swept.deleted, held: swept.held, complete, issuesBefore };
}

/** What kept a pull that did not fail from being complete and stored exactly (pure). */
export function problemsOf(entity: string, reading: Reading, concluded: Conclusion | null): string[] {
  const { counts, unidentified, unresolved } = reading;
  const held = concluded?.held ?? 0;
  const issuesBefore = concluded?.issuesBefore ?? 0;
  const problems: string[] = [];
  const stopped = stopProblem(reading.stop);
  if (stopped) problems.push(stopped);
  else if (unidentified > 0)
    problems.push(`${unidentified} record(s) without a readable id; nothing is marked deleted`);
  if (held > 0) problems.push(heldDeletesLine(held, entity));
  if (counts.rejected > 0) problems.push(`${counts.rejected} value(s) not stored as sent (see invoice-mirror status)`);
  if (issuesBefore > 0)
    problems.push(
      `${issuesBefore} value(s) stored other than as sent by an earlier pull (see invoice-mirror status); the next full pull reads them again`,
    );
  if (unresolved > 0)
    problems.push(
      `${unresolved} record(s) the mirror holds as open were not found upstream; they stay until the next pull, a full one, confirms`,
    );
  return problems;
}

/** The delete policy of a run given only the CLI's `allowDeletes` (tests and callers without a config). */
function policyOf(options: SyncOptions): DeletePolicy {
  return { ...DEFAULT_DELETE_POLICY, allow: options.allowDeletes ?? [] };
}
