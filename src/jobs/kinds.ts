/**
 * The job kinds of the contract (design.md, "Jobs"): for each, the payload's zod schema, its
 * policy (policies/: repeatable, a single recorded call, or a batched send: how its calls are made
 * safely), the checks against the mirror made before any call, and the handler that makes the
 * calls and names the records to re-read.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { NotFoundError, type InvoicingClient } from '../api/index.js';
import {
  either,
  invoiceIsOpen,
  isWrittenOff,
  JOB_KIND_NAMES,
  QUOTATION_STATUSES,
  SEND_METHODS,
  type JobKindName,
  type SingleReadEntity,
} from '../catalog/index.js';
import { errorMessage } from '../errors.js';
import { didYouMean } from '../suggest.js';
import type { RefreshTarget } from '../sync/index.js';
import { PayloadError, PrecheckError } from './errors.js';
import { batchesOf, idStates, idsIn, type CallRecord } from './ledger.js';
import { clientChanges, clientFields, invoiceFields, nonEmpty, productFields, quotationFields } from './fields.js';
import { mirrorRows, quotationState, requireLive, type AccountMirror } from './mirror.js';
import { batchedSend, sendSavedInvoices as sendSaved } from './policies/batched-send.js';
import { repeatable } from './policies/repeatable.js';
import { singleCall } from './policies/single-call.js';
import { dayBeforeCall, stillWorking, type Settling } from './settle.js';
import type { JobContext, JobKind, Reconciled } from './types.js';

export type { HandlerOutcome, JobContext, JobKind, JobRow, Reconciled } from './types.js';

function kind<S extends z.ZodType>(spec: { payload: S } & Omit<JobKind<z.output<S>>, 'payload'>): JobKind<z.output<S>> {
  return spec as unknown as JobKind<z.output<S>>;
}

const id = z
  .int('must be a whole number')
  .positive('must be a positive id')
  .max(2_147_483_647, 'must be at most 2147483647');
const idOnly = z.strictObject({ id });
const date = z.iso.date('must be a date YYYY-MM-DD');

const target = (entity: SingleReadEntity, key: number): RefreshTarget => ({ entity, id: key });

// ---- saved invoices: sending in calls of at most 10 (policies/batched-send.ts) -------------

const sendSavedInvoices = kind({
  summary: 'send saved invoices (any number of ids, in calls of at most 10); `delete` removes them after sending',
  payload: z.strictObject({
    ids: z
      .array(id, 'must be a list of saved invoice ids')
      .min(1, 'name at least one saved invoice id')
      .transform((ids) => [...new Set(ids)]),
    delete: z.boolean('must be true or false'),
  }),
  policy: batchedSend,
  async precheck(mirror, p, job) {
    // Only ids never sent in a call: one that may have been sent is checked with the service instead.
    const states = idStates(p.ids, batchesOf(job.result));
    await requireLive(mirror, 'saved_invoices', idsIn(states, new Set(['pending', 'failed'] as const)));
  },
  run: sendSaved,
});

// ---- the other kinds ------------------------------------------------------------------------

/** A delete of one record by id (idempotent: the client counts a 404 after an uncertain attempt as done). */
function deleteKind(
  entity: SingleReadEntity,
  call: (api: InvoicingClient, key: number) => Promise<void>,
  summary: string,
  keyName: 'id' | 'clientnr' = 'id',
) {
  return kind({
    summary,
    payload: z.strictObject({ [keyName]: id }) as unknown as z.ZodType<Record<string, number>>,
    policy: repeatable,
    async precheck(mirror, p) {
      await requireLive(mirror, entity, [p[keyName]!]);
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
    policy: singleCall,
    async run(ctx, p) {
      const clientnr = await ctx.api.createClient(p.client);
      return { result: { clientnr }, touched: [target('clients', clientnr)] };
    },
  }),
  update_client: kind({
    summary: 'change fields of a client',
    payload: z.strictObject({ clientnr: id, changes: nonEmpty(clientChanges) }),
    policy: repeatable,
    async precheck(mirror, p) {
      await requireLive(mirror, 'clients', [p.clientnr]);
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
    policy: singleCall,
    async run(ctx, p) {
      const productId = await ctx.api.createProduct(p.product);
      return { result: { id: productId }, touched: [target('products', productId)] };
    },
  }),
  update_product: kind({
    summary: 'change fields of a product',
    payload: z.strictObject({ id, changes: nonEmpty(productFields) }),
    policy: repeatable,
    async precheck(mirror, p) {
      await requireLive(mirror, 'products', [p.id]);
    },
    async run(ctx, p) {
      await ctx.api.updateProduct(p.id, p.changes);
      return { result: { updated: p.id }, touched: [target('products', p.id)] };
    },
  }),
  set_product_stock: kind({
    summary: 'set the stock of a product',
    payload: z.strictObject({ id, stock: z.number('must be a number').finite() }),
    policy: repeatable,
    async precheck(mirror, p) {
      await requireLive(mirror, 'products', [p.id]);
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
            message: `is required when action is send (${either(SEND_METHODS)})`,
          });
      }),
    }),
    policy: singleCall,
    async precheck(mirror, p) {
      await requireLive(mirror, 'clients', [p.quotation.clientnr]);
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
    payload: z.strictObject({ id, sendmethod: z.enum(SEND_METHODS, `must be ${either(SEND_METHODS)}`) }),
    policy: singleCall,
    async precheck(mirror, p) {
      const state = await quotationState(mirror, p.id);
      if (state?.sent) throw new PrecheckError(`quotation ${p.id} has already been sent (only a draft can be sent)`);
    },
    async reconcile(ctx, p, _call, settle) {
      // The service gives a sent quotation a new id: a draft gone from its old one was sent.
      try {
        const quotation = await ctx.api.getQuotation(p.id);
        if (quotation.sent === true)
          return {
            happened: true,
            checked: `quotation ${p.id} is sent`,
            outcome: { result: { id: p.id, new_id: p.id }, touched: [target('quotations', p.id)] },
          };
        return settle.settled
          ? { happened: false, checked: `quotation ${p.id} is still a draft, longer after the call than it can take` }
          : { happened: null, checked: `quotation ${p.id} is still a draft; ${stillWorking(settle)}` };
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        return {
          happened: true,
          checked: `draft quotation ${p.id} is gone (sending gives it a new id); the next sync brings the sent one`,
          outcome: { result: { id: p.id, new_id: null }, touched: [target('quotations', p.id)] },
        };
      }
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
    policy: repeatable,
    async precheck(mirror, p) {
      await requireSent(mirror, p.id, 'be approved');
    },
    async run(ctx, p) {
      await ctx.api.approveQuotation(p.id, { name: p.name, date: p.date, comments: p.comments });
      return { result: { approved: p.id }, touched: [target('quotations', p.id)] };
    },
  }),
  remove_quotation_approval: kind({
    summary: 'remove the approval of a sent quotation',
    payload: idOnly,
    policy: repeatable,
    async precheck(mirror, p) {
      await requireSent(mirror, p.id, 'have its approval removed');
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
      customstatus: z.enum(QUOTATION_STATUSES, `must be one of ${QUOTATION_STATUSES.join(', ')}`),
    }),
    policy: repeatable,
    async precheck(mirror, p) {
      await requireSent(mirror, p.id, 'have a custom status');
    },
    async run(ctx, p) {
      await ctx.api.setQuotationStatus(p.id, p.customstatus);
      return { result: { id: p.id, customstatus: p.customstatus }, touched: [target('quotations', p.id)] };
    },
  }),
  delete_quotation: deleteKind('quotations', (api, key) => api.deleteQuotation(key), 'delete a quotation'),

  create_invoice: kind({
    summary:
      'create an invoice: action `send` (sent at once), `save` (a saved invoice) or `repeat` (a repeating invoice); `result.id` is the new id',
    payload: z.strictObject({ invoice: invoiceFields }),
    policy: singleCall,
    async precheck(mirror, p) {
      await requireLive(mirror, 'clients', [p.invoice.clientnr]);
    },
    async run(ctx, p) {
      const created = await ctx.api.createInvoice(p.invoice);
      const entity = CREATED_BY_ACTION[p.invoice.action];
      if ('id' in created)
        return { result: { id: created.id, action: p.invoice.action }, touched: [target(entity, created.id)] };
      // A sent invoice answered by its number: its id is what the mirror keys it by. The invoice
      // exists now, so a failed read must not fail the job (a retry would create it again).
      const id = await ctx.api.getInvoice(created.invoicenr).then(
        (invoice) => invoice.id,
        (error: unknown) => {
          ctx.log.warn(
            { invoicenr: created.invoicenr, error: errorMessage(error) },
            'created; the next sync brings it',
          );
          return null;
        },
      );
      return {
        result: { id, action: p.invoice.action, invoicenr: created.invoicenr },
        touched: id === null ? [] : [target(entity, id)],
      };
    },
  }),
  register_payment: kind({
    summary: 'register a payment of a sent invoice (`amount` a number, or "full" for what is open)',
    payload: z.strictObject({
      id,
      amount: z.union([z.literal('full'), z.number('must be a number or "full"').positive('must be more than 0')], {
        error: 'must be a number or "full"',
      }),
      date,
      method: z.string('must be text').min(1, 'must not be empty').default('bank'),
    }),
    // Paying twice is the one thing this must never do: a call of unknown outcome is made again
    // only on proof that it did not happen (the open amount unchanged once it settled) or a person's word.
    policy: singleCall,
    async precheck(mirror, p) {
      await requireOpen(mirror, p.id, 'register a payment');
    },
    async observe(ctx, p) {
      const invoice = await ctx.api.getInvoice(p.id);
      return { open: invoice.open, paiddate: invoice.paiddate };
    },
    reconcile: (ctx, p, call, settle) => reconcilePayment(ctx, p, call, settle),
    async run(ctx, p) {
      await ctx.api.registerPayment(p.id, { amount: p.amount, date: p.date, method: p.method });
      return { result: { id: p.id, amount: p.amount, date: p.date }, touched: [target('invoices', p.id)] };
    },
  }),
  send_reminder: kind({
    summary: 'send a payment reminder for an open sent invoice',
    payload: z.strictObject({ id, attach_invoice: z.boolean('must be true or false').default(true) }),
    policy: singleCall,
    async precheck(mirror, p) {
      await requireOpen(mirror, p.id, 'get a reminder');
    },
    async observe(ctx, p) {
      const invoice = await ctx.api.getInvoice(p.id);
      return { lastreminder: invoice.lastreminder };
    },
    async reconcile(ctx, p, call, settle) {
      const before = String(call.before?.lastreminder ?? '');
      const now = String((await ctx.api.getInvoice(p.id)).lastreminder ?? '');
      if (call.before && now !== before)
        return {
          happened: true,
          checked: `invoice ${p.id}'s last reminder went from '${before}' to '${now}'`,
          outcome: { result: { id: p.id }, touched: [target('invoices', p.id)] },
        };
      if (!call.before) return { happened: null, checked: 'no record of its last reminder before the call' };
      // A reminder on the call's day already leaves the date as it was: that proves nothing.
      if (before >= (await dayBeforeCall(ctx, call.started_at)))
        return {
          happened: null,
          checked: `invoice ${p.id} had a reminder on ${before} already, so its date cannot tell`,
        };
      return settle.settled
        ? { happened: false, checked: `invoice ${p.id}'s last reminder is unchanged since before the call` }
        : { happened: null, checked: `invoice ${p.id}'s last reminder is unchanged; ${stillWorking(settle)}` };
    },
    async run(ctx, p) {
      // The reminder names the invoice by its number, which the service knows best.
      const invoice = await ctx.api.getInvoice(p.id);
      if (!invoice.invoicenr) throw new PrecheckError(`invoice ${p.id} has no invoice number to remind of`);
      await ctx.api.sendReminder(invoice.invoicenr, p.attach_invoice);
      return { result: { id: p.id, invoicenr: invoice.invoicenr }, touched: [target('invoices', p.id)] };
    },
  }),
  delete_invoice: deleteKind('invoices', (api, key) => api.deleteInvoice(key), 'delete a sent invoice'),
  fetch_invoice_pdf: kind({
    summary: 'archive the PDF of a sent invoice in invoice_pdfs (`invoice-mirror invoice pdf ID` prints it)',
    payload: idOnly,
    policy: repeatable,
    async precheck(mirror, p) {
      await requireLive(mirror, 'invoices', [p.id]);
    },
    async run(ctx, p) {
      const pdf = await ctx.api.getInvoicePdf(p.id);
      const sha256 = createHash('sha256').update(pdf).digest('hex');
      const [row] = await mirrorRows(ctx, 'invoices', [p.id]).then((rows) => [...rows.values()]);
      const archived = {
        invoicenr: row ? String(row.invoicenr ?? '') || null : null,
        pdf,
        size_bytes: pdf.length,
        sha256,
        fetched_at: new Date(),
        job_id: ctx.job.id,
      };
      await ctx.db
        .insertInto('invoice_pdfs')
        .values({ account_id: ctx.accountId, invoice_id: p.id, ...archived })
        .onConflict((oc) => oc.columns(['account_id', 'invoice_id']).doUpdateSet(archived))
        .execute();
      return { result: { id: p.id, size_bytes: pdf.length, sha256 }, touched: [] };
    },
  }),
} satisfies Record<JobKindName, JobKind>;

