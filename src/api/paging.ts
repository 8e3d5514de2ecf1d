/**
 * Lists as an async iterator of pages (`?count=N&start=M`), so memory holds one page at a time.
 *
 * The service publishes neither its page size nor a maximum `count`, and sends no totals, so the
 * only proof that a list has ended is an **empty page**: a short page may be a cap on `count`
 * (a reader that stopped there would miss every record past it). That costs one request per list. When a short
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
import { textFingerprint } from './fingerprint.js';
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
  /** After a page was yielded: where a later reading may go on from (see PagingOptions.from). */
  readonly position: ListPosition | null;
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
   * The offset of the first page (default 0): a later reading goes on from an earlier one's
   * position (whether the list moved meanwhile is its consumer's question: see sync/resume.ts).
   */
  from?: number;
}

export class PagedList<T> implements PageStream<T> {
  complete = false;
  readonly warnings: string[] = [];
  position: ListPosition | null = null;
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
    /**
     * An element's id when its text shows no plain key: its `keyField`, parsed; for records whose key
     * is made (see EntitySpec.derivedKey), the fingerprint of its text, which tells repeated pages
     * apart as well without parsing it (the consumer finds its key from the fingerprint it holds).
     */
    private readonly idOfElement: (answer: ListAnswer, index: number) => string | null = (answer, index) =>
      idOf(answer.item(index).value, keyField),
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
      // Records without an id of their own are known by their text's fingerprint.
      'derivedKey' in entityNamed(entity) ? (answer, index) => textFingerprint(answer.bytes(index)) : undefined,
    );
  }

  /** Every record of the list in one array (for short lists: countries, search results). */
  async all(): Promise<T[]> {
    const out: T[] = [];
    for await (const page of this) for (const read of page.records) out.push(read.record);
    return out;
  }

  prefetch(): void {
    this.prefetched ??= this.fetchPage(this.firstCount(), this.options.from ?? 0);
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
    const walk: Walk = {
      count: this.firstCount(),
      start: this.options.from ?? 0,
      previous: { ids: new Set(), firstText: undefined },
      firstReceived: 0,
      shortPage: null,
      capReported: false,
      next: this.prefetched,
    };
    this.prefetched = undefined;
    try {
      for (;;) {
        const answer = await (walk.next ?? this.fetchPage(walk.count, walk.start));
        walk.next = undefined;
        if (answer.length === 0) break;
        const step = advance(walk, answer.length);
        // The next page is asked for now, and sent, before this one is parsed and stored, so
        // that the work on it happens while the request travels (still one request in flight:
        // this one is in). Not when the page begins as the last one did: it may be a repeat.
        if (answer.firstText !== walk.previous.firstText)
          walk.next = (await this.sendFetch(walk.count, walk.start)).answer;
        const elements = this.elementsOf(answer);
        const { ids, repeated } = idsOf(elements, walk.previous.ids);
        const ended = await this.pagingEnds(walk, step, ids, repeated);
        if (ended) {
          this.complete = ended === 'complete';
          return;
        }
        if (step.cap !== null) this.capLearned(walk, step);
        const indexes = this.freshIndexes(elements, walk.previous.ids, repeated, step.pageStart);
        walk.previous = { ids, firstText: answer.firstText };
        this.position = { nextStart: walk.start, lastPage: { start: step.pageStart, ids: [...ids] } };
        yield await this.pageOf(answer, elements, indexes, step);
        walk.next ??= this.fetchPage(walk.count, walk.start);
      }
      this.complete = true;
    } finally {
      // A consumer that stopped early (an error, a break) leaves the request it started unread.
      await walk.next?.catch(() => {});
    }
  }

  /**
   * Whether paging cannot go on past this page: the same page again (the service ignores
   * `start`: the list is `complete` when its first answer held it all, else incomplete), or a
   * page without a readable id (a repeat could not be told apart). Null: go on.
   */
  private async pagingEnds(
    walk: Walk,
    step: Step,
    ids: ReadonlySet<string>,
    repeated: number,
  ): Promise<'complete' | 'incomplete' | null> {
    const { pageStart } = step;
    if (pageStart > 0 && ids.size > 0 && repeated === ids.size && ids.size === walk.previous.ids.size) {
      if (walk.firstReceived > step.askedFor || (await this.ignoresCount())) {
        this.warn(
          `${this.label}: the service ignores count and start; its first answer held the whole list (${walk.firstReceived} records)`,
          'info',
        );
        return 'complete';
      }
      this.warn(
        `${this.label}: the service ignores start but honours count, so no record past the first ${walk.firstReceived} can be read; list incomplete`,
      );
      return 'incomplete';
    }
    if (pageStart > 0 && ids.size === 0) {
      this.warn(
        `${this.label}: no record at start=${pageStart} had a readable ${this.keyField}; stopped, list may be incomplete`,
      );
      return 'incomplete';
    }
    return null;
  }

  /** A short page, then more records: the service caps `count` at what the short page held. */
  private capLearned(walk: Walk, { cap, askedFor }: Step): void {
    walk.capReported = true;
    this.warn(
      `${this.label}: the service answers at most ${cap} records per request (asked for ${askedFor}); asking for ${cap} from now on`,
      'info',
    );
    this.options.onCapLearned?.(cap!);
  }

  /** The indexes of the page's elements, without the ones repeated from the previous page. */
  private freshIndexes(
    elements: readonly PageElement[],
    previousIds: ReadonlySet<string>,
    repeated: number,
    pageStart: number,
  ): number[] {
    const indexes = elements.map((_, index) => index);
    if (repeated === 0) return indexes;
    // A few ids shifted across the page boundary (the list changed while paging): skip the repeats.
    this.warn(
      `${this.label}: ${repeated} record(s) at start=${pageStart} repeated from the previous page (the list changed while paging); skipped`,
    );
    return indexes.filter((index) => {
      const { id } = elements[index]!;
      return id === null || !previousIds.has(id);
    });
  }

  /** The page of these elements: the ones the consumer holds as they are, unparsed; the others read. */
  private async pageOf(
    answer: ListAnswer,
    elements: readonly PageElement[],
    indexes: readonly number[],
    { pageStart, received }: Step,
  ): Promise<Page<T>> {
    const held = this.options.unchanged
      ? await this.options.unchanged(indexes.map((index) => elements[index]!))
      : new Set<number>();
    const unchanged: PageElement[] = [];
    const toRead: WireItem[] = [];
    indexes.forEach((index, position) => {
      if (held.has(position)) unchanged.push(elements[index]!);
      else toRead.push(answer.item(index));
    });
    const { records, skipped } = this.parse(toRead);
    return { records, unchanged, skipped, start: pageStart, received };
  }

  /** Starts fetching a page; resolves, with its answer to come, once the request is on its way (or has failed). */
  private async sendFetch(count: number, start: number): Promise<{ answer: Promise<ListAnswer> }> {
    let onWritten!: () => void;
    const written = new Promise<void>((resolve) => {
      onWritten = resolve;
    });
    const answer = this.fetchPage(count, start, onWritten);
    const settled = answer.catch(() => {}); // the answer is awaited at the top of the loop, or in `finally`
    await Promise.race([written, settled]);
    return { answer };
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
      const id = key !== null ? String(key) : this.idOfElement(answer, index);
      elements.push({ bytes, key, id, fingerprint: answer.fingerprint(index) });
    }
    return elements;
  }

  /** Probes `count=1`: an answer of more than one record means the service ignores `count`. */
  private async ignoresCount(): Promise<boolean> {
    const probe = await this.fetchPage(1, 0);
    return probe.length > 1;
  }

  private warn(message: string, level: 'warn' | 'info' = 'warn'): void {
    this.warnings.push(message);
    this.logger[level]({ list: this.label }, message);
  }
}

