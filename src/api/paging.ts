/**
 * Lists as an async iterator of pages (`?count=N&start=M`), so memory holds one page at a time.
 * Stops on an empty or short page (the true end), and stops with a warning, not complete, when
 * the server ignores paging (a page brings back ids the previous page already had).
 */
import type { Logger } from 'pino';
import { KEY_FIELD, parseRecords, type EntityName, type RecordOf, type RecordProblem } from './schemas.js';

export interface Page<T> {
  records: T[];
  problems: RecordProblem[];
  /** Offset asked for. */
  start: number;
  /** Records on the wire in this page (parsed or not). */
  received: number;
}

export interface PageStream<T> extends AsyncIterable<Page<T>> {
  /** True only after the iteration reached the true end of the list (an empty or short page). */
  readonly complete: boolean;
  readonly warnings: string[];
}

/** Fetches one page: the raw list the service answered for `count`/`start`. */
export type PageFetcher = (count: number, start: number) => Promise<unknown[]>;

/** Turns the raw items of one page into records and problems. */
export type PageParser<T> = (items: unknown[]) => { records: T[]; problems: RecordProblem[] };

export class PagedList<T> implements PageStream<T> {
  complete = false;
  readonly warnings: string[] = [];

  constructor(
    /** Names the list in warnings (an entity, or `search clients`). */
    private readonly label: string,
    /** The field whose value identifies a record (to notice a server that ignores paging). */
    private readonly keyField: string,
    private readonly pageSize: number,
    private readonly fetchPage: PageFetcher,
    private readonly parse: PageParser<T>,
    private readonly logger: Logger,
  ) {}

  /** A page stream of parsed records of an entity. */
  static ofEntity<E extends EntityName>(
    entity: E,
    pageSize: number,
    fetchPage: PageFetcher,
    logger: Logger,
  ): PagedList<RecordOf<E>> {
    return new PagedList<RecordOf<E>>(
      entity,
      KEY_FIELD[entity],
      pageSize,
      fetchPage,
      (items) => parseRecords(entity, items),
      logger,
    );
  }

  /** Every record of the list in one array (for short lists: countries, search results). */
  async all(): Promise<T[]> {
    const out: T[] = [];
    for await (const page of this) out.push(...page.records);
    return out;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Page<T>> {
    this.complete = false;
    this.warnings.length = 0;
    const keyField = this.keyField;
    let previousIds = new Set<string>();
    let start = 0;
    for (;;) {
      const items = await this.fetchPage(this.pageSize, start);
      const received = items.length;
      if (received === 0) break;

      const ids = new Set<string>();
      let repeated = 0;
      for (const item of items) {
        const id = idOf(item, keyField);
        if (id === null) continue;
        if (previousIds.has(id)) repeated++;
        ids.add(id);
      }
      if (ids.size === 0) {
        // Without a single readable id a repeated page could not be told apart: stop safely.
        this.warn(
          `${this.label}: no record at start=${start} had a readable ${keyField}; stopped, list may be incomplete`,
        );
        const { records, problems } = this.parse(items);
        yield { records, problems, start, received };
        return;
      }
      if (repeated > 0 && repeated * 2 >= ids.size) {
        // The same ids again: the server ignores count/start. Stop rather than loop.
        this.warn(
          `${this.label}: the service ignored paging (page at start=${start} repeated ${repeated} ids of the previous page); stopped, list may be incomplete`,
        );
        return;
      }
      let pageItems = items;
      if (repeated > 0) {
        // A few ids shifted across the page boundary (the list changed while paging): skip the repeats.
        pageItems = items.filter((item) => {
          const id = idOf(item, keyField);
          return id === null || !previousIds.has(id);
        });
        this.warn(
          `${this.label}: ${repeated} record(s) at start=${start} repeated from the previous page (the list changed while paging); skipped`,
        );
      }
      if (received > this.pageSize && start === 0) {
        this.warn(
          `${this.label}: asked for ${this.pageSize} records, got ${received}; the service may be ignoring count`,
        );
      }

      const { records, problems } = this.parse(pageItems);
      for (const p of problems) this.logger.warn({ ...p }, 'api: record could not be read; skipped');
      yield { records, problems, start, received };

      if (received < this.pageSize) break;
      previousIds = ids;
      start += received;
    }
    this.complete = true;
  }

  private warn(message: string): void {
    this.warnings.push(message);
    this.logger.warn({ list: this.label }, message);
  }
}

function idOf(item: unknown, keyField: string): string | null {
  if (typeof item !== 'object' || item === null) return null;
  const id = (item as Record<string, unknown>)[keyField];
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