/** The kinds in the catalogue's order (every one has a handler above, and no other). */
export const KIND_NAMES: readonly JobKindName[] = JOB_KIND_NAMES;
export type { JobKindName };

/** What `POST /invoices` makes, by action. */
const CREATED_BY_ACTION = { send: 'invoices', save: 'saved_invoices', repeat: 'repeating_invoices' } as const;

/**
 * A payment of unknown outcome, judged by the invoice's open amount against the one read just
 * before the call: lower by the payment (or nothing left, for "full") proves it happened;
 * unchanged once the call settled proves it did not; anything else is for a person.
 */
async function reconcilePayment(
  ctx: JobContext,
  p: { id: number; amount: number | 'full' },
  call: CallRecord,
  settle: Settling,
): Promise<Reconciled> {
  const before = call.before === undefined ? null : Number(call.before.open);
  const invoice = await ctx.api.getInvoice(p.id);
  const now = Number(invoice.open);
  if (before === null || !Number.isFinite(before) || !Number.isFinite(now))
    return { happened: null, checked: `invoice ${p.id}'s open amount before the call is not known` };
  const paid = Math.round((before - now) * 100) / 100;
  const expected = p.amount === 'full' ? before : p.amount;
  const words = `invoice ${p.id}'s open amount went from ${before.toFixed(2)} to ${now.toFixed(2)}`;
  if (paid > 0 && (paid === Math.round(expected * 100) / 100 || (p.amount === 'full' && now <= 0)))
    return {
      happened: true,
      checked: words,
      outcome: { result: { id: p.id, amount: p.amount }, touched: [target('invoices', p.id)] },
    };
  if (paid !== 0) return { happened: null, checked: `${words}, which is not this payment alone` };
  return settle.settled
    ? {
        happened: false,
        checked: `invoice ${p.id}'s open amount is unchanged (${now.toFixed(2)}) since before the call`,
      }
    : { happened: null, checked: `invoice ${p.id}'s open amount is unchanged; ${stillWorking(settle)}` };
}

