/**
 * The job kinds of the contract (design.md, "Jobs"): for each, the payload's zod schema, whether
 * it is safe to repeat when the outcome of an attempt is unknown, the checks against the mirror
 * made before any call, and the handler that makes the calls and names the records to re-read.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { z } from 'zod';
import { MAX_SEND_IDS, UnknownOutcomeError, type InvoicingClient } from '../api/index.js';
import type { Database } from '../db/index.js';
import { errorMessage } from '../errors.js';
import type { RefreshTarget } from '../sync/index.js';
import { JobFailure, PayloadError, PrecheckError } from './errors.js';
import { clientChanges, clientFields, nonEmpty, productFields, quotationFields } from './fields.js';
import { mirrorRows, quotationState, requireLive } from './mirror.js';

/** A claimed job as a handler sees it. */
export interface JobRow {
  id: number;
  kind: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
  /** What earlier attempts recorded (a send's batches), or null. */
  result: unknown;
}

export interface JobContext {
  /** The runner's connection (it holds the job lock). */
  db: Kysely<Database>;
  /** A client that fails with RateLimitedError instead of waiting out a quota pause. */
  api: InvoicingClient;
  job: JobRow;
  /** Store partial progress in `result` at once, so it survives a crash. */
  saveProgress(result: unknown): Promise<void>;
  log: Logger;
}

export interface HandlerOutcome {
  /** What the service answered (new ids, batches sent); the runner adds the refresh summary. */
  result: Record<string, unknown>;
  /** The records to re-read into the mirror. */
  touched: RefreshTarget[];
}

export interface JobKind<P = any> {
  payload: z.ZodType<P>;
  /** Safe to run again after an attempt whose outcome is unknown (a worker that died mid-call). */
  idempotent: boolean;
  /** One line for `--help` and the README. */
  summary: string;
  /** Throws PrecheckError when the mirror shows the action is impossible. */
  precheck?(db: Kysely<Database>, payload: P, job: JobRow): Promise<void>;
  run(ctx: JobContext, payload: P): Promise<HandlerOutcome>;
}

function kind<S extends z.ZodType>(spec: { payload: S } & Omit<JobKind<z.output<S>>, 'payload'>): JobKind<z.output<S>> {
  return spec as unknown as JobKind<z.output<S>>;
}

const id = z.int('must be a whole number').positive('must be a positive id');
const idOnly = z.strictObject({ id });
const date = z.iso.date('must be a date YYYY-MM-DD');
const CUSTOM_STATUSES = ['progress', 'completed', 'billable', 'declined', 'clear'] as const;
const SEND_METHODS = ['email', 'mail', 'printcenter'] as const;

const target = (entity: RefreshTarget['entity'], key: number): RefreshTarget => ({ entity, id: key });

// ---- saved invoices: sending in calls of at most 10 ---------------------------------------

/** One send call as recorded in `result.batches`. */
export interface SendBatch {
  ids: number[];
  attempt: number;
  /** `sending` while the call is in flight: after a crash, its outcome is unknown. */
  outcome: 'sending' | 'sent' | 'failed' | 'unknown';
  started_at: string;
  ms?: number;
  error?: string;
}

export interface SendProgress {
  ids: number[];
  delete: boolean;
  /** Ids the service confirmed sent, over every attempt. */
  sent: number[];
  batches: SendBatch[];
}

/** The progress earlier attempts left in `result` (none on a first attempt). */
export function sendProgressOf(result: unknown): { sent: number[]; batches: SendBatch[] } {
  const r = (result ?? {}) as Partial<SendProgress>;
  const batches = Array.isArray(r.batches) ? r.batches : [];
  return { sent: batches.filter((b) => b.outcome === 'sent').flatMap((b) => b.ids), batches };
}

function unsent(ids: number[], job: JobRow): number[] {
  const sent = new Set(sendProgressOf(job.result).sent);
  return ids.filter((i) => !sent.has(i));
}

