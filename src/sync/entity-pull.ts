/**
 * The pull of one entity, in phases:
 *
 * - **plan**: full or incremental (see incremental.ts), how pages are written (plain inserts into
 *   a table that was empty), the cap on `count` learned before, the records expected;
 * - **read the lists**: page by page, each compared with the mirror and written (up to
 *   writeConcurrency at once) while the next page is fetched;
 * - **read what changes** (incremental pulls): one by one, what the mirror holds as changing and
 *   the lists did not have;
 * - **conclude** a complete pull: sweep the records not seen (with the delete safeguard), record
 *   the pull and its cursor;
 * - a full pull that stops early saves where it is (resume.ts), and the next pull of the entity
 *   goes on from there: a long list is read in slices (the run gives way when `options.giveWay`
 *   says so) and survives kills, quota pauses and restarts;
 * - **report problems**: what keeps the entity from being pulled completely and stored exactly,
 *   as its error.
 */
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  ApiError,
  AuthenticationError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  textFingerprint,
  type HeldFingerprints,
  type Page,
  type PageElement,
  type PageStream,
  type ValueIssue,
} from '../api/index.js';
import { MAX_INTEGER, type EntityName, type SingleReadEntity } from '../catalog/index.js';
import { heldDeletesLine, type Database } from '../db/index.js';
import { errorMessage, isConnectionLost } from '../errors.js';
import {
  identify,
  type EntityDefinition,
  type EntityRecord,
  type ReadEntityRecord,
  type RecordIdentity,
} from './entities.js';
import {
  changingNotListed,
  DEFAULT_RECONCILE_HOURS,
  earlierIssues,
  listsOf,
  planPull,
  recordCompletePull,
  type PullPlan,
} from './incremental.js';
import { analyzeFilled, keysDiffering, keysToMerge, storedHashes, touchSeen } from './merge.js';
import { PageWriter, refusedIssue } from './page-writer.js';
import { keysWithIssues, recordIssues, resolveIssues } from './rejected.js';
import { dropCursor, saveCursor, type PassCursor, type PassUnderWay } from './resume.js';
import { DEFAULT_DELETE_POLICY, sweepWithSafeguard, type DeletePolicy } from './safeguard.js';
import { stagePage, uniqueRecords } from './staging.js';
import type { EntityOutcome, SyncDeps, SyncOptions, SyncProgress } from './run.js';

/** What every entity's pull of a run shares. */
export interface PullContext {
  /** The run's own connection (it holds the run's lock). */
  db: Kysely<Database>;
  /** The account pulled (every row read or written is this account's). */
  accountId: number;
  deps: SyncDeps;
  options: SyncOptions;
  runId: number;
  log: Logger;
  /** The account's pass under way, read once per run (see resume.ts); its cursors resume the pulls. */
  pass: PassUnderWay | null;
}

export interface EntityPullResult {
  outcome: EntityOutcome;
  /** The other entities would fail the same way (see endsRun). */
  stopRun: boolean;
  /** A database connection was lost: the entity may be pulled again. */
  connectionLost: boolean;
  /** The service refused the account's credentials (401). */
  refused: boolean;
  /** It gave way (options.giveWay) after a page; its pass goes on at the next pull. */
  gaveWay: string | null;
}

/** How often an unchanged row's `last_seen_at` is refreshed (see touchSeen). */
const LAST_SEEN_RESOLUTION_HOURS = 24;
/** Records inserted into an empty table from which its key columns are analyzed (see analyzeFilled). */
const ANALYZE_AFTER_FILLING = 1_000;
/** How often a full pull saves where it is (what a kill loses at most). */
const SAVE_CURSOR_EVERY_MS = 10_000;

/** An entity's pull planned ahead, its first page asked for (see prepareEntityPull). */
export interface PreparedPull {
  readonly definition: EntityDefinition;
}

/**
 * Plans an entity's pull and asks for its first page, while the run's connection still concludes
 * the entity before: the plan reads through the pool (its queries only read), and the request
 * waits for the client's slot like any other. Its plan's clock is then earlier, which only spares
 * more rows from its sweep.
 */
export async function prepareEntityPull(context: PullContext, definition: EntityDefinition): Promise<PreparedPull> {
  const pull = new EntityPull(
    context,
    definition,
    await planEntityPull({ ...context, db: context.deps.db }, definition),
  );
  pull.prefetch();
  return pull;
}

