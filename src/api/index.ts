/**
 * The API client: the one door to the invoicing service.
 *
 * ```ts
 * const api = new InvoicingClient({ baseUrl, user, apiKey });
 * for await (const page of api.list('clients')) { ... page.records, page.problems ... }
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
 * - Records are parsed leniently (see `wire.ts`); a record that cannot be read is reported in
 *   `page.problems` with its id and field and left out, without stopping the page.
 */
export { InvoicingClient, ENDPOINTS, MAX_SEND_IDS } from './client.js';
export { rawTextOf, splitJsonArray } from './json-split.js';
export type {
  ClientOptions,
  SendResult,
  SendBatchReport,
  SearchArea,
  CountryLanguage,
  QuotationSendMethod,
  QuotationStatus,
} from './client.js';
export type { Page, PageStream } from './paging.js';
export { ENTITY_NAMES, KEY_FIELD, parseRecord, parseRecords, schemas } from './schemas.js';
export type {
  EntityName,
  RecordOf,
  RecordTypes,
  RecordProblem,
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
} from './errors.js';