/** Payments and reminders are for open invoices (the catalogue's rule: something open, not written off). */
async function requireOpen(mirror: AccountMirror, invoiceId: number, what: string): Promise<void> {
  const row = (await requireLive(mirror, 'invoices', [invoiceId])).get(invoiceId);
  if (!row || invoiceIsOpen(row)) return; // no row: the mirror cannot tell, the service decides
  const why = isWrittenOff(row)
    ? `is written off as uncollectible (${String(row.uncollectible)})`
    : `has nothing open (open ${String(row.open ?? 'unknown')}${row.paiddate ? `, paid ${String(row.paiddate)}` : ''})`;
  throw new PrecheckError(`invoice ${invoiceId} ${why}; only an open invoice can ${what}`);
}

/** Approval and custom status exist only on sent quotations (spec 3.1). */
async function requireSent(mirror: AccountMirror, quotationId: number, what: string): Promise<void> {
  const state = await quotationState(mirror, quotationId);
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
  if (!found)
    throw new PayloadError(
      `kind: unknown job kind '${kindName}'${didYouMean(kindName, KIND_NAMES)} (known: ${KIND_NAMES.join(', ')})`,
    );
  const parsed = found.payload.safeParse(payload, { reportInput: true });
  if (!parsed.success) throw new PayloadError(describeIssues(found.payload, parsed.error.issues, payload));
  return { kind: found, payload: parsed.data };
}

