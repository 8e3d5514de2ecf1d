/**
 * Lists as an async iterator of pages (`?count=N&start=M`), so memory holds one page at a time.
 *
 * The service publishes neither its page size nor a maximum `count`, and sends no totals, so the
 * only proof that a list has ended is an **empty page**: a short page may be a cap on `count`
 * (every record past it would then look deleted). That costs one request per list. When a short
 * page is followed by a non-empty one, the service caps `count`: the cap is reported once
 * (`onCapLearned`, which the mirror remembers) and asked for from then on.
 *
 * A service that ignores `start` answers the same page again. If it ignores `count` too (its
 * first answer was longer than asked, or a `count=1` probe answers more than one record), that
 * first answer was the whole list: the list is complete. If it honours `count` but not `start`,
 * nothing past the first page can be read: the list ends incomplete, with a warning.
 */
import type { Logger } from 'pino';
import type { WireItem } from './json-split.js';
import { entityNamed, type EntityName } from '../catalog/index.js';
import { readRecords, type ReadRecord, type RecordOf, type ValueIssue } from './schemas.js';

export interface Page<T> {
  /** The records to store (a bad field is null and reported in the record's `issues`). */
  records: ReadRecord<T>[];
  /** Elements left unparsed because the consumer holds them already (see PagingOptions.unchanged). */
  unchanged: PageElement[];
  /** Records that cannot be stored at all (their id cannot be read or stored). */
  skipped: ValueIssue[];
  /** Offset asked for. */
  start: number;
  /** Records on the wire in this page (read or not). */
  received: number;
}

/** Where a list stands: the next page's offset, and the last page read (its offset and ids). */
export interface ListPosition {
  nextStart: number;
  lastPage: { start: number; ids: string[] };
}

export interface PageStream<T> extends AsyncIterable<Page<T>> {
  /** True only after the iteration reached the proven end of the list (an empty page, or a whole-list answer). */
  readonly complete: boolean;
  readonly warnings: string[];
  /** After a page was yielded: where to resume reading (see PagingOptions.resume). */
  readonly position: ListPosition | null;
  /**
   * A resumed list whose last page, read again, no longer held the same ids: records moved across
   * the resume point meanwhile, so one may have been skipped.
   */
  readonly shiftedOnResume: boolean;
  /** Every record of the list in one array (for short lists: countries, search results). */
  all(): Promise<T[]>;
  /**
   * Asks for the first page now, before the iteration begins (which then starts with its answer):
   * a sync puts the next entity's first request on the wire while the last one is concluded.
   */
  prefetch(): void;
}

/** One answer of a list: how many elements it holds, and the elements (each parsed when asked for). */
export interface ListAnswer {
  readonly length: number;
  /** The first element's text as received (to notice a page answered again without parsing it). */
  readonly firstText: string | undefined;
  /** Element `index`'s JSON text as received, in UTF-8. */
  bytes(index: number): Buffer;
  /** Element `index`'s key where its text shows it plainly (read while splitting), else null. */
  plainKey(index: number): number | null;
  /** Element `index`'s fingerprint when the split took it as a text the consumer holds (see splitJsonArray). */
  fingerprint(index: number): string | undefined;
  /** Element `index`, parsed (once). */
  item(index: number): WireItem;
}

/** An element of a page, unparsed. */
export interface PageElement {
  /** Its JSON text as received, in UTF-8 (undecoded). */
  bytes: Buffer;
  /** Its key when the text shows it plainly (an integer an `integer` column holds), else null. */
  key: number | null;
  /** Its key as text (what paging compares), null when it has none; parsed from the text when `key` is null. */
  id: string | null;
  /** Its fingerprint (textFingerprint), when the split took it as a text the consumer holds. */
  fingerprint?: string;
}

/** Fetches one page for `count`/`start`; calls `onWritten` once the request is on its way. */
export type PageFetcher = (count: number, start: number, onWritten?: () => void) => Promise<ListAnswer>;

/** Turns the elements of one page into records (and the ones skipped). */
export type PageParser<T> = (items: WireItem[]) => { records: ReadRecord<T>[]; skipped: ValueIssue[] };

export interface PagingOptions {
  /** A cap on `count` learned earlier: asked for instead of a larger page size. */
  knownCap?: number | null;
  /** Called once when a cap on `count` is found (a short page followed by a non-empty one). */
  onCapLearned?: (cap: number) => void;
  /**
   * Which elements of a page the consumer holds already, exactly as they are (indexes into the
   * elements given): those are not parsed and come in `Page.unchanged`. Without it, every
   * element is parsed. An element whose text is not JSON is never among them (the consumer only
   * holds texts that were).
   */
  unchanged?: (elements: readonly PageElement[]) => Promise<ReadonlySet<number>>;
  /**
   * Go on from where an earlier reading stopped: the last page it read is read again (and not
   * yielded when it holds the same ids; else `shiftedOnResume`), then the pages after it.
   */
  resume?: ListPosition | null;
}