const sendSavedInvoices = kind({
  summary: 'send saved invoices (any number of ids, in calls of at most 10); `delete` removes them after sending',
  payload: z.strictObject({
    ids: z
      .array(id, 'must be a list of saved invoice ids')
      .min(1, 'name at least one saved invoice id')
      .transform((ids) => [...new Set(ids)]),
    delete: z.boolean('must be true or false'),
  }),
  idempotent: false,
  async precheck(db, p, job) {
    await requireLive(db, 'saved_invoices', unsent(p.ids, job));
  },
  async run(ctx, p) {
    const progress: SendProgress = {
      ids: p.ids,
      delete: p.delete,
      sent: [],
      batches: sendProgressOf(ctx.job.result).batches,
    };
    progress.sent = sendProgressOf(progress).sent;
    const before = progress.sent.length;
    const todo = unsent(p.ids, ctx.job);
    const touched = async (ids: number[]) => touchedBySend(ctx.db, ids);
    for (let i = 0; i < todo.length; i += MAX_SEND_IDS) {
      const ids = todo.slice(i, i + MAX_SEND_IDS);
      const batch: SendBatch = {
        ids,
        attempt: ctx.job.attempts,
        outcome: 'sending',
        started_at: new Date().toISOString(),
      };
      progress.batches.push(batch);
      await ctx.saveProgress(progress);
      const started = performance.now();
      try {
        await ctx.api.sendSavedInvoices(ids, { delete: p.delete });
        batch.outcome = 'sent';
        progress.sent.push(...ids);
      } catch (error) {
        batch.outcome = error instanceof UnknownOutcomeError ? 'unknown' : 'failed';
        batch.error = errorMessage(error);
        throw new JobFailure(
          describeSendFailure(progress, batch, error),
          error,
          await touched(progress.sent.slice(before)),
        );
      } finally {
        batch.ms = Math.round(performance.now() - started);
        await ctx.saveProgress(progress);
      }
    }
    return { result: { ...progress }, touched: await touched(progress.sent.slice(before)) };
  },
});

function describeSendFailure(progress: SendProgress, batch: SendBatch, error: unknown): string {
  const left = progress.ids.length - progress.sent.length;
  const what = batch.outcome === 'unknown' ? 'may or may not have been sent' : 'were not sent';
  return `${progress.sent.length} of ${progress.ids.length} invoices confirmed sent; the call with ids ${batch.ids.join(', ')} ${what}: ${errorMessage(error)}; a retry sends only the ${left} not confirmed sent`;
}

/** Sent invoices, and their clients (the service updates `lastinvoice`). */
async function touchedBySend(db: Kysely<Database>, ids: number[]): Promise<RefreshTarget[]> {
  const rows = await mirrorRows(db, 'saved_invoices', ids);
  const clients = new Set<number>();
  for (const row of rows.values()) if (typeof row.clientnr === 'number' && row.clientnr > 0) clients.add(row.clientnr);
  return [...ids.map((i) => target('saved_invoices', i)), ...[...clients].map((c) => target('clients', c))];
}

// ---- the other kinds ------------------------------------------------------------------------

/** A delete of one record by id (idempotent: the client counts a 404 after an uncertain attempt as done). */
function deleteKind(
  entity: RefreshTarget['entity'],
  call: (api: InvoicingClient, key: number) => Promise<void>,
  summary: string,
  keyName: 'id' | 'clientnr' = 'id',
) {
  return kind({
    summary,
    payload: z.strictObject({ [keyName]: id }) as unknown as z.ZodType<Record<string, number>>,
    idempotent: true,
    async precheck(db, p) {
      await requireLive(db, entity, [p[keyName]!]);
    },
    async run(ctx, p) {
      const key = p[keyName]!;
      await call(ctx.api, key);
      return { result: { deleted: key }, touched: [target(entity, key)] };
    },
  });
}

