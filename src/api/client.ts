/**
 * The typed operations of the service (spec section 4) on top of the HTTP core: lists as page
 * streams, single reads unwrapped and parsed, writes with the right idempotency, sends split
 * into calls of at most 10 ids.
 */
import type { Logger } from 'pino';
import { logger as defaultLogger } from '../log.js';
import { MalformedRecordError, NotFoundError, ServerError, UnknownOutcomeError } from './errors.js';
import { HttpCore, operationOf, type HttpOptions, type Method, type RequestSpec } from './http.js';
import type { GateStall, PullsWait } from './gate.js';
import { PagedList, type ListAnswer, type PageStream, type PagingOptions } from './paging.js';
import type { HeldFingerprints } from './fingerprint.js';
import { readListBytes, singleValueText, WireList, wireItem } from './json-split.js';
import { errorObjectMessage } from './answer-text.js';
import { entityNamed, MAX_INTEGER, type EntityName, type SingleReadEntity } from '../catalog/index.js';
import { SETTINGS } from '../settings.js';
import {
  readRecord,
  type ReadRecord,
  type Client,
  type Country,
  type Product,
  type Quotation,
  type RecordOf,
  type RepeatingInvoice,
  type SavedInvoice,
} from './schemas.js';

export interface ClientOptions {
  /** Base URL of the service, ending with /api/v1. */
  baseUrl: string;
  user: string;
  apiKey: string;
  /** Records per list request (`count`), default 500 (bench/perf.mjs: half the requests of 250 for 12 % less time, peak RSS under 200 MB). */
  pageSize?: number;
  /** Local budget of requests per rolling hour, default 1000; 0 = no local budget. */
  requestsPerHour?: number;
  /** Overall deadline of one request, default 30 000 ms. */
  timeoutMs?: number;
  /** Expected time per sent invoice, default 1500 ms; send deadline = ids × this × 2 + timeoutMs. */
  sendMsPerInvoice?: number;
  /** How long the queue pauses after a quota 403, default 15 minutes. */
  rateLimitPauseMs?: number;
  /** Requests start being spaced out once X-RateLimit-Remaining drops below this, default 50; 0 = off. */
  slowDownBelow?: number;
  /** Retries of requests that are safe to repeat, default 4. */
  maxRetries?: number;
  /** Backoff base, default 250 ms (doubles per retry, with jitter, capped at 30 s). */
  retryBaseMs?: number;
  /** Wraps every request on the wire (see HttpOptions.exclusive): the app uses it for a cross-process lock. */
  exclusive?: <T>(attempt: () => Promise<T>) => Promise<T>;
  /** Told of every request attempt's endpoint and status (see HttpOptions.onAttempt). */
  onAttempt?: HttpOptions['onAttempt'];
  logger?: Logger;
}

export interface SendResult {
  ids: number[];
  status: number;
  body: string;
}

export interface SendBatchReport {
  ids: number[];
  ok: boolean;
  error?: string;
}

export type SearchArea = 'invoices' | 'invoices_saved' | 'invoices_repeated' | 'clients' | 'products';
export type CountryLanguage = 'nl' | 'en' | 'de' | 'fr' | 'es';
export type QuotationSendMethod = 'email' | 'mail' | 'printcenter';
export type QuotationStatus = 'progress' | 'completed' | 'billable' | 'declined' | 'clear';

/** Saved invoices per send call (spec section 8). */
export const MAX_SEND_IDS = 10;

/** The client's settings when not given: the settings' defaults, and two of its own. */
const { api } = SETTINGS;
const DEFAULTS = {
  pageSize: api.pageSize.default,
  requestsPerHour: api.requestsPerHour.default,
  timeoutMs: api.timeoutMs.default,
  sendMsPerInvoice: api.sendMsPerInvoice.default,
  rateLimitPauseMs: api.rateLimitPauseMs.default,
  slowDownBelow: 50,
  maxRetries: api.maxRetries.default,
  retryBaseMs: 250,
};