export class PagedList<T> implements PageStream<T> {
  complete = false;
  readonly warnings: string[] = [];
  position: ListPosition | null = null;
  shiftedOnResume = false;
  /** The first page, asked for ahead (see prefetch). */
  private prefetched: Promise<ListAnswer> | undefined;

  constructor(
    /** Names the list in warnings (an entity, or `search clients`). */
    private readonly label: string,
    /** The field whose value identifies a record (to notice a server that ignores paging). */
    private readonly keyField: string,
    private readonly pageSize: number,
    private readonly fetchPage: PageFetcher,
    private readonly parse: PageParser<T>,
    private readonly logger: Logger,
    private readonly options: PagingOptions = {},
  ) {}

  /** A page stream of the records of an entity. */
  static ofEntity<E extends EntityName>(
    entity: E,
    pageSize: number,
    fetchPage: PageFetcher,
    logger: Logger,
    options?: PagingOptions,
  ): PagedList<RecordOf<E>> {
    return new PagedList<RecordOf<E>>(
      entity,
      entityNamed(entity).key,
      pageSize,
      fetchPage,
      (items) => readRecords(entity, items),
      logger,
      options,
    );
  }

  /** Every record of the list in one array (for short lists: countries, search results). */
  async all(): Promise<T[]> {
    const out: T[] = [];
    for await (const page of this) for (const read of page.records) out.push(read.record);
    return out;
  }

  prefetch(): void {
    this.prefetched ??= this.fetchPage(this.firstCount(), this.options.resume?.lastPage.start ?? 0);
    // Awaited by the iteration; until then (or if it never begins) a failure is not unhandled.
    this.prefetched.catch(() => {});
  }