export const KINDS = {
  send_saved_invoices: sendSavedInvoices,
  delete_saved_invoice: deleteKind(
    'saved_invoices',
    (api, key) => api.deleteSavedInvoice(key),
    'delete a saved invoice',
  ),
  delete_repeating_invoice: deleteKind(
    'repeating_invoices',
    (api, key) => api.deleteRepeatingInvoice(key),
    'delete a repeating invoice',
  ),

  create_client: kind({
    summary: "create a client from the service's client fields; `result.clientnr` is the new number",
    payload: z.strictObject({ client: clientFields }),
    idempotent: false,
    async run(ctx, p) {
      const clientnr = await ctx.api.createClient(p.client);
      return { result: { clientnr }, touched: [target('clients', clientnr)] };
    },
  }),
  update_client: kind({
    summary: 'change fields of a client',
    payload: z.strictObject({ clientnr: id, changes: nonEmpty(clientChanges) }),
    idempotent: true,
    async precheck(db, p) {
      await requireLive(db, 'clients', [p.clientnr]);
    },
    async run(ctx, p) {
      await ctx.api.updateClient(p.clientnr, p.changes);
      return { result: { updated: p.clientnr }, touched: [target('clients', p.clientnr)] };
    },
  }),
  delete_client: deleteKind(
    'clients',
    (api, key) => api.deleteClient(key),
    'delete a client (the service refuses one that has documents)',
    'clientnr',
  ),

  create_product: kind({
    summary: 'create a product; `result.id` is the new id',
    payload: z.strictObject({ product: productFields }),
    idempotent: false,
    async run(ctx, p) {
      const productId = await ctx.api.createProduct(p.product);
      return { result: { id: productId }, touched: [target('products', productId)] };
    },
  }),
  update_product: kind({
    summary: 'change fields of a product',
    payload: z.strictObject({ id, changes: nonEmpty(productFields) }),
    idempotent: true,
    async precheck(db, p) {
      await requireLive(db, 'products', [p.id]);
    },
    async run(ctx, p) {
      await ctx.api.updateProduct(p.id, p.changes);
      return { result: { updated: p.id }, touched: [target('products', p.id)] };
    },
  }),
  set_product_stock: kind({
    summary: 'set the stock of a product',
    payload: z.strictObject({ id, stock: z.number('must be a number').finite() }),
    idempotent: true,
    async precheck(db, p) {
      await requireLive(db, 'products', [p.id]);
    },
    async run(ctx, p) {
      await ctx.api.setProductStock(p.id, p.stock);
      return { result: { id: p.id, stock: p.stock }, touched: [target('products', p.id)] };
    },
  }),
  delete_product: deleteKind('products', (api, key) => api.deleteProduct(key), 'delete a product'),

  create_quotation: kind({
    summary: 'create a quotation (action `save`: a draft; `send`: sent at once); `result.id` is the new id',
    payload: z.strictObject({
      quotation: quotationFields.superRefine((q, ctx) => {
        if (q.action === 'send' && q.sendmethod === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['sendmethod'],
            message: 'is required when action is send (email, mail or printcenter)',
          });
      }),
    }),
    idempotent: false,
    async precheck(db, p) {
      await requireLive(db, 'clients', [p.quotation.clientnr]);
    },
    async run(ctx, p) {
      const quotationId = await ctx.api.createQuotation(p.quotation);
      return {
        result: { id: quotationId, sent: p.quotation.action === 'send' },
        touched: [target('quotations', quotationId)],
      };
    },
  }),
  send_quotation: kind({
    summary: 'send a draft quotation; the service gives it a new id (`result.new_id`)',
    payload: z.strictObject({ id, sendmethod: z.enum(SEND_METHODS, 'must be email, mail or printcenter') }),
    idempotent: false,
    async precheck(db, p) {
      const state = await quotationState(db, p.id);
      if (state?.sent) throw new PrecheckError(`quotation ${p.id} has already been sent (only a draft can be sent)`);
    },
    async run(ctx, p) {
      const newId = await ctx.api.sendQuotation(p.id, p.sendmethod);
      // The draft is gone under its old id; the sent quotation lives under the new one.
      return {
        result: { id: p.id, new_id: newId },
        touched: [target('quotations', p.id), target('quotations', newId)],
      };
    },
  }),
  approve_quotation: kind({
    summary: 'record the approval of a sent quotation',
    payload: z.strictObject({
      id,
      name: z.string('must be text').min(1, 'must not be empty'),
      date,
      comments: z.string('must be text').default(''),
    }),
    idempotent: true,
    async precheck(db, p) {
      await requireSent(db, p.id, 'be approved');
    },
    async run(ctx, p) {
      await ctx.api.approveQuotation(p.id, { name: p.name, date: p.date, comments: p.comments });
      return { result: { approved: p.id }, touched: [target('quotations', p.id)] };
    },
  }),
  remove_quotation_approval: kind({
    summary: 'remove the approval of a sent quotation',
    payload: idOnly,
    idempotent: true,
    async precheck(db, p) {
      await requireSent(db, p.id, 'have its approval removed');
    },
    async run(ctx, p) {
      await ctx.api.removeQuotationApproval(p.id);
      return { result: { unapproved: p.id }, touched: [target('quotations', p.id)] };
    },
  }),
  set_quotation_status: kind({
    summary: 'set the custom status of a sent quotation (`clear` removes it)',
    payload: z.strictObject({
      id,
      customstatus: z.enum(CUSTOM_STATUSES, `must be one of ${CUSTOM_STATUSES.join(', ')}`),
    }),
    idempotent: true,
    async precheck(db, p) {
      await requireSent(db, p.id, 'have a custom status');
    },
    async run(ctx, p) {
      await ctx.api.setQuotationStatus(p.id, p.customstatus);
      return { result: { id: p.id, customstatus: p.customstatus }, touched: [target('quotations', p.id)] };
    },
  }),
  delete_quotation: deleteKind('quotations', (api, key) => api.deleteQuotation(key), 'delete a quotation'),
} satisfies Record<string, JobKind>;

