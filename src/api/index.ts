/**
 * The API client: the one door to the invoicing service.
 *
 * ```ts
 * const api = new InvoicingClient({ baseUrl, user, apiKey });
 * for await (const page of api.list('clients')) { ... page.records, page.skipped ... }
 * await api.close();
 * ```
 *
 * - One queue per account (base URL + user), shared by every client object of the process:
 *   never two requests in flight; a local requests-per-hour budget; spacing as
 *   `X-RateLimit-Remaining` nears zero; after a quota 403 the whole queue pauses for
 *   `rateLimitPauseMs` (a later, shorter pause never shortens a longer one).
 * - Waiting: by default every call waits out a quota pause or a spent local budget. Callers
 *   that must not wait (the job runner) use `api.withoutWaiting()`, a view of the same client
 *   whose calls fail at once with `RateLimitedError` (`retryAt` says when to come back); lists
 *   also take `{ wait: false }`. The short slow-down spacing is honoured by both.
 * - Safe requests (GET, PUT of fields, DELETE) are retried with backoff on 5xx, timeouts,
 *   dropped connections and malformed JSON; creates and sends never are: a lost answer is an
 *   `UnknownOutcomeError`. A DELETE that answers 404 after an uncertain attempt counts as done.
 * - Records are read leniently (see `wire.ts`, `readRecord`): a field that cannot be read is null
 *   and reported in the record's `issues` with its id and field; only a record whose id cannot
 *   be read or stored is left out (`page.skipped`). Values Postgres cannot store (a NUL
 *   character) are repaired in the record's text and reported too.
 * - A list ends only on an empty page (see `paging.ts`).
 */
export { InvoicingClient, MAX_SEND_IDS } from './client.js';
export { splitJsonArray, repairJsonText, unstorableValues, NUL_REPLACEMENT } from './json-split.js';
export { textFingerprint, type HeldFingerprints } from './fingerprint.js';
export type { WireItem, RepairedValue } from './json-split.js';
export type {
  ClientOptions,
  SendResult,
  SendBatchReport,
  SearchArea,
  CountryLanguage,
  QuotationSendMethod,
  QuotationStatus,
} from './client.js';
export type { Page, PageElement, PageStream, PagingOptions } from './paging.js';
export type { AttemptOutcome } from './http.js';
export { parseRecord, parseRecords, readRecord, readRecords, schemas } from './schemas.js';
export type {
  RecordOf,
  RecordProblem,
  ReadRecord,
  ValueIssue,
  Client,
  Product,
  Quotation,
  SavedInvoice,
  RepeatingInvoice,
  Country,
  DocumentLine,
  Reference,
  Approval,
} from './schemas.js';
export {
  ApiError,
  AuthenticationError,
  NotFoundError,
  RateLimitedError,
  RefusedError,
  InvalidRequestError,
  ServerError,
  NetworkError,
  UnknownOutcomeError,
  MalformedRecordError,
  FAILURE_WORDS,
  failureKind,
} from './errors.js';
export type { FailureKind } from './errors.js';