  /** The count asked for first: the page size, or a cap learned before. */
  private firstCount(): number {
    const known = this.options.knownCap;
    return known && known > 0 && known < this.pageSize ? known : this.pageSize;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Page<T>> {
    this.complete = false;
    this.warnings.length = 0;
    this.position = null;
    this.shiftedOnResume = false;
    let count = this.firstCount();
    let previousIds = new Set<string>();
    let previousFirstText: string | undefined;
    let firstReceived = 0;
    let shortPage: number | null = null;
    let capReported = false;
    const resume = this.options.resume;
    let start = resume?.lastPage.start ?? 0;
    let next: Promise<ListAnswer> | undefined = this.prefetched;
    this.prefetched = undefined;
    try {
      for (;;) {
        const answer = await (next ?? this.fetchPage(count, start));
        next = undefined;
        const received = answer.length;
        if (received === 0) {
          if (resume && start === resume.lastPage.start && resume.lastPage.ids.length > 0) this.listShrank(start);
          break;
        }
        const pageStart = start;
        if (pageStart === 0) firstReceived = received;
        // A short page, then more records: the service caps `count` at what the short page held
        // (said below, once this page is known not to be a repeat).
        const cap = shortPage !== null && !capReported ? shortPage : null;
        const askedFor = count;
        if (cap !== null) count = cap;
        shortPage = received < count ? received : null;
        start += received;

        // The next page is asked for now, and sent, before this one is parsed and stored, so
        // that the work on it happens while the request travels (still one request in flight:
        // this one is in). Not when the page begins as the last one did: it may be a repeat.
        if (answer.firstText !== previousFirstText) {
          const sending = this.sendFetch(count, start);
          next = sending.answer;
          await sending.written;
        }

        const elements = this.elementsOf(answer);
        const ids = new Set<string>();
        let repeated = 0;
        for (const { id } of elements) {
          if (id === null) continue;
          if (previousIds.has(id)) repeated++;
          ids.add(id);
        }
        if (resume && pageStart === resume.lastPage.start) {
          // The page the earlier reading ended with, read again: the same ids prove that nothing
          // moved across the resume point; it need not be stored again.
          if (sameIds(ids, resume.lastPage.ids) && start === resume.nextStart) {
            this.position = { nextStart: start, lastPage: { start: pageStart, ids: [...ids] } };
            previousIds = ids;
            previousFirstText = answer.firstText;
            next ??= this.fetchPage(count, start);
            continue;
          }
          this.shiftedOnResume = true;
          this.warn(
            `${this.label}: the list changed while the pull was away (the page at start=${pageStart} holds other records than when it was read); going on, but nothing is marked deleted this time`,
          );
        }
        if (pageStart > 0 && ids.size > 0 && repeated === ids.size && ids.size === previousIds.size) {
          // The same page again: the service ignores `start`.
          if (firstReceived > askedFor || (await this.ignoresCount())) {
            this.warn(
              `${this.label}: the service ignores count and start; its first answer held the whole list (${firstReceived} records)`,
              'info',
            );
            this.complete = true;
          } else {
            this.warn(
              `${this.label}: the service ignores start but honours count, so no record past the first ${firstReceived} can be read; list incomplete`,
            );
          }
          return;
        }
        if (pageStart > 0 && ids.size === 0) {
          // Without a single readable id a repeated page could not be told apart: stop safely.
          this.warn(
            `${this.label}: no record at start=${pageStart} had a readable ${this.keyField}; stopped, list may be incomplete`,
          );
          return;
        }
        if (cap !== null) {
          capReported = true;
          this.warn(
            `${this.label}: the service answers at most ${cap} records per request (asked for ${askedFor}); asking for ${cap} from now on`,
            'info',
          );
          this.options.onCapLearned?.(cap);
        }
        let pageIndexes = elements.map((_, index) => index);
        if (repeated > 0) {
          // A few ids shifted across the page boundary (the list changed while paging): skip the repeats.
          pageIndexes = pageIndexes.filter((index) => {
            const { id } = elements[index]!;
            return id === null || !previousIds.has(id);
          });
          this.warn(
            `${this.label}: ${repeated} record(s) at start=${pageStart} repeated from the previous page (the list changed while paging); skipped`,
          );
        }
        previousIds = ids;
        previousFirstText = answer.firstText;
        this.position = { nextStart: start, lastPage: { start: pageStart, ids: [...ids] } };

        const held = this.options.unchanged
          ? await this.options.unchanged(pageIndexes.map((index) => elements[index]!))
          : new Set<number>();
        const unchanged: PageElement[] = [];
        const toRead: WireItem[] = [];
        pageIndexes.forEach((index, position) => {
          if (held.has(position)) unchanged.push(elements[index]!);
          else toRead.push(answer.item(index));
        });
        const { records, skipped } = this.parse(toRead);
        yield { records, unchanged, skipped, start: pageStart, received };
        next ??= this.fetchPage(count, start);
      }
      this.complete = true;
    } finally {
      // A consumer that stopped early (an error, a break) leaves the request it started unread.
      await next?.catch(() => {});
    }
  }

  /** Starts fetching a page; `written` settles once the request is on its way (or has failed). */
  private sendFetch(count: number, start: number): { answer: Promise<ListAnswer>; written: Promise<unknown> } {
    let onWritten!: () => void;
    const written = new Promise<void>((resolve) => {
      onWritten = resolve;
    });
    const answer = this.fetchPage(count, start, onWritten);
    const settled = answer.catch(() => {}); // the answer is awaited at the top of the loop, or in `finally`
    return { answer, written: Promise.race([written, settled]) };
  }

  /**
   * The answer's elements with their keys, read from the text where it shows them plainly, else
   * parsed. Without an `unchanged` filter every element is parsed here, as it will be read.
   */
  private elementsOf(answer: ListAnswer): PageElement[] {
    const elements: PageElement[] = [];
    for (let index = 0; index < answer.length; index++) {
      const bytes = answer.bytes(index);
      const key = this.options.unchanged ? answer.plainKey(index) : null;
      const id = key !== null ? String(key) : idOf(answer.item(index).value, this.keyField);
      elements.push({ bytes, key, id, fingerprint: answer.fingerprint(index) });
    }
    return elements;
  }

  /** Probes `count=1`: an answer of more than one record means the service ignores `count`. */
  private async ignoresCount(): Promise<boolean> {
    const probe = await this.fetchPage(1, 0);
    return probe.length > 1;
  }

  /** Resumed where the list no longer reaches: records before the resume point went meanwhile. */
  private listShrank(start: number): void {
    this.shiftedOnResume = true;
    this.warn(
      `${this.label}: the list changed while the pull was away (it no longer reaches start=${start}); nothing is marked deleted this time`,
    );
  }

  private warn(message: string, level: 'warn' | 'info' = 'warn'): void {
    this.warnings.push(message);
    this.logger[level]({ list: this.label }, message);
  }
}

function sameIds(ids: ReadonlySet<string>, expected: readonly string[]): boolean {
  return ids.size === expected.length && expected.every((id) => ids.has(id));
}

function idOf(value: unknown, keyField: string): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as Record<string, unknown>)[keyField];
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