/** An entity's pull whose lists are read and stored, its conclusion still to come. */
export interface ReadPull {
  /** What its reading found that the run must know before it goes on (see EntityPullResult). */
  readonly stopRun: boolean;
  readonly connectionLost: boolean;
  readonly gaveWay: string | null;
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
  context: PullContext,
  definition: EntityDefinition,
  { prepared, onRequestsDone }: { prepared?: PreparedPull; onRequestsDone?: () => void } = {},
): Promise<ReadPull> {
  const pull =
    prepared instanceof EntityPull && prepared.definition === definition
      ? prepared
      : new EntityPull(context, definition, await planEntityPull(context, definition));
  await pull.read(onRequestsDone);
  return {
    stopRun: pull.stopRun,
    connectionLost: pull.connectionLost,
    gaveWay: pull.gaveWay,
    concludesAside: pull.readsAside,
    stored: pull.stored,
    conclude: async () => {
      await pull.finish();
      return {
        outcome: pull.outcome,
        stopRun: pull.stopRun,
        connectionLost: pull.connectionLost,
        refused: pull.refused,
        gaveWay: pull.gaveWay,
      };
    },
  };
}

/** What the mirror held when a pull began, to tell the records of a page that need nothing. */
interface Comparison {
  /** The hashes of the live rows, by key: loaded in one query rather than one per page. */
  stored: ReadonlyMap<number, string | null>;
  /**
   * Keys with `rejected_values` rows. Their records are read in full even when unchanged, so that
   * their rows are met again (and kept) as before.
   */
  keysWithIssues: ReadonlySet<number>;
}

/** The plan phase's findings. */
interface PlannedPull {
  plan: PullPlan;
  /**
   * The database's clock, the one `last_changed_at` is written with: rows changed after this
   * moment by someone else (a job's refresh) are not swept even though this pull missed them.
   */
  startedAt: Date;
  /** performance.now() when the pull began, for progress. */
  began: number;
  /**
   * Into an empty table every record is new: asking which ones changed is skipped, and pages are
   * written as plain inserts until one meets a stored key (then the page is merged instead).
   */
  tableWasEmpty: boolean;
  /** The cap on `count` learned by an earlier pull. */
  knownCap: number | null;
  /**
   * What a page's records are compared with (null for an empty table), read while the first page
   * travels (see Comparison).
   */
  comparison: Promise<Comparison> | null;
  /** The stored texts' fingerprints once `comparison` is read (for the split: see splitJsonArray). */
  held: () => HeldFingerprints | undefined;
  /** The records a full pull should find (for progress), when known. */
  expected: number | null;
  /** The pass this pull goes on with (its list resumes at its last page), if any. */
  resumed: PassCursor | null;
}

async function planEntityPull(
  { db, accountId, deps, options, log, pass }: PullContext,
  definition: EntityDefinition,
): Promise<PlannedPull> {
  const entity = definition.name;
  const began = performance.now();
  // The clock, whether the table is empty and the cap on `count`: one statement, as each costs a
  // round trip and its planning on every pull of every account.
  const [{ rows: found }, planned] = await Promise.all([
    sql<{ now: Date; empty: boolean; cap: number | null }>`
      select clock_timestamp() as now,
        not exists (select 1 from ${sql.table(entity)} where account_id = ${accountId}) as empty,
        (select max_count from list_caps where account_id = ${accountId} and list = ${entity}) as cap`.execute(db),
    planPull(db, accountId, definition, {
      full: options.kind === 'backfill' || options.full === true,
      reconcileAfterHours: deps.reconcileAfterHours ?? DEFAULT_RECONCILE_HOURS,
    }),
  ]);
  const state = found[0]!;
  const resumed = pass?.cursors.get(entity) ?? null;
  // A pass under way goes on, whatever this pull would otherwise be.
  const plan: PullPlan = resumed ? { mode: 'full', reason: 'going on with its pass' } : planned;
  if (resumed)
    log.info(
      { entity, start: resumed.nextStart, fetched: resumed.fetched },
      'going on with the pass from its last page',
    );
  if (plan.mode === 'full' && definition.incremental)
    log.info({ entity, reason: plan.reason }, 'full, reconciling pull');
  const expected = options.onProgress && plan.mode === 'full' ? await expectedRecords(db, accountId, entity) : null;
  const tableWasEmpty = resumed?.tableWasEmpty ?? state.empty;
  const comparison = tableWasEmpty ? null : compareWith(db, accountId, definition);
  let held: HeldFingerprints | undefined;
  // Awaited with the first page; until then (or if the pull fails first) a failure is not unhandled.
  comparison?.then(
    ({ stored }) => {
      held = (key) => stored.get(key);
    },
    () => {},
  );
  return {
    plan,
    startedAt: resumed?.passStartedAt ?? state.now,
    began,
    tableWasEmpty,
    knownCap: state.cap === null ? null : Number(state.cap),
    comparison,
    held: () => held,
    expected,
    resumed,
  };
}