type Settings = Record<keyof typeof DEFAULTS, number>;

/** What a client and its views parsed: list elements read from their JSON text. */
interface ParseStats {
  elements: number;
}

/** The parts a view shares with its client (see withoutWaiting). */
interface Shared {
  core: HttpCore;
  settings: Settings;
  log: Logger;
  wait: boolean;
  parsed: ParseStats;
}

export class InvoicingClient {
  private readonly core: HttpCore;
  private readonly settings: Settings;
  private readonly log: Logger;
  /** false on the view returned by `withoutWaiting()`. */
  private readonly wait: boolean;
  private readonly parsed: ParseStats;

  constructor(options: ClientOptions);
  /** @internal a view sharing `core` (see withoutWaiting). */
  constructor(options: ClientOptions, shared: Shared);
  constructor(options: ClientOptions, shared?: Shared) {
    if (shared) {
      ({ core: this.core, settings: this.settings, log: this.log, wait: this.wait, parsed: this.parsed } = shared);
      return;
    }
    this.settings = checkSettings(options);
    this.log = (options.logger ?? defaultLogger).child({ module: 'api' });
    this.wait = true;
    this.parsed = { elements: 0 };
    if (!/^https?:\/\//.test(options.baseUrl))
      throw new TypeError('ClientOptions.baseUrl must be an http(s) URL ending in /api/v1');
    this.core = new HttpCore({
      ...this.settings,
      baseUrl: options.baseUrl,
      user: options.user,
      apiKey: options.apiKey,
      exclusive: options.exclusive,
      longestRequestMs: MAX_SEND_IDS * this.settings.sendMsPerInvoice * 2 + this.settings.timeoutMs,
      onAttempt: options.onAttempt,
      logger: this.log,
    });
  }

  /**
   * The same client (same queue, connections and counters) for callers that must not wait:
   * while the account is paused after a spent quota, or its local budget is used up, each call
   * fails at once with `RateLimitedError` (with `retryAt`) instead of waiting. Meant for the job
   * runner. Close the original client, not the view.
   */
  withoutWaiting(): InvoicingClient {
    return new InvoicingClient(undefined as unknown as ClientOptions, {
      core: this.core,
      settings: this.settings,
      log: this.log,
      wait: false,
      parsed: this.parsed,
    });
  }

  /** The service's API address the client calls (ClientOptions.baseUrl). */
  get baseUrl(): string {
    return this.core.options.baseUrl;
  }

  /** HTTP requests actually sent (retries included), by this client and its views. */
  get requestsMade(): number {
    return this.core.requestsMade;
  }

  /**
   * List elements parsed from their JSON text (JSON.parse, then read) by this client and its
   * views. A list a sync reads leaves the elements it already holds unparsed (see PagingOptions.unchanged).
   */
  get elementsParsed(): number {
    return this.parsed.elements;
  }

  /** Last `X-RateLimit-Remaining` seen for this account. */
  get rateLimitRemaining(): number | null {
    return this.core.gate.rateLimitRemaining;
  }

  /** Requests left to the account this hour (the service's count and the local budget). */
  get budgetLeft(): number {
    return this.core.gate.budgetLeft;
  }

  /** The account's gate, when a request has held its slot in one step longer than it should (see AccountGate.stall). */
  get stall(): GateStall | null {
    return this.core.gate.stall;
  }

  get pausedUntil(): Date | null {
    return this.core.gate.pausedUntil;
  }

  /** Whether the account's pulls should wait, `keep` requests being kept for actions (see AccountGate.pullsWait). */
  pullsWait(keep: number): PullsWait | null {
    return this.core.gate.pullsWait(keep);
  }

  // ---- reads ------------------------------------------------------------------------------

  /**
   * All records of an entity, page by page; `filters` are the list's own query parameters
   * (`{"filter": "open"}`, `{"since": "2026-01-01"}`). `wait: false` fails with RateLimitedError
   * instead of waiting.
   */
  list<E extends EntityName>(
    entity: E,
    options: {
      pageSize?: number;
      wait?: boolean;
      filters?: Readonly<Record<string, string>>;
      /** The record texts the consumer holds, once it knows them: the split takes those as they are (see splitJsonArray). */
      held?: () => HeldFingerprints | undefined;
    } & PagingOptions = {},
  ): PageStream<RecordOf<E>> {
    const pageSize = checkPageSize(options.pageSize ?? this.settings.pageSize);
    const { knownCap, onCapLearned, unchanged, from } = options;
    const { endpoint, key } = entityNamed(entity);
    return PagedList.ofEntity(
      entity,
      pageSize,
      this.pageFetcher(endpoint, key, options.wait, options.filters, options.held),
      this.log,
      { knownCap, onCapLearned, unchanged, from },
    );
  }

  getClient(clientnr: number): Promise<Client> {
    return this.get('clients', clientnr);
  }
  getProduct(id: number): Promise<Product> {
    return this.get('products', id);
  }
  getQuotation(id: number): Promise<Quotation> {
    return this.get('quotations', id);
  }
  /** By id or by invoice number (which may contain `/`). */
  async getSavedInvoice(idOrName: number | string): Promise<SavedInvoice> {
    return (await this.readOne('saved_invoices', idOrName)).record;
  }
  getRepeatingInvoice(id: number): Promise<RepeatingInvoice> {
    return this.get('repeating_invoices', id);
  }

  /** One record by id; a 404, or a list where a record was expected, is a NotFoundError. */
  async get<E extends SingleReadEntity>(entity: E, id: number): Promise<RecordOf<E>> {
    return (await this.readOne(entity, checkId(id))).record;
  }

  /** One record by id with its exact text and what of it could not be read (see readRecord). */
  read<E extends SingleReadEntity>(entity: E, id: number): Promise<ReadRecord<RecordOf<E>>> {
    return this.readOne(entity, checkId(id));
  }

  /**
   * Raw search results (their shape is not specified by the service), all pages of them.
   * Nothing found (an empty list or a 404) → [].
   */
  async search(area: SearchArea, field: string, query: string): Promise<Record<string, unknown>[]> {
    const path = `/search/${seg(area)}/${seg(field)}/${seg(query)}`;
    const keyField = area === 'clients' ? 'clientnr' : 'id';
    const stream = new PagedList(
      `search ${area}`,
      keyField,
      this.settings.pageSize,
      this.pageFetcher(path, keyField),
      (items) => ({
        records: items
          .filter((item) => isObject(item.value))
          .map((item) => ({ record: item.value as Record<string, unknown>, rawText: item.text, issues: [] })),
        skipped: [],
      }),
      this.log,
    );
    try {
      return await stream.all();
    } catch (error) {
      if (error instanceof NotFoundError) return [];
      throw error;
    }
  }

  /** The country list (the ids `country` uses), optionally in a language. Unreadable entries are logged and skipped. */
  countries(lang?: CountryLanguage): Promise<Country[]> {
    const list = entityNamed('countries').endpoint;
    const path = lang ? `${list}/${seg(lang)}` : list;
    // Paged like every list: `count=-1` (all) may be capped like any other count.
    return PagedList.ofEntity(
      'countries',
      this.settings.pageSize,
      this.pageFetcher(path, entityNamed('countries').key),
      this.log,
    ).all();
  }

  // ---- clients ------------------------------------------------------------------------------

  createClient(fields: Record<string, unknown>): Promise<number> {
    return this.create('clients', fields);
  }
  updateClient(clientnr: number, changes: Record<string, unknown>): Promise<void> {
    return this.update('clients', clientnr, changes);
  }
  /** A client with documents cannot be deleted: RefusedError with the service's text. */
  deleteClient(clientnr: number): Promise<void> {
    return this.remove('clients', checkId(clientnr));
  }

  // ---- products -----------------------------------------------------------------------------

  createProduct(fields: Record<string, unknown>): Promise<number> {
    return this.create('products', fields);
  }
  updateProduct(id: number, changes: Record<string, unknown>): Promise<void> {
    return this.update('products', id, changes);
  }
  setProductStock(id: number, stock: number): Promise<void> {
    if (!Number.isFinite(stock)) throw new TypeError(`stock must be a finite number, got ${stock}`);
    return this.update('products', id, { stock });
  }
  deleteProduct(id: number): Promise<void> {
    return this.remove('products', checkId(id));
  }

  // ---- quotations ---------------------------------------------------------------------------

  /** Creates (action `save`) or creates and sends (action `send`); never retried. */
  createQuotation(fields: Record<string, unknown>): Promise<number> {
    return this.create('quotations', fields);
  }

  /** Sends a draft; the service gives the sent quotation a new id, which is returned. Never retried. */
  async sendQuotation(id: number, sendmethod: QuotationSendMethod): Promise<number> {
    const path = `${entityNamed('quotations').endpoint}/${checkId(id)}`;
    const answer = await this.call({ method: 'PUT', path, body: { action: 'send', sendmethod }, idempotent: false });
    const newId = readId(answer.text, entityNamed('quotations').key);
    if (newId === null) {
      throw new UnknownOutcomeError({
        operation: operationOf({ method: 'PUT', path }),
        status: answer.status,
        detail: 'the quotation was sent, but the answer carried no new id',
      });
    }
    return newId;
  }

  approveQuotation(id: number, approval: { name: string; date: string; comments: string }): Promise<void> {
    return this.update('quotations', id, {
      approved: { name: approval.name, date: approval.date, comments: approval.comments },
    });
  }
  removeQuotationApproval(id: number): Promise<void> {
    return this.update('quotations', id, { approved: false });
  }
  setQuotationStatus(id: number, status: QuotationStatus): Promise<void> {
    return this.update('quotations', id, { customstatus: status });
  }
  deleteQuotation(id: number): Promise<void> {
    return this.remove('quotations', checkId(id));
  }

  // ---- sent invoices -------------------------------------------------------------------------

  /**
   * Creates an invoice (`POST /invoices`): action `send` sends it at once, `save` makes a saved
   * invoice, `repeat` a repeating invoice. The service answers the new id or, for a sent invoice,
   * possibly its number: whichever came is returned. Never retried.
   */
  async createInvoice(fields: Record<string, unknown>): Promise<{ id: number } | { invoicenr: string }> {
    const path = entityNamed('invoices').endpoint;
    const answer = await this.call({ method: 'POST', path, body: fields, idempotent: false });
    const id = readId(answer.text, 'id');
    if (id !== null) return { id };
    const text = answer.text.trim().replace(/^"(.*)"$/, '$1');
    if (text !== '' && text.length <= 64 && !/[\s<{]/.test(text)) return { invoicenr: text };
    throw new UnknownOutcomeError({
      operation: operationOf({ method: 'POST', path }),
      status: answer.status,
      detail: `${answer.status} answer carried no new id or invoice number`,
    });
  }

  /** The PDF of a sent invoice (by id or number), as the service renders it. */
  async getInvoicePdf(idOrNumber: number | string): Promise<Buffer> {
    const path = `/invoices_pdf/${seg(idOrNumber)}`;
    const answer = await this.call({ method: 'GET', path, idempotent: true, binary: true });
    const body = answer.body ?? Buffer.alloc(0);
    if (body.subarray(0, 5).toString('latin1') !== '%PDF-')
      throw new ServerError({
        operation: operationOf({ method: 'GET', path }),
        status: answer.status,
        detail: `${answer.status} answered ${answer.contentType ?? 'no content type'} (${body.length} bytes), not a PDF`,
      });
    return body;
  }

  /** A sent invoice by id or by invoice number (which may contain `/`). */
  async getInvoice(idOrNumber: number | string): Promise<RecordOf<'invoices'>> {
    return (await this.readOne('invoices', idOrNumber)).record;
  }

  /**
   * Registers a payment (`amount` a number, or `"full"` for what is open); 201. Never retried: a
   * lost answer is an UnknownOutcomeError, since a second call would pay twice.
   */
  async registerPayment(
    idOrNumber: number | string,
    payment: { amount: number | 'full'; date: string; method: string },
  ): Promise<void> {
    const path = `/invoices_payment/${seg(idOrNumber)}`;
    await this.call({ method: 'POST', path, body: payment, idempotent: false });
  }

  /** Sends a payment reminder for an invoice (by its number). Never retried: it is an e-mail. */
  async sendReminder(invoicenr: string, attachInvoice: boolean): Promise<void> {
    await this.call({
      method: 'POST',
      path: '/invoices_reminder',
      body: { invoicenr, attach_invoice: attachInvoice },
      idempotent: false,
    });
  }

  deleteInvoice(idOrNumber: number | string): Promise<void> {
    return this.remove('invoices', idOrNumber);
  }

  // ---- saved and repeating invoices ---------------------------------------------------------

  /**
   * Sends saved invoices in calls of at most 10 ids, one after another (each through the queue,
   * with a deadline of ids × sendMsPerInvoice × 2 + timeoutMs). Never retried: a lost answer is an
   * UnknownOutcomeError. `onBatch` hears about every call; on the first failing call the error is
   * thrown and the remaining ids are not sent.
   */
  async sendSavedInvoices(
    ids: number[],
    options: { delete: boolean; onBatch?: (batch: SendBatchReport) => void },
  ): Promise<SendResult[]> {
    for (const id of ids) checkId(id);
    const results: SendResult[] = [];
    for (let i = 0; i < ids.length; i += MAX_SEND_IDS) {
      const batch = ids.slice(i, i + MAX_SEND_IDS);
      try {
        const answer = await this.call({
          method: 'POST',
          path: entityNamed('saved_invoices').endpoint,
          body: { action: 'send', delete: options.delete, id: batch },
          idempotent: false,
          deadlineMs: this.sendDeadlineMs(batch.length),
        });
        const result = { ids: batch, status: answer.status, body: answer.text };
        results.push(result);
        options.onBatch?.({ ids: batch, ok: true });
      } catch (error) {
        options.onBatch?.({ ids: batch, ok: false, error: (error as Error).message });
        throw error;
      }
    }
    return results;
  }

  deleteSavedInvoice(idOrName: number | string): Promise<void> {
    return this.remove('saved_invoices', idOrName);
  }
  deleteRepeatingInvoice(id: number): Promise<void> {
    return this.remove('repeating_invoices', checkId(id));
  }

  /** The deadline of one send call of `invoices` saved invoices: after it, the call is over at the service too. */
  sendDeadlineMs(invoices: number): number {
    return invoices * this.settings.sendMsPerInvoice * 2 + this.settings.timeoutMs;
  }

  /** The deadline of any other call. */
  deadlineMs(): number {
    return this.settings.timeoutMs;
  }

  /** Closes connections and releases the account's queue (queued requests fail). */
  async close(): Promise<void> {
    await this.core.close();
  }

  // ---- helpers ------------------------------------------------------------------------------

  /**
   * GETs one page of a list: `?count=N&start=M` (an infinite page size asks for all: `count=-1`);
   * `keyField` names the field whose plain keys the split reads (see splitJsonArray).
   */
  private pageFetcher(
    path: string,
    keyField: string,
    wait?: boolean,
    filters: Readonly<Record<string, string>> = {},
    held?: () => HeldFingerprints | undefined,
  ) {
    const key = { name: keyField, max: MAX_INTEGER };
    const filterQuery = Object.entries(filters)
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}&`)
      .join('');
    return async (count: number, start: number, onWritten?: () => void): Promise<ListAnswer> => {
      const pagePath = `${path}?${filterQuery}count=${Number.isFinite(count) ? count : -1}&start=${start}`;
      const answer = await this.call({
        method: 'GET',
        path: pagePath,
        idempotent: true,
        json: true,
        parse: (body: Buffer) => readListBytes(body, key, held?.()),
        wait,
        onWritten,
      });
      return asList(answer.json, operationOf({ method: 'GET', path: pagePath }), this.parsed);
    };
  }

  private call(spec: RequestSpec) {
    return this.core.request({ ...spec, wait: spec.wait ?? this.wait });
  }

  /**
   * One record, read leniently (a bad field is null and reported in `issues`; see readRecord), with
   * its exact text. A 404, or a list where a record was expected, is a NotFoundError; an error
   * object (`{"error": {...}}`, even with status 200) a ServerError with the service's message; a
   * record whose id cannot be read is a MalformedRecordError.
   */
  private async readOne<E extends EntityName>(entity: E, idOrName: number | string): Promise<ReadRecord<RecordOf<E>>> {
    const path = `${entityNamed(entity).endpoint}/${seg(idOrName)}`;
    const operation = operationOf({ method: 'GET', path });
    const answer = await this.call({ method: 'GET', path, idempotent: true, json: true });
    const keyField = entityNamed(entity).key;
    const refusal = isObject(answer.json) && !(keyField in answer.json) ? errorObjectMessage(answer.json) : null;
    if (refusal !== null)
      throw new ServerError({
        operation,
        status: answer.status,
        detail: `${answer.status} answer was an error, not a record`,
        serviceMessage: refusal,
      });
    const raw = unwrapSingle(answer.json, keyField);
    if (raw === null)
      throw new NotFoundError({
        operation,
        status: answer.status,
        detail: `${answer.status} answered a list, not a record: not found`,
      });
    // The record's own text, so that it hashes as the same record in a list does.
    const text = isObject(answer.json) && keyField in answer.json ? answer.text.trim() : singleValueText(answer.text);
    const read = readRecord(entity, text === null ? wireItem(raw) : wireItem(JSON.parse(text), text));
    if ('skipped' in read) throw new MalformedRecordError(read.skipped, { operation, status: answer.status });
    return read.read;
  }

  private async create(entity: EntityName, fields: Record<string, unknown>): Promise<number> {
    const path = entityNamed(entity).endpoint;
    const answer = await this.call({ method: 'POST', path, body: fields, idempotent: false });
    const id = readId(answer.text, entityNamed(entity).key);
    if (id === null) {
      throw new UnknownOutcomeError({
        operation: operationOf({ method: 'POST', path }),
        status: answer.status,
        detail: `${answer.status} answer carried no new id`,
      });
    }
    return id;
  }

  private async update(entity: EntityName, id: number, changes: Record<string, unknown>): Promise<void> {
    await this.call({
      method: 'PUT',
      path: `${entityNamed(entity).endpoint}/${checkId(id)}`,
      body: changes,
      idempotent: true,
    });
  }

  private async remove(entity: EntityName, idOrName: number | string): Promise<void> {
    await this.call({
      method: 'DELETE' satisfies Method,
      path: `${entityNamed(entity).endpoint}/${seg(idOrName)}`,
      idempotent: true,
    });
  }
}

function checkSettings(options: ClientOptions): Settings {
  const s: Settings = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as (keyof Settings)[]) {
    const value = options[key];
    if (value === undefined) continue;
    const min = key === 'pageSize' || key === 'timeoutMs' ? 1 : 0;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
      throw new TypeError(`ClientOptions.${key} must be a number ≥ ${min}, got ${String(value)}`);
    s[key] = value;
  }
  if (!Number.isSafeInteger(s.pageSize))
    throw new TypeError(`ClientOptions.pageSize must be an integer, got ${s.pageSize}`);
  return s;
}

function checkPageSize(pageSize: number): number {
  if (!Number.isSafeInteger(pageSize) || pageSize < 1)
    throw new TypeError(`pageSize must be a positive integer, got ${pageSize}`);
  return pageSize;
}

function checkId(id: number): number {
  if (!Number.isSafeInteger(id) || id < 0) throw new TypeError(`expected a non-negative integer id, got ${String(id)}`);
  return id;
}

/** Percent-encode one path segment (invoice numbers may contain `/`). */
function seg(value: string | number): string {
  return encodeURIComponent(String(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Lists are bare arrays; tolerate a one-key wrapper and PHP's keyed-object form too. An error
 * object (`{"error": {...}}`) fails the list with the service's message: read as a keyed list, it
 * would be one record without an id.
 */
function asList(json: unknown, operation: string, parsed: ParseStats): ListAnswer {
  const refusal = errorObjectMessage(json);
  if (refusal !== null)
    throw new ServerError({
      operation,
      status: 200,
      detail: '200 answer was an error, not a list',
      serviceMessage: refusal,
    });
  if (json instanceof WireList)
    return {
      length: json.length,
      firstText: json.firstText,
      bytes: (index) => json.bytes(index),
      plainKey: (index) => json.plainKey(index),
      fingerprint: (index) => json.fingerprint(index),
      item: (index) => {
        if (!json.isParsed(index)) parsed.elements++;
        try {
          return json.item(index);
        } catch (cause) {
          const detail = `the answer is not valid JSON (${(cause as Error).message})`;
          throw new ServerError({ operation, status: 200, detail, cause });
        }
      },
    };
  const items = (() => {
    if (Array.isArray(json)) return json;
    if (isObject(json)) {
      const values = Object.values(json);
      if (values.length === 1 && Array.isArray(values[0])) return values[0];
      if (values.every(isObject)) return values;
    }
    return null;
  })();
  if (items === null)
    throw new ServerError({
      operation,
      status: 200,
      detail: '200 answer was not a list',
      serviceMessage: shortJson(json),
    });
  // Not a plain array, so the elements' own texts are not known: they are serialized again.
  const wireItems = items.map((item) => wireItem(item));
  parsed.elements += wireItems.length;
  return {
    length: wireItems.length,
    firstText: wireItems[0]?.text,
    bytes: (index) => Buffer.from(wireItems[index]!.text, 'utf8'),
    plainKey: () => null,
    fingerprint: () => undefined,
    item: (index) => wireItems[index]!,
  };
}

/** A JSON value as short text, for an error message. */
function shortJson(json: unknown): string {
  const text = JSON.stringify(json) ?? String(json);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** A single read is `{"client": {...}}`; unwrap the one value. A list (or empty answer) means not found. */
function unwrapSingle(json: unknown, keyField: string): unknown {
  if (Array.isArray(json) || json === null || json === false || json === '') return null;
  if (!isObject(json)) return json; // parseRecord reports it
  if (keyField in json) return json;
  const values = Object.values(json);
  if (values.length === 1) {
    const [value] = values;
    if (Array.isArray(value) || value === null || value === false) return null;
    return value;
  }
  return json;
}

/** The new id of a create: bare text (`57`), tolerating a JSON string or a (wrapped) record. */
function readId(text: string, keyField: string): number | null {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return toSafe(Number(trimmed));
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return null;
  }
  if (typeof json === 'number') return toSafe(json);
  if (typeof json === 'string' && /^\s*\d+\s*$/.test(json)) return toSafe(Number(json));
  const record = unwrapSingle(json, keyField);
  if (isObject(record)) {
    const id = record[keyField];
    if (typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id))) return toSafe(Number(id));
  }
  return null;
}

function toSafe(n: number): number | null {
  return Number.isSafeInteger(n) ? n : null;
}