/**
 * The issue to report: an unknown field before anything else (a misspelled field also makes the
 * field it should have been missing), with the missing field of the same object as its likely
 * meaning.
 */
function describeIssues(schema: z.ZodType, issues: readonly z.core.$ZodIssue[], payload: unknown): string {
  const unknown = issues.find((issue) => issue.code === 'unrecognized_keys');
  if (!unknown) return describeIssue(issues[0]!, payload);
  const where = unknown.path.map(String).join('.');
  const missingHere = issues
    .filter((issue) => issue.code === 'invalid_type' && issue.input === undefined)
    .filter((issue) => issue.path.slice(0, -1).map(String).join('.') === where)
    .map((issue) => String(issue.path.at(-1)));
  const candidates = missingHere.length > 0 ? missingHere : fieldsAt(schema, unknown.path);
  const path = ['payload', ...unknown.path.map(String)].join('.');
  const keys = unknown.keys.map((key) => `'${key}'${didYouMean(key, candidates)}`);
  return `${path}: unknown field${keys.length > 1 ? 's' : ''} ${keys.join(', ')}`;
}

/**
 * A payload to start from: the kind's top-level fields, each null (queuing it as it is names the
 * first field to fill in). For the console's job form.
 */
export function payloadTemplate(kindName: string): string {
  const kind = kindNamed(kindName);
  if (!kind) return '{}';
  const fields = fieldsAt(kind.payload, []);
  return fields.length === 0 ? '{}' : `{${fields.map((field) => `"${field}": null`).join(', ')}}`;
}

/** The field names of the object at `path` in a payload schema (best effort; none when unsure). */
function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  type Node = { shape?: Record<string, Node>; unwrap?: () => Node; def?: { in?: Node } };
  const objectOf = (node: Node | undefined): Node | undefined => {
    let current = node;
    for (let depth = 0; current && !current.shape && depth < 5; depth++)
      current = current.unwrap ? current.unwrap() : current.def?.in;
    return current;
  };
  let node = objectOf(schema as unknown as Node);
  for (const segment of path) node = objectOf(node?.shape?.[String(segment)]);
  return node?.shape ? Object.keys(node.shape) : [];
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