/** Where one iteration of a list stands between its pages. */
interface Walk {
  /** Records asked for per request. */
  count: number;
  /** The next page's offset. */
  start: number;
  /** The last page yielded: its ids and its first element's text (to notice a repeat). */
  previous: { ids: ReadonlySet<string>; firstText: string | undefined };
  /** Records in the answer at start 0 (a service that ignores `count` sends them all). */
  firstReceived: number;
  /** The length of the last page when it was short, else null. */
  shortPage: number | null;
  capReported: boolean;
  /** The next page, asked for ahead. */
  next: Promise<ListAnswer> | undefined;
}

/** One page's place in the walk. */
interface Step {
  pageStart: number;
  received: number;
  /** The count this page was asked for with. */
  askedFor: number;
  /** A cap on `count` this page proves (a short page, then more records), to say once it is no repeat. */
  cap: number | null;
}

/** Moves the walk past a page of `received` records (count, start, short page). */
function advance(walk: Walk, received: number): Step {
  const pageStart = walk.start;
  if (pageStart === 0) walk.firstReceived = received;
  const cap = walk.shortPage !== null && !walk.capReported ? walk.shortPage : null;
  const askedFor = walk.count;
  if (cap !== null) walk.count = cap;
  walk.shortPage = received < walk.count ? received : null;
  walk.start += received;
  return { pageStart, received, askedFor, cap };
}

/** The page's ids, and how many of them the previous page held too. */
function idsOf(
  elements: readonly PageElement[],
  previous: ReadonlySet<string>,
): { ids: Set<string>; repeated: number } {
  const ids = new Set<string>();
  let repeated = 0;
  for (const { id } of elements) {
    if (id === null) continue;
    if (previous.has(id)) repeated++;
    ids.add(id);
  }
  return { ids, repeated };
}

function idOf(value: unknown, keyField: string): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as Record<string, unknown>)[keyField];
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
