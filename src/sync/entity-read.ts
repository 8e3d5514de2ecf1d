/**
 * The reading phase of one entity's pull (see entity-pull.ts): its lists page by page, each
 * compared with the mirror and written (up to writeConcurrency pages at once) while the next is
 * fetched; for an incremental pull, what the mirror holds as changing and the lists did not have.
 * It gives back a `Reading`: counts, the keys seen, the issues' counts and how it stopped.
 */
import type { Kysely } from 'kysely';
import {
  NotFoundError,
  textFingerprint,
  type Page,
  type PageElement,
  type PageStream,
  type ValueIssue,
} from '../api/index.js';
import { MAX_INTEGER, type EntityName, type SingleReadEntity } from '../catalog/index.js';
import type { Database } from '../db/index.js';
import { errorMessage } from '../errors.js';
import {
  identify,
  type EntityDefinition,
  type EntityRecord,
  type ReadEntityRecord,
  type RecordIdentity,
} from './entities.js';
import { entityTable, type EntityTable } from './entity-table.js';
import { listsOf } from './incremental.js';
import { keysDiffering } from './merge.js';
import { PageWriter, refusedIssue, type WriteCounts } from './page-writer.js';
import { ResumeCheck } from './resume.js';
import { stagePage, uniqueRecords } from './staging.js';
import { isServiceError, readToEnd, stopOf, type Stop } from './stop.js';
import type { PullRun, SyncProgress } from './types.js';
import type { PlannedPull } from './entity-plan.js';

/** How often a full pull saves where it is (what a kill loses at most). */
const SAVE_CURSOR_EVERY_MS = 10_000;

/** What a reading found, once its pages are stored. */
export interface Reading {
  readonly stop: Stop;
  readonly counts: WriteCounts & { fetched: number; rejected: number };
  readonly pages: number;
  /** Keys seen upstream: the sweep spares them. */
  readonly seen: ReadonlySet<number>;
  /** Records skipped without a usable id: while there are any, nothing is swept. */
  readonly unidentified: number;
  /** Records the mirror holds as changing that a single read did not find. */
  readonly unresolved: number;
  /** A cap on `count` learned on the way, to remember. */
  readonly learnedCap: number | null;
}

export class EntityReader {
  private readonly entity: EntityName;
  private readonly writer: PageWriter;
  /**
   * Where the reading writes (pages, issues, its cursor): the pool when pages are written several
   * at once, which leaves the run's own connection to the entity before, concluding meanwhile;
   * else the run's connection.
   */
  private readonly table: EntityTable;
  /** Issues met since the last page was written; recorded after it (see recordPendingIssues). */
  private readonly pendingIssues: ValueIssue[] = [];
  private readonly streams: PageStream<EntityRecord>[] = [];
  private readonly seen = new Set<number>();
  /**
   * Whether list pages add to `seen`: the sweep and the single reads use it, and a table that was
   * empty is not swept; an incremental pull needs the keys it saw even into an empty table.
   */
  private readonly trackSeen: boolean;
  private readonly counts = { fetched: 0, rejected: 0 };
  private pages = 0;
  private unidentified: number;
  private unresolved = 0;
  private learnedCap: number | null = null;
  /** The first list, its first page asked for ahead (see prefetch). */
  private ahead: PageStream<EntityRecord> | undefined;
  /** The pass's pages and records before this pull, and when its cursor was last saved. */
  private readonly before: { pages: number; fetched: number };
  private cursorSavedAt = performance.now();
  /** The last pages being stored while the next entity is read (see read). */
  private storing: Promise<void> | undefined;
  private readonly resumeCheck: ResumeCheck | null;
  /** A reading stopped short after a page (the signal, giving way), or failed. */
  private stoppedShort: Stop | null = null;

  constructor(
    private readonly run: PullRun,
    readonly definition: EntityDefinition,
    private readonly planned: PlannedPull,
  ) {
    this.entity = definition.name;
    this.trackSeen = !planned.tableWasEmpty || planned.plan.mode === 'incremental';
    const { resumed } = planned;
    this.before = { pages: resumed?.pages ?? 0, fetched: resumed?.fetched ?? 0 };
    for (const key of resumed?.seenKeys ?? []) this.seen.add(key);
    this.unidentified = resumed?.unidentified ?? 0;
    this.resumeCheck = resumed ? new ResumeCheck(this.entity, resumed, run.session.log) : null;
    const concurrency = run.settings.writeConcurrency ?? 1;
    const db: Kysely<Database> = concurrency > 1 ? run.session.db : run.runDb;
    this.table = entityTable({ account: run.session.account, db }, definition);
    this.writer = new PageWriter(
      this.table,
      run.runId,
      planned.tableWasEmpty ? 'insert' : 'merge',
      concurrency,
      (refused) => this.pendingIssues.push(refusedIssue(definition, refused)),
    );
  }

