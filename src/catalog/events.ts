/**
 * The business events (docs/events.md): every type, what makes it, and an example of its body.
 * The SQL that derives them from the change log is built from this list (src/db/event-triggers.ts),
 * so a type is added here, not in a migration.
 */

/** Fields a record's events carry in `record`, besides its key: what an integrator looks for first. */
export const EVENT_KEY_FIELDS: Readonly<Record<string, readonly string[]>> = {
  invoices: ['invoicenr', 'clientnr', 'totalintax', 'open', 'sent', 'duedate', 'paiddate'],
  quotations: ['quotationreference', 'clientnr', 'totalintax', 'sent', 'customstatus'],
  saved_invoices: ['name', 'clientnr', 'totalintax'],
  repeating_invoices: ['name', 'clientnr', 'totalintax', 'nextsenddate'],
  clients: ['clientnr', 'company', 'contact', 'email'],
  products: ['code', 'name', 'price', 'stock'],
};

/** Fields whose values a change's `before`/`after` leave out (named in `changed` still): too big. */
export const EVENT_BULKY_FIELDS: readonly string[] = ['lines', 'history', 'taxes'];

/**
 * How a type is derived from a `changes` row: its entity, and the condition as SQL over the row's
 * `c.op`, `c.changed_fields`, `c.before` and `c.after` (raw records), with the helper functions of
 * src/db/event-triggers.ts: `events_num(record, field)` the field as a number, `events_set(record, field)` whether
 * it holds a value, `events_flag(record, field)` whether it is a true flag.
 * What an insert makes is not written while a pull fills an empty mirror (see src/db/event-triggers.ts).
 */
export interface ChangeEventRule {
  entity: string;
  when: string;
}

export interface EventType {
  type: string;
  /** When it happens, in a sentence for docs/events.md. */
  meaning: string;
  /** Derived from the change log; the others are written by their own trigger or pass. */
  change?: ChangeEventRule;
  /** An example of its body. */
  example: Record<string, unknown>;
}

const invoice = {
  id: '12',
  invoicenr: 'F20260042',
  clientnr: 7,
  totalintax: '121.00',
  open: '121.00',
  sent: '2026-11-02',
  duedate: '2026-11-16',
  paiddate: '',
};
const quotation = {
  id: '31',
  quotationreference: 'Q-2026-031',
  clientnr: 7,
  totalintax: '605.00',
  sent: 'true',
  customstatus: '',
};
const saved = { id: '5', name: 'Maintenance November', clientnr: 7, totalintax: '242.00' };
const repeating = { id: '3', name: 'Hosting', clientnr: 7, totalintax: '12.10', nextsenddate: '2026-12-01' };
const client = {
  id: '7',
  clientnr: 7,
  company: 'Bakkerij De Molen',
  contact: 'Piet de Vries',
  email: 'piet@example.nl',
};
const product = { id: '9', code: 'BRD-01', name: 'Brood', price: '2.50', stock: '40' };

/** The body of a record event: its key fields, and for a change what changed. */
function recordBody(
  record: Record<string, unknown>,
  change?: { changed: string[]; before: Record<string, unknown>; after: Record<string, unknown> },
) {
  return change ? { record, ...change } : { record };
}

/** `created`, `changed` and `deleted` of an entity whose events say nothing more particular. */
function lifecycle(prefix: string, entity: string, label: string, record: Record<string, unknown>): EventType[] {
  return [
    {
      type: `${prefix}.created`,
      meaning: `a new ${label} appeared in the mirror (or one deleted came back)`,
      change: { entity, when: `c.op in ('insert', 'restore')` },
      example: recordBody(record),
    },
    {
      type: `${prefix}.changed`,
      meaning: `a ${label} changed`,
      change: { entity, when: `c.op = 'update'` },
      example: recordBody(record, {
        changed: ['name'],
        before: { name: 'Old name' },
        after: { name: record.name ?? '' },
      }),
    },
    {
      type: `${prefix}.deleted`,
      meaning: `a ${label} was deleted at the service`,
      change: { entity, when: `c.op = 'delete'` },
      example: recordBody(record),
    },
  ];
}

