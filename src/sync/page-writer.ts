/**
 * Writes an entity's pages as they arrive: up to `concurrency` pages at once (each its own
 * statement and transaction), in `insert` mode until a page meets a stored key, then `merge`.
 *
 * No write's failure escapes unobserved: each in-flight write is watched from the moment it
 * starts, and the first failure is thrown by the next `write` or by `finish`. A page Postgres
 * refuses because of one record's data (a value it cannot parse or store) is split in halves until
 * the record is alone; that record is reported (`onRecordRefused`) and the others are stored.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ValueIssue } from '../api/index.js';
import { isConnectionLost } from '../errors.js';
import type { EntityDefinition } from './entities.js';
import type { EntityTable } from './entity-table.js';
import type { WriteMode } from './merge.js';
import { firstRecordOf, joinPages, splitPage, type PageText } from './page-text.js';
import { skippedRecord } from './rejected.js';

/**
 * Merged pages of fewer records than this are gathered until they hold this many (or the pull
 * ends) and written by one statement: a sync where little changed writes a few records per page,
 * and each statement costs its planning and a round trip whatever it holds.
 */
const GATHER_BELOW = 250;

/** SQLSTATE of a deadlock: two page writes that shared a key (a record listed twice, or refreshed meanwhile). */
const DEADLOCK_DETECTED = '40P01';

/** SQLSTATE classes of a statement refused for its data: 22 (data exception), 23 (integrity), 21 (cardinality), 54 (limits). */
const REFUSED_FOR_DATA = /^(22|23|21|54)/;

export interface WriteCounts {
  inserted: number;
  updated: number;
  restored: number;
  unchanged: number;
}

export interface RefusedRecord {
  key: string;
  rawText: string;
  /** What Postgres said. */
  error: Error;
}

/** A refused record as a `rejected_values` row. */
export function refusedIssue(definition: EntityDefinition, refused: RefusedRecord): ValueIssue {
  const reason = `Postgres refused the record: ${refused.error.message}`;
  return skippedRecord(definition.name, refused.key, '(record)', reason, refused.rawText);
}

export class PageWriter {
  readonly counts: WriteCounts = { inserted: 0, updated: 0, restored: 0, unchanged: 0 };
  /** Pages written (in part or whole), so a failed pull can tell whether it changed anything. */
  pagesWritten = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;
  /** Small merged pages gathered to be written together (see GATHER_BELOW), and their keys. */
  private gathered: PageText | null = null;
  private readonly gatheredKeys = new Set<number>();

  constructor(
    /** The entity's table, on the connection pages are written through (the pool when several are written at once). */
    private readonly table: EntityTable,
    private readonly runId: number | null,
    private mode: WriteMode,
    private readonly concurrency: number,
    private readonly onRecordRefused: (record: RefusedRecord) => void,
  ) {}

  /**
   * Starts writing a page once a slot is free, or gathers a small merged one (see GATHER_BELOW);
   * throws the failure of an earlier write.
   */
  async write(page: PageText): Promise<void> {
    this.throwIfFailed();
    if (page.size === 0) return;
    if (this.mode === 'merge' && page.size < GATHER_BELOW) {
      // One statement must not hold a key twice: what holds it already is written first.
      if (page.keys.some((key) => this.gatheredKeys.has(key))) await this.writeGathered();
      this.gathered = this.gathered ? joinPages(this.gathered, page) : page;
      for (const key of page.keys) this.gatheredKeys.add(key);
      if (this.gathered.size >= GATHER_BELOW) await this.writeGathered();
      return;
    }
    await this.writeGathered();
    await this.start(page);
  }

  /** Starts writing the gathered pages, if any. */
  private async writeGathered(): Promise<void> {
    const gathered = this.gathered;
    this.gathered = null;
    this.gatheredKeys.clear();
    if (gathered) await this.start(gathered);
  }

  /** Starts writing a page once a slot is free. */
  private async start(page: PageText): Promise<void> {
    while (this.inFlight.size >= Math.max(1, this.concurrency)) await Promise.race(this.inFlight);
    this.throwIfFailed();
    const running: Promise<void> = this.isolating(page)
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.inFlight.delete(running));
    this.inFlight.add(running);
  }

  /** Whether a write failed (what was read since may not be stored). */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** Writes what was gathered and waits for every write; throws the first failure. */
  async finish(): Promise<void> {
    await this.settle();
    this.throwIfFailed();
  }

  /** Writes what was gathered and waits for every write, whatever its outcome (after a failure elsewhere). */
  async settle(): Promise<void> {
    if (!this.failure) await this.writeGathered().catch((error: unknown) => (this.failure ??= { error }));
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }

  /** Writes a page; a page refused for its data is written in halves, down to the refused record. */
  private async isolating(page: PageText): Promise<void> {
    try {
      await this.retrying(page);
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (!REFUSED_FOR_DATA.test(code)) throw error;
      if (page.size <= 1) {
        const { key, rawText } = firstRecordOf(page);
        this.onRecordRefused({ key, rawText, error: error as Error });
        return;
      }
      for (const half of splitPage(page)) await this.isolating(half);
    }
  }

  /**
   * One page's statement (atomic on its own). It commits without waiting for the WAL flush: a
   * crash of the database server could lose the last pages, and the next pull writes them again
   * (a lost sweep is redone too). A deadlock with another page (a record listed twice) is retried
   * once; a lost connection (an ended backend, a pooled connection that died while idle) up to
   * twice, on a fresh connection: the statement is an upsert, so running it again is harmless.
   */
  private async retrying(page: PageText, deadlocks = 0, connectionsLost = 0): Promise<void> {
    try {
      const written = await this.table.writePage(page, this.runId, this.mode);
      // Once a page had to be merged, so are the rest (a page still in flight may finish as inserts).
      if (written.mode === 'merge') this.mode = 'merge';
      this.counts.inserted += written.inserted;
      this.counts.updated += written.updated + written.restored;
      this.counts.restored += written.restored;
      this.counts.unchanged += written.unchanged;
      this.pagesWritten++;
    } catch (error) {
      if (deadlocks === 0 && (error as { code?: string }).code === DEADLOCK_DETECTED)
        return this.retrying(page, deadlocks + 1, connectionsLost);
      if (connectionsLost < 2 && isConnectionLost(error)) {
        await sleep(100 * 4 ** connectionsLost);
        return this.retrying(page, deadlocks, connectionsLost + 1);
      }
      throw error;
    }
  }

  /** Records known unchanged without writing them (their stored hash matched). */
  countUnchanged(n: number): void {
    this.counts.unchanged += n;
  }
}