  /** How the reading stopped (one formula: what stopped it short, else how its lists ended). */
  get stop(): Stop {
    if (this.stoppedShort) return this.stoppedShort;
    const unfinished = this.streams.find((stream) => !stream.complete);
    if (this.resumeCheck?.shifted) return { kind: 'shifted', finished: unfinished === undefined };
    return unfinished ? { kind: 'unfinished', warnings: unfinished.warnings } : { kind: 'end' };
  }

  /** Settles once the pages read are stored (or could not be), whatever comes of it. */
  get stored(): Promise<void> {
    return (this.storing ?? Promise.resolve()).catch(() => {});
  }

  /** Whether the reading leaves the run's own connection alone (see table). */
  get readsAside(): boolean {
    return this.table.db !== this.run.runDb;
  }

  /**
   * Reads and stores the lists (and what changes). A failure while reading stops the reading (the
   * writes in flight are awaited); a pull stopped early saves where it stands. A pull that read
   * every list to its end stores its last pages while the next entity is read (`finish` waits for
   * them): a sync where records changed writes them when its list ends.
   */
  async read(onRequestsDone?: () => void): Promise<Stop> {
    try {
      await this.readLists();
      if (this.planned.plan.mode === 'incremental' && readToEnd(this.stop)) await this.readChanging();
      if (readToEnd(this.stop)) {
        onRequestsDone?.();
        this.storing = this.store();
        this.storing.catch(() => {}); // awaited by finish, or by `stored` when the run fails first
        return this.stop;
      }
    } catch (error) {
      this.fail(error);
    }
    await this.store();
    // Stopped early with every page read so far stored: the pass goes on from here next time.
    // (Not after a lost connection: the run's own one may be the one lost.)
    const unfinished = this.streams.some((stream) => !stream.complete);
    if (unfinished && !this.writer.failed && this.stop.kind !== 'connectionLost')
      await this.saveCursor().catch((error: unknown) =>
        this.run.session.log.warn(
          { entity: this.entity, error: errorMessage(error) },
          'could not save where the pull stands',
        ),
      );
    return this.stop;
  }

  /** After `read`: what it found, once its last pages are stored. */
  async finish(): Promise<Reading> {
    await this.storing;
    return {
      stop: this.stop,
      counts: { ...this.writer.counts, ...this.counts },
      pages: this.pages,
      seen: this.seen,
      unidentified: this.unidentified,
      unresolved: this.unresolved,
      learnedCap: this.learnedCap,
    };
  }

  private fail(error: unknown): void {
    const stop = stopOf(this.entity, error);
    this.stoppedShort = stop;
    const { log } = this.run.session;
    if (!isServiceError(error)) log.error({ err: error, entity: this.entity }, 'pull failed');
    log.warn(
      { entity: this.entity, error: 'error' in stop ? stop.error : null },
      'pull stopped early; nothing is marked deleted',
    );
  }

  /**
   * Waits for the page writes (a failure among them is the pull's: the writer already tried a lost
   * connection twice more), then records the issues they met.
   */
  private async store(): Promise<void> {
    if (this.stoppedShort && 'error' in this.stoppedShort) await this.writer.settle();
    else
      await this.writer.finish().catch(async (error: unknown) => {
        await this.writer.settle();
        this.fail(error);
      });
    await this.recordPendingIssues();
  }

  // ---- read the lists ---------------------------------------------------------------------

  /** Reads each list to its end, page by page, unless one does not end or the run is stopped. */
  private async readLists(): Promise<void> {
    for (const filters of listsOf(this.definition, this.planned.plan)) {
      const stream = this.ahead ?? this.listOf(filters);
      this.ahead = undefined;
      this.streams.push(stream);
      for await (const page of stream) {
        // The page a resumed pass ended with, read again and unchanged: stored already.
        if (this.resumeCheck?.repeat(page.start, stream.position)) continue;
        await this.takePage(page);
        this.stoppedShort = this.stopAfterPage();
        if (this.stoppedShort) return;
        if (this.resumable && performance.now() - this.cursorSavedAt > SAVE_CURSOR_EVERY_MS) {
          await this.writer.finish();
          await this.saveCursor();
        }
      }
      this.resumeCheck?.ended(stream.complete);
      if (!stream.complete) return;
    }
  }