export const EVENT_TYPES: readonly EventType[] = [
  {
    type: 'invoice.sent',
    meaning: 'a sent invoice appeared (sent from a saved invoice, by a job or at the service)',
    change: { entity: 'invoices', when: `c.op in ('insert', 'restore')` },
    example: recordBody(invoice),
  },
  {
    type: 'invoice.paid',
    meaning: 'an invoice with something open is paid in full (nothing open any more)',
    change: {
      entity: 'invoices',
      when: `(c.op = 'update' and events_num(c.before, 'open') > 0 and events_num(c.after, 'open') <= 0)
        or (c.op = 'insert' and events_num(c.after, 'open') <= 0 and events_num(c.after, 'totalintax') > 0)`,
    },
    example: recordBody(
      { ...invoice, open: '0.00', paiddate: '2026-11-10' },
      {
        changed: ['open', 'paiddate'],
        before: { open: '121.00', paiddate: '' },
        after: { open: '0.00', paiddate: '2026-11-10' },
      },
    ),
  },
  {
    type: 'invoice.partly_paid',
    meaning: 'a payment that leaves part of an invoice open',
    change: {
      entity: 'invoices',
      when: `c.op = 'update' and events_num(c.after, 'open') > 0 and events_num(c.after, 'open') < events_num(c.before, 'open')`,
    },
    example: recordBody(
      { ...invoice, open: '21.00' },
      { changed: ['open'], before: { open: '121.00' }, after: { open: '21.00' } },
    ),
  },
  {
    type: 'invoice.overdue',
    meaning: 'an open invoice passed its due date (found by the daily pass; once per invoice)',
    example: recordBody({ ...invoice, duedate: '2026-11-16' }),
  },
  {
    type: 'invoice.reminder_sent',
    meaning: 'a payment reminder was sent (lastreminder changed)',
    change: {
      entity: 'invoices',
      when: `c.op = 'update' and 'lastreminder' = any(c.changed_fields) and events_set(c.after, 'lastreminder')`,
    },
    example: recordBody(invoice, {
      changed: ['lastreminder'],
      before: { lastreminder: '' },
      after: { lastreminder: '2026-11-20' },
    }),
  },
  {
    type: 'invoice.deleted',
    meaning: 'a sent invoice was deleted at the service',
    change: { entity: 'invoices', when: `c.op = 'delete'` },
    example: recordBody(invoice),
  },
  {
    type: 'quotation.created',
    meaning: 'a new quotation appeared (a draft, or one sent at once)',
    change: { entity: 'quotations', when: `c.op in ('insert', 'restore')` },
    example: recordBody({ ...quotation, sent: 'false' }),
  },
  {
    type: 'quotation.sent',
    meaning: 'a quotation was sent (sending a draft gives it a new id: the sent one appears, the draft goes)',
    change: {
      entity: 'quotations',
      when: `(c.op = 'update' and events_flag(c.after, 'sent') and not events_flag(c.before, 'sent')) or (c.op = 'insert' and events_flag(c.after, 'sent'))`,
    },
    example: recordBody(quotation),
  },
  {
    type: 'quotation.approved',
    meaning: 'a sent quotation was approved (by the client signing, or by a job)',
    change: {
      entity: 'quotations',
      when: `c.op = 'update' and events_set(c.after, 'approved') and not events_set(c.before, 'approved')`,
    },
    example: recordBody(quotation, {
      changed: ['approved'],
      before: { approved: [] },
      after: { approved: { name: 'Piet de Vries', date: '2026-11-12', ip: '', comments: '' } },
    }),
  },
  {
    type: 'quotation.status_changed',
    meaning: 'the custom status of a quotation changed (progress, completed, billable, declined, or cleared)',
    change: { entity: 'quotations', when: `c.op = 'update' and 'customstatus' = any(c.changed_fields)` },
    example: recordBody(
      { ...quotation, customstatus: 'billable' },
      { changed: ['customstatus'], before: { customstatus: '' }, after: { customstatus: 'billable' } },
    ),
  },
  {
    type: 'quotation.changed',
    meaning: 'anything else of a quotation changed',
    change: {
      entity: 'quotations',
      when: `c.op = 'update' and exists (select from unnest(c.changed_fields) f where f not in ('sent', 'approved', 'customstatus'))`,
    },
    example: recordBody(quotation, { changed: ['notes'], before: { notes: '' }, after: { notes: 'Incl. delivery' } }),
  },
  {
    type: 'quotation.deleted',
    meaning: 'a quotation was deleted (or, a draft, replaced by its sent copy)',
    change: { entity: 'quotations', when: `c.op = 'delete'` },
    example: recordBody({ ...quotation, sent: 'false' }),
  },
  ...lifecycle('saved_invoice', 'saved_invoices', 'saved invoice', saved),
  ...lifecycle('repeating_invoice', 'repeating_invoices', 'repeating invoice', repeating),
  ...lifecycle('client', 'clients', 'client', client),
  ...lifecycle('product', 'products', 'product', product).map((event) =>
    event.type === 'product.changed'
      ? {
          ...event,
          meaning: 'a product changed (other than its stock alone)',
          change: {
            entity: 'products',
            when: `c.op = 'update' and exists (select from unnest(c.changed_fields) f where f <> 'stock')`,
          },
        }
      : event,
  ),
  {
    type: 'product.stock_changed',
    meaning: "a product's stock changed",
    change: { entity: 'products', when: `c.op = 'update' and 'stock' = any(c.changed_fields)` },
    example: recordBody(product, { changed: ['stock'], before: { stock: '40' }, after: { stock: '42' } }),
  },
  {
    type: 'job.succeeded',
    meaning: 'a queued job succeeded',
    example: { job: { id: 17, kind: 'register_payment', attempts: 1, result: { id: 12 } } },
  },
  {
    type: 'job.failed',
    meaning: 'a queued job failed for good (no attempts left, or a reason no retry mends)',
    example: {
      job: { id: 18, kind: 'send_reminder', attempts: 5, error: 'invoice F20260042 has nothing open to remind of' },
    },
  },
  {
    type: 'job.interrupted',
    meaning: 'a job that may not be repeated blindly was running when its worker stopped: it waits for a person',
    example: { job: { id: 19, kind: 'send_saved_invoices', attempts: 1, error: 'the worker stopped while it ran' } },
  },
  {
    type: 'sync.failed',
    meaning: 'a pull of an account failed',
    example: { run: { id: 240, kind: 'sync', entities: ['clients', 'invoices'], error: 'the service answered 503' } },
  },
  {
    type: 'deletes.held',
    meaning: 'a pull found too many records missing at once and held their deletes for a person',
    example: { entity: 'clients', held: 212, run_id: 241, ids: ['3', '4', '5'] },
  },
];

export const EVENT_TYPE_NAMES: readonly string[] = EVENT_TYPES.map((event) => event.type);