async function compareWith(db: Kysely<Database>, accountId: number, definition: EntityDefinition): Promise<Comparison> {
  const [stored, issues] = await Promise.all([
    storedHashes(db, accountId, definition),
    keysWithIssues(db, accountId, definition.name),
  ]);
  return { stored, keysWithIssues: issues };
}

/** The live rows of an entity pulled completely before (what a full pull should find), else null. */
async function expectedRecords(db: Kysely<Database>, accountId: number, entity: EntityName): Promise<number | null> {
  const { rows } = await sql<{ live: number | null }>`
    select case when exists (select 1 from entity_pulls
                              where account_id = ${accountId} and entity = ${entity} and last_complete_at is not null)
                then (select count(*) from ${sql.table(entity)} where account_id = ${accountId} and deleted_at is null)::int
           end as live`.execute(db);
  return rows[0]?.live ?? null;
}

class EntityPull {
  readonly outcome: EntityOutcome = {
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
  stopRun = false;
  connectionLost = false;
  refused = false;
  gaveWay: string | null = null;

  private readonly entity: EntityName;
  private readonly writer: PageWriter;
  /**
   * Where the reading phase writes (pages, issues, its cursor): the pool when pages are written
   * several at once, which leaves the run's own connection to the entity before, concluding
   * meanwhile; else the run's connection.
   */
  private readonly readDb: Kysely<Database>;
  /** Issues met since the last page was written; recorded after it (see recordPendingIssues). */
  private readonly pendingIssues: ValueIssue[] = [];
  private readonly streams: PageStream<EntityRecord>[] = [];
  /** Keys seen upstream: the sweep spares them, the single reads skip them. */
  private readonly seen = new Set<number>();
  /**
   * Whether list pages add to `seen`: the sweep and the single reads use it, and a table that was
   * empty is not swept; an incremental pull needs the keys it saw even into an empty table.
   */
  private readonly trackSeen: boolean;
  private pages = 0;
  /** Records skipped without a usable id: while there are any, nothing is swept. */
  private unidentified = 0;
  /** Records the mirror holds as changing that a single read did not find. */
  private unresolved = 0;
  /** Values stored other than as sent by an earlier pull and not read again by this (incremental) one. */
  private issuesBefore = 0;
  private stoppedEarly = false;
  private learnedCap: number | null = null;
  /** The first list, its first page asked for ahead (see prefetch). */
  private ahead: PageStream<EntityRecord> | undefined;
  /** The run that began this full pull's pass (an earlier one when it resumed). */
  private readonly passRunId: number;
  /** The pass's pages and records before this pull, and when its cursor was last saved. */
  private readonly before: { pages: number; fetched: number };
  private cursorSavedAt = performance.now();
  /** The last pages being stored while the next entity is read (see read). */
  private storing: Promise<void> | undefined;

  constructor(
    private readonly context: PullContext,
    readonly definition: EntityDefinition,
    private readonly planned: PlannedPull,
  ) {
    this.entity = definition.name;
    if (planned.plan.mode === 'incremental') this.outcome.incremental = true;
    this.trackSeen = !planned.tableWasEmpty || planned.plan.mode === 'incremental';
    const { deps, db, runId } = context;
    const resumed = planned.resumed;
    this.passRunId = resumed?.passRunId ?? runId;
    this.before = { pages: resumed?.pages ?? 0, fetched: resumed?.fetched ?? 0 };
    for (const key of resumed?.seenKeys ?? []) this.seen.add(key);
    this.unidentified = resumed?.unidentified ?? 0;
    const concurrency = deps.writeConcurrency ?? 1;
    this.readDb = concurrency > 1 ? deps.db : db;
    this.writer = new PageWriter(
      this.readDb,
      context.accountId,
      definition,
      runId,
      planned.tableWasEmpty ? 'insert' : 'merge',
      concurrency,
      (refused) => this.pendingIssues.push(refusedIssue(definition, refused)),
    );
  }

  /** Settles once the pages read are stored (or could not be), whatever comes of it. */
  get stored(): Promise<void> {
    return (this.storing ?? Promise.resolve()).catch(() => {});
  }

  /** Whether the reading phase leaves the run's own connection alone (see readDb). */
  get readsAside(): boolean {
    return this.readDb !== this.context.db;
  }

  /**
   * Reads and stores the lists (and what changes). A failure while reading stops the reading (the
   * writes in flight are awaited); a pull stopped early saves where it stands. A pull that read
   * every list to its end stores its last pages while the next entity is read (`finish` waits for
   * them): a sync where records changed writes them when its list ends.
   */
  async read(onRequestsDone?: () => void): Promise<void> {
    try {
      await this.readLists();
      const readAll = !this.stoppedEarly && this.unfinishedList() === undefined;
      if (this.planned.plan.mode === 'incremental' && readAll) await this.readChanging();
      if (readAll && !this.stoppedEarly) {
        onRequestsDone?.();
        this.storing = this.store();
        this.storing.catch(() => {}); // awaited by finish, or by `stored` when the run fails first
        return;
      }
    } catch (error) {
      this.failed(error);
    }
    await this.store();
    // Stopped early with every page read so far stored: the pass goes on from here next time.
    // (Not after a lost connection: the run's own one may be the one lost.)
    if (this.unfinishedList() && !this.writer.failed && !this.connectionLost)
      await this.saveCursor().catch((error: unknown) =>
        this.context.log.warn(
          { entity: this.entity, error: errorMessage(error) },
          'could not save where the pull stands',
        ),
      );
  }

  /**
   * Waits for the page writes (a failure among them is the pull's: the writer already tried a lost
   * connection twice more), then takes their counts and records the issues they met.
   */
  private async store(): Promise<void> {
    if (this.outcome.error) await this.writer.settle();
    else
      await this.writer.finish().catch(async (error: unknown) => {
        await this.writer.settle();
        this.failed(error);
      });
    Object.assign(this.outcome, this.writer.counts);
    await this.recordPendingIssues();
  }

  /** After `read`: only a pull that read every list to its end is concluded; then its problems. */
  async finish(): Promise<void> {
    await this.storing;
    if (this.learnedCap !== null) await rememberCap(this.context, this.entity, this.learnedCap);
    const listComplete = !this.outcome.error && !this.stoppedEarly && this.unfinishedList() === undefined;
    if (listComplete && this.unidentified === 0) await this.conclude();
    if (!this.outcome.error) this.reportProblems();
    // Done: read to its end (the outcome's `complete` says whether it is also stored exactly);
    // stopped: a signal ended it after a page; failed: the list did not end (an error).
    const stopped = this.stoppedEarly || this.context.options.signal?.aborted === true;
    this.progress(listComplete ? 'done' : stopped ? 'stopped' : 'failed');
  }

  // ---- read the lists ---------------------------------------------------------------------

  /** Reads each list to its end, page by page, unless one does not end or the run is stopped. */
  private async readLists(): Promise<void> {
    for (const filters of listsOf(this.definition, this.planned.plan)) {
      const stream = this.ahead ?? this.listOf(filters);
      this.ahead = undefined;
      this.streams.push(stream);
      for await (const page of stream) {
        await this.takePage(page);
        if (this.context.options.signal?.aborted) {
          this.stoppedEarly = true;
          return;
        }
        this.gaveWay = this.resumable ? (this.context.options.giveWay?.() ?? null) : null;
        if (this.gaveWay) {
          this.stoppedEarly = true;
          return;
        }
        if (this.resumable && performance.now() - this.cursorSavedAt > SAVE_CURSOR_EVERY_MS) {
          await this.writer.finish();
          await this.saveCursor();
        }
      }
      if (!stream.complete) return;
    }
  }

  /** A full pull reads one list, so it can go on from where it stopped (see resume.ts). */
  private get resumable(): boolean {
    return this.planned.plan.mode === 'full';
  }

  /** Saves where the full pull stands, once every page read so far is stored. */
  private async saveCursor(): Promise<void> {
    const position = this.streams[0]?.position;
    if (!this.resumable || !position) return;
    await saveCursor(this.readDb, this.context.accountId, this.entity, {
      passRunId: this.passRunId,
      passStartedAt: this.planned.startedAt,
      tableWasEmpty: this.planned.tableWasEmpty,
      nextStart: position.nextStart,
      lastPage: position.lastPage,
      seenKeys: [...this.seen],
      unidentified: this.unidentified,
      fetched: this.before.fetched + this.outcome.fetched,
      pages: this.before.pages + this.pages,
    });
    this.cursorSavedAt = performance.now();
  }

  /** Asks for the first page of the first list now (see prepareEntityPull). */
  prefetch(): void {
    const [first] = listsOf(this.definition, this.planned.plan);
    if (!first) return;
    this.ahead = this.listOf(first);
    this.ahead.prefetch();
  }

  private listOf(filters: Readonly<Record<string, string>>): PageStream<EntityRecord> {
    return this.context.deps.client.list(this.entity, {
      pageSize: this.context.options.pageSize,
      wait: false,
      filters,
      knownCap: this.learnedCap ?? this.planned.knownCap,
      onCapLearned: (max) => {
        this.learnedCap = max;
      },
      // Into an empty table every record is new: nothing to compare.
      unchanged: this.planned.tableWasEmpty ? undefined : (elements) => this.unchangedOf(elements),
      held: this.planned.held,
      resume: this.planned.resumed && {
        nextStart: this.planned.resumed.nextStart,
        lastPage: this.planned.resumed.lastPage,
      },
    });
  }

  /**
   * The elements of a page whose text is exactly the stored record's (the same fingerprint as
   * `raw_hash` of a live row when the pull began; the split took most of them as such already):
   * they need no decoding, parsing, checking or writing. Only
   * elements whose key the text shows plainly qualify, listed once on the page, without stored
   * issues (see keysWithIssues); the others are read as before.
   */
  private async unchangedOf(elements: readonly PageElement[]): Promise<Set<number>> {
    const { stored, keysWithIssues } = (await this.planned.comparison)!;
    const listed = new Map<number | string | null, number>();
    const keyOf = (element: PageElement) => element.key ?? comparableId(element.id);
    for (const element of elements) listed.set(keyOf(element), (listed.get(keyOf(element)) ?? 0) + 1);
    const unchanged = new Set<number>();
    elements.forEach(({ key, bytes, fingerprint }, index) => {
      if (key === null || listed.get(key) !== 1 || keysWithIssues.has(key)) return;
      const hash = stored.get(key);
      if (hash != null && hash === (fingerprint ?? textFingerprint(bytes))) unchanged.add(index);
    });
    return unchanged;
  }

  /** One page of a list: what could not be read is noted, the rest compared with the mirror and written. */
  private async takePage(page: Page<EntityRecord>): Promise<void> {
    this.outcome.fetched += page.received;
    this.pages++;
    for (const skipped of page.skipped) this.noteSkipped(skipped);
    // Exactly as stored (see unchangedOf): seen, counted, nothing else.
    if (this.trackSeen) for (const element of page.unchanged) this.seen.add(element.key!);
    this.writer.countUnchanged(page.unchanged.length);
    const records = uniqueRecords(this.definition, page.records, this.pendingIssues, this.context.log);
    const identities = this.identified(records, this.trackSeen);
    // A page of records that may be stored already: only the ones whose hash differs are written.
    const comparison = await this.planned.comparison;
    const needed = comparison && keysDiffering(identities, comparison.stored);
    await this.write(records, identities, needed);
    this.progress('pulling');
  }

  /** A record that cannot be stored: reported, and never swept when its id names a row. */
  private noteSkipped(skipped: ValueIssue): void {
    this.pendingIssues.push(skipped);
    const key = storableKey(skipped.id);
    if (key !== null)
      this.seen.add(key); // it exists upstream, even if we cannot read it: never sweep it
    else if (skipped.id === null || !/^\d+$/.test(skipped.id)) this.unidentified++;
    this.context.log.warn(
      { entity: this.entity, id: skipped.id, field: skipped.field },
      `record not stored: ${skipped.message}`,
    );
  }

  /** The records' identities; their issues are noted, and their keys seen when `track`. */
  private identified(records: readonly ReadEntityRecord[], track: boolean): RecordIdentity[] {
    for (const read of records) if (read.issues.length > 0) this.pendingIssues.push(...read.issues);
    const identities = records.map((read) => identify(this.definition, read));
    if (track) for (const identity of identities) this.seen.add(identity.key);
    return identities;
  }

  /** Writes the records that need it (see stagePage), then records the issues met on the way. */
  private async write(
    records: readonly ReadEntityRecord[],
    identities: readonly RecordIdentity[],
    needed: ReadonlySet<number> | null,
  ): Promise<void> {
    const page = stagePage(this.definition, records, identities, needed);
    this.writer.countUnchanged(records.length - page.size);
    await this.writer.write(page);
    await this.recordPendingIssues();
  }

  private async recordPendingIssues(): Promise<void> {
    if (this.pendingIssues.length === 0) return;
    const issues = this.pendingIssues.splice(0);
    this.outcome.rejected += issues.length;
    await recordIssues(this.readDb, this.context.accountId, this.context.runId, issues);
  }

  // ---- read what changes ------------------------------------------------------------------

  /**
   * What the mirror holds as open and neither list had: paid, written off or deleted since.
   * Read one by one, then written as one page.
   */
  private async readChanging(): Promise<void> {
    const reads: ReadEntityRecord[] = [];
    for (const key of await changingNotListed(this.readDb, this.context.accountId, this.definition, this.seen)) {
      if (this.context.options.signal?.aborted) {
        this.stoppedEarly = true;
        break;
      }
      const read = await this.readOne(key);
      if (read) reads.push(read);
    }
    if (reads.length === 0) return;
    this.outcome.fetched += reads.length;
    const identities = this.identified(reads, true);
    const needed = await keysToMerge(this.readDb, this.context.accountId, this.definition, identities);
    await this.write(reads, identities, needed);
  }

  /** One record by key; null when the service does not have it. */
  private async readOne(key: number): Promise<ReadEntityRecord | null> {
    try {
      return await this.context.deps.client.read(this.entity as SingleReadEntity, key);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // One missing record is not proof enough of a delete: the next pull, a full one, decides.
      this.unresolved++;
      this.context.log.warn(
        { entity: this.entity, id: key },
        'held as open in the mirror, but not found upstream; the next pull reconciles',
      );
      return null;
    }
  }

  // ---- conclude ---------------------------------------------------------------------------

  private failed(error: unknown): void {
    const { log } = this.context;
    this.outcome.error = `${this.entity}: ${errorMessage(error)}`;
    this.stopRun = endsRun(error);
    this.connectionLost = isConnectionLost(error);
    this.refused = error instanceof AuthenticationError;
    if (!(error instanceof ApiError)) log.error({ err: error, entity: this.entity }, 'pull failed');
    log.warn({ entity: this.entity, error: this.outcome.error }, 'pull stopped early; nothing is marked deleted');
  }

  private unfinishedList(): PageStream<unknown> | undefined {
    return this.streams.find((stream) => !stream.complete);
  }

  /** After every list was read to its end and every record identified. */
  private async conclude(): Promise<void> {
    if (this.planned.plan.mode === 'incremental') await this.concludeIncremental();
    else await this.concludeFull();
    if (this.resumable) await dropCursor(this.context.db, this.context.accountId, this.entity);
    if (this.planned.tableWasEmpty && this.outcome.inserted >= ANALYZE_AFTER_FILLING)
      await analyzeFilled(this.context.db, this.definition);
  }

  /** Only what can have changed was read: nothing is swept, and issues of records not read stay. */
  private async concludeIncremental(): Promise<void> {
    const { db, accountId, runId } = this.context;
    await touchSeen(db, accountId, this.definition, this.seen, LAST_SEEN_RESOLUTION_HOURS);
    await recordCompletePull(db, accountId, this.definition, runId, this.planned.plan, this.unresolved > 0);
    this.issuesBefore = await earlierIssues(db, accountId, this.entity, runId);
    this.outcome.complete = this.outcome.rejected === 0 && this.issuesBefore === 0 && this.unresolved === 0;
  }

  private async concludeFull(): Promise<void> {
    const { db, accountId, deps, options, runId, log } = this.context;
    // A table that was empty when the pull began holds only rows written during the pull (by it,
    // or by a job's refresh): the sweep is for older rows, and every `last_seen_at` is fresh. So
    // both scans are skipped; the next pull judges any row this one did not see. A pass whose list
    // shifted while it was away may have skipped a record: it sweeps nothing either.
    if (this.streams.some((stream) => stream.shiftedOnResume)) {
      this.outcome.complete = false;
      return;
    }
    if (!this.planned.tableWasEmpty) {
      const policy = deps.deletes ?? policyOf(options);
      const swept = await sweepWithSafeguard(
        db,
        accountId,
        this.definition,
        this.seen,
        this.planned.startedAt,
        runId,
        policy,
        log,
      );
      this.outcome.deleted = swept.deleted;
      this.outcome.held = swept.held;
      await touchSeen(db, accountId, this.definition, this.seen, LAST_SEEN_RESOLUTION_HOURS);
    }
    await resolveIssues(db, accountId, this.entity, this.passRunId);
    await recordCompletePull(db, accountId, this.definition, runId, this.planned.plan, false);
    // A pass over several runs: what its earlier runs met is not stored as sent either.
    if (this.passRunId !== runId) this.issuesBefore = await earlierIssues(db, accountId, this.entity, runId);
    this.outcome.complete = this.outcome.held === 0 && this.outcome.rejected === 0 && this.issuesBefore === 0;
  }

  // ---- report problems --------------------------------------------------------------------

  /** What kept a pull that did not fail from being complete, as the entity's error. */
  private reportProblems(): void {
    const { entity, outcome } = this;
    const unfinished = this.unfinishedList();
    const problems: string[] = [];
    if (this.gaveWay)
      problems.push(`gave way after ${this.pages} page(s) (${this.gaveWay}); the pull goes on from there`);
    else if (this.stoppedEarly) problems.push('stopped before the end of the list');
    else if (this.streams.some((stream) => stream.shiftedOnResume))
      problems.push(
        'the list changed while the pull was away, so a record may have been skipped; nothing is marked deleted until the next complete pass',
      );
    else if (unfinished)
      problems.push(`the list did not end cleanly (${unfinished.warnings.join('; ') || 'incomplete'})`);
    else if (this.unidentified > 0)
      problems.push(`${this.unidentified} record(s) without a readable id; nothing is marked deleted`);
    if (outcome.held > 0) problems.push(heldDeletesLine(outcome.held, entity));
    if (outcome.rejected > 0)
      problems.push(`${outcome.rejected} value(s) not stored as sent (see invoice-mirror status)`);
    if (this.issuesBefore > 0)
      problems.push(
        `${this.issuesBefore} value(s) stored other than as sent by an earlier pull (see invoice-mirror status); the next full pull reads them again`,
      );
    if (this.unresolved > 0)
      problems.push(
        `${this.unresolved} record(s) the mirror holds as open were not found upstream; they stay until the next pull, a full one, confirms`,
      );
    if (problems.length > 0) outcome.error = `${entity}: ${problems.join('; ')}`;
  }

  private progress(state: SyncProgress['state']): void {
    this.context.options.onProgress?.({
      entity: this.entity,
      fetched: this.outcome.fetched,
      pages: this.pages,
      expected: this.planned.expected,
      elapsedMs: performance.now() - this.planned.began,
      state,
    });
  }
}

/** The error that ends the whole run: without a quota, valid credentials or a reachable service, every entity would fail the same way. */
function endsRun(error: unknown): boolean {
  return (
    error instanceof RateLimitedError ||
    error instanceof AuthenticationError ||
    (error instanceof NetworkError && error.transport === 'connect')
  );
}

/**
 * An id as paging compares it, made comparable with plain keys where it is a number (`"05"`,
 * `5.0` and `5` name the same record), so that two copies of a record are never told apart.
 */
function comparableId(id: string | null): number | string | null {
  const n = id === null || id.trim() === '' ? Number.NaN : Number(id);
  return Number.isFinite(n) ? n : id;
}

/** The numeric id text of a record that could not be stored, when it could name a stored row. */
function storableKey(id: string | null): number | null {
  if (id === null || !/^\d+$/.test(id)) return null;
  const key = Number(id);
  return key <= MAX_INTEGER ? key : null;
}

/** The delete policy of a run given only the CLI's `allowDeletes` (tests and callers without a config). */
function policyOf(options: SyncOptions): DeletePolicy {
  return { ...DEFAULT_DELETE_POLICY, allow: options.allowDeletes ?? [] };
}

async function rememberCap({ db, accountId, runId }: PullContext, list: string, maxCount: number): Promise<void> {
  await db
    .insertInto('list_caps')
    .values({ account_id: accountId, list, max_count: maxCount, run_id: runId })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'list'])
        .doUpdateSet({ max_count: maxCount, run_id: runId, learned_at: sql`clock_timestamp()` }),
    )
    .execute();
}