export type JobKindName = keyof typeof KINDS;
export const KIND_NAMES = Object.keys(KINDS) as JobKindName[];

/** Approval and custom status exist only on sent quotations (spec 3.1). */
async function requireSent(db: Kysely<Database>, quotationId: number, what: string): Promise<void> {
  const state = await quotationState(db, quotationId);
  if (state && !state.sent)
    throw new PrecheckError(
      `quotation ${quotationId} is a draft (not sent); only a sent quotation can ${what}. Send it first (send_quotation)`,
    );
}

export function kindNamed(name: string): JobKind | undefined {
  return Object.hasOwn(KINDS, name) ? (KINDS as Record<string, JobKind>)[name] : undefined;
}

/** The kind and the parsed payload, or a PayloadError naming the field that is wrong. */
export function parseJob(kindName: string, payload: unknown): { kind: JobKind; payload: unknown } {
  const found = kindNamed(kindName);
  if (!found) throw new PayloadError(`kind: unknown job kind '${kindName}' (known: ${KIND_NAMES.join(', ')})`);
  const parsed = found.payload.safeParse(payload, { reportInput: true });
  if (!parsed.success) throw new PayloadError(describeIssue(parsed.error.issues[0]!, payload));
  return { kind: found, payload: parsed.data };
}

function describeIssue(issue: z.core.$ZodIssue, payload: unknown): string {
  const path = ['payload', ...issue.path.map(String)].join('.');
  if (issue.code === 'unrecognized_keys')
    return `${path}: unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  if (issue.path.length === 0 && (payload === null || typeof payload !== 'object' || Array.isArray(payload))) {
    return `payload: must be a JSON object, got ${payload === null ? 'null' : Array.isArray(payload) ? 'an array' : typeof payload}`;
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return `${path}: is required`;
  return `${path}: ${issue.message}`;
}
