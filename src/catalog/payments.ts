/**
 * Payments received, from `payments` (migrations/0019_vat.ts): the payments the mirror registered
 * itself (`register_payment` jobs) and those it observed as a drop of an invoice's `open` between
 * two reads, each counted once (a registered payment the next pull sees is the same row).
 */
import { ACCOUNT_COLUMNS, type Report } from './report-shared.js';

const PAYMENTS_RECEIVED: Report = {
  name: 'payments_received',
  title: 'Payments received',
  description: 'payments per month and method, registered by the mirror or observed (for cash-basis VAT)',
  orderBy: 'account_name, month, method, source',
  comment:
    'The payments of sent invoices the mirror knows (table payments), per month of the payment, method and source: registered (by a register_payment job: its date and method) or observed (a drop of the open amount between two reads: dated by the paid date the service gives when the drop paid the invoice, else by when the mirror saw it; method unknown). A payment whose amount is not known yet (a registered "full" payment not seen since) is counted, without an amount.',
  select: `
    select to_char(coalesce(p.paid_on, p.detected_at::date), 'YYYY-"Q"Q') as period,
           to_char(coalesce(p.paid_on, p.detected_at::date), 'YYYY-MM') as month,
           coalesce(p.method, 'unknown') as method,
           p.source,
           count(*)::integer as payments,
           coalesce(sum(p.amount), 0) as amount,
           count(*) filter (where p.amount is null)::integer as amount_unknown,
           p.account_id,
           a.name as account_name
      from payments p
      join accounts a on a.id = p.account_id
     group by p.account_id, a.name, 1, 2, 3, 4`,
  chart: { kind: 'bars', x: 'month', y: ['amount'] },
  columns: {
    period: 'the quarter of the payment date, e.g. 2026-Q1',
    month: 'the month of the payment date (its paid_on, else the day the mirror saw it)',
    method: 'how it was paid, as the job said (bank, cash, …); unknown for observed payments',
    source: 'registered (by the mirror, through a register_payment job) or observed (a drop of open seen by a pull)',
    payments: 'how many payments',
    amount: 'their amounts added up',
    amount_unknown: 'of which the amount is not known yet (a registered "full" payment not seen by a pull since)',
    ...ACCOUNT_COLUMNS,
  },
};

export const PAYMENT_REPORTS: readonly Report[] = [PAYMENTS_RECEIVED];