  /** After a page: the run's signal, or a reason to give way (a full pull only: it can go on later). */
  private stopAfterPage(): Stop | null {
    if (this.run.options.signal?.aborted) return { kind: 'interrupted' };
    const reason = this.resumable ? (this.run.options.giveWay?.() ?? null) : null;
    return reason ? { kind: 'gaveWay', reason, pages: this.pages } : null;
  }

  /** A full pull reads one list, so it can go on from where it stopped (see resume.ts). */
  private get resumable(): boolean {
    return this.planned.plan.mode === 'full';
  }

  /** Saves where the full pull stands, once every page read so far is stored. */
  private async saveCursor(): Promise<void> {
    const position = this.streams[0]?.position;
    if (!this.resumable || !position) return;
    await this.table.saveCursor({
      passRunId: this.planned.passRunId,
      passStartedAt: this.planned.startedAt,
      tableWasEmpty: this.planned.tableWasEmpty,
      nextStart: position.nextStart,
      lastPage: position.lastPage,
      seenKeys: [...this.seen],
      unidentified: this.unidentified,
      fetched: this.before.fetched + this.counts.fetched,
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
    return this.run.session.client.list(this.entity, {
      pageSize: this.run.options.pageSize,
      wait: false,
      filters,
      knownCap: this.learnedCap ?? this.planned.knownCap,
      onCapLearned: (max) => {
        this.learnedCap = max;
      },
      // Into an empty table every record is new: nothing to compare.
      unchanged: this.planned.tableWasEmpty ? undefined : (elements) => this.unchangedOf(elements),
      held: this.planned.held,
      from: this.planned.resumed?.lastPage.start,
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
    const { stored, keysWithIssues, keyOfHash } = (await this.planned.comparison)!;
    // A record whose key is made from it (a tax rate) shows none in its text: a text held byte for
    // byte has the key of the row that holds it.
    if (keyOfHash)
      for (const element of elements)
        element.key ??= keyOfHash.get(element.fingerprint ?? textFingerprint(element.bytes)) ?? null;
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
    this.counts.fetched += page.received;
    this.pages++;
    for (const skipped of page.skipped) this.noteSkipped(skipped);
    // Exactly as stored (see unchangedOf): seen, counted, nothing else.
    if (this.trackSeen) for (const element of page.unchanged) this.seen.add(element.key!);
    this.writer.countUnchanged(page.unchanged.length);
    const records = uniqueRecords(this.definition, page.records, this.pendingIssues, this.run.session.log);
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
    this.run.session.log.warn(
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
    this.counts.rejected += issues.length;
    await this.table.recordIssues(this.run.runId, issues);
  }

  // ---- read what changes ------------------------------------------------------------------

  /**
   * What the mirror holds as open and neither list had: paid, written off or deleted since.
   * Read one by one, then written as one page.
   */
  private async readChanging(): Promise<void> {
    const reads: ReadEntityRecord[] = [];
    for (const key of await this.table.changingNotListed(this.seen)) {
      if (this.run.options.signal?.aborted) {
        this.stoppedShort = { kind: 'interrupted' };
        break;
      }
      const read = await this.readOne(key);
      if (read) reads.push(read);
    }
    if (reads.length === 0) return;
    this.counts.fetched += reads.length;
    const identities = this.identified(reads, true);
    const needed = await this.table.keysToMerge(identities);
    await this.write(reads, identities, needed);
  }

  /** One record by key; null when the service does not have it. */
  private async readOne(key: number): Promise<ReadEntityRecord | null> {
    try {
      return await this.run.session.client.read(this.entity as SingleReadEntity, key);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // One missing record is not proof enough of a delete: the next pull, a full one, decides.
      this.unresolved++;
      this.run.session.log.warn(
        { entity: this.entity, id: key },
        'held as open in the mirror, but not found upstream; the next pull reconciles',
      );
      return null;
    }
  }

  progress(state: SyncProgress['state']): void {
    this.run.options.onProgress?.({
      entity: this.entity,
      fetched: this.counts.fetched,
      pages: this.pages,
      expected: this.planned.expected,
      elapsedMs: performance.now() - this.planned.began,
      state,
    });
  }
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
