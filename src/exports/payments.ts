/**
 * The payments the auditfile books: issue 44's `payments` (those the mirror registered through a
 * register_payment job, and those it observed as a drop of an invoice's open amount between two
 * reads), dated by their payment date, else by the day the mirror saw them; and, per invoice, what
 * had been paid before the mirror first saw it (its total less its open amount less the drops the
 * mirror observed since), which `payments` cannot hold: without it an account mirrored mid-year
 * would show every invoice paid before as still owed. That part is dated by the invoice's paid
 * date when it paid the invoice in full, else by the day the mirror first saw the invoice.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';
import type { Payment } from './model.js';
import { toCents } from './money.js';

interface PaymentRow {
  invoice_id: number;
  invoicenr: string;
  clientnr: number | null;
  paid: string;
  amount: string | null;
  method: string;
  source: Payment['source'];
}

/** A payment the mirror knows of but cannot book: its amount is not known yet. */
export interface PaymentProblem {
  invoiceId: number;
  invoiceNumber: string;
  date: string;
  problem: string;
}

export async function readPayments(
  db: Kysely<Database>,
  accountId: number,
  from: string,
  to: string,
): Promise<{ payments: Payment[]; problems: PaymentProblem[] }> {
  const { rows } = await sql<PaymentRow>`
    with ledger as (
      select p.invoice_id, coalesce(p.paid_on, p.detected_at::date) as paid, p.amount, coalesce(p.method, 'unknown') as method,
             p.source, p.change_id
        from payments p where p.account_id = ${accountId}
    ),
    before_mirror as (
      select i.id as invoice_id,
             case when i.open <= 0 and i.paiddate is not null
                       and not exists (select from ledger l where l.invoice_id = i.id and l.change_id is not null)
                  then i.paiddate else i.first_seen_at::date end as paid,
             i.totalintax - i.open - coalesce((select sum(l.amount) from ledger l
                                                where l.invoice_id = i.id and l.change_id is not null), 0) as amount,
             'unknown' as method, 'before_mirror' as source
        from invoices i
       where i.account_id = ${accountId} and i.deleted_at is null and i.sent is not null
         and coalesce(i.uncollectible, '') in ('', '0', 'false')
    )
    select x.invoice_id, i.invoicenr, i.clientnr, to_char(x.paid, 'YYYY-MM-DD') as paid, x.amount::text as amount,
           x.method, x.source
      from (select invoice_id, paid, amount, method, source from ledger
            union all
            select invoice_id, paid, amount, method, source from before_mirror where amount <> 0) x
      join invoices i on i.account_id = ${accountId} and i.id = x.invoice_id
     where x.paid between ${from}::date and ${to}::date
     order by x.paid, x.invoice_id, x.source`.execute(db);
  const payments: Payment[] = [];
  const problems: PaymentProblem[] = [];
  for (const row of rows) {
    if (row.amount === null) {
      problems.push({
        invoiceId: row.invoice_id,
        invoiceNumber: row.invoicenr,
        date: row.paid,
        problem: 'a payment of the full amount registered, whose amount no pull has shown yet: not booked',
      });
      continue;
    }
    payments.push({
      invoiceId: row.invoice_id,
      invoiceNumber: row.invoicenr,
      customerId: String(row.clientnr ?? 0),
      date: row.paid,
      amount: toCents(row.amount),
      method: row.method,
      source: row.source,
    });
  }
  return { payments, problems };
}
