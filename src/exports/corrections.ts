/**
 * Which invoice a credit note corrects. The service's invoices carry no field for it
 * (service-notes.md lists every field; a credit note is an invoice with a negative total), so the
 * only place the data can say it is the text the user gave the credit note: its reference lines
 * or its note. A credit note is taken to correct an invoice when exactly one of the words there is
 * the number of another sent invoice of the account, of the same client, dated on or before it,
 * with a positive total; anything else (no such word, or two candidates) says nothing, and the
 * export does not guess.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';

/** Credit note id → the number of the invoice it corrects, for the credit notes among `ids` whose text names one. */
export async function correctedInvoices(
  db: Kysely<Database>,
  accountId: number,
  ids: readonly number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  // The credit notes' words first (a handful each), then the invoices they name, by the unique
  // index on (account_id, invoicenr): joined the other way round Postgres split every credit
  // note's text once per invoice of the account.
  const { rows } = await sql<{ id: number; corrects: string }>`
    with words as materialized (
      select cn.id, cn.clientnr, cn.sent, rtrim(word, '.') as word
        from invoices cn
       cross join lateral regexp_split_to_table(
               concat_ws(' ', cn.reference_line1, cn.reference_line2, cn.reference_line3, cn.invoicenote),
               '[[:space:],;:()]+') as word
       where cn.account_id = ${accountId} and cn.id = any(${[...ids]}::int[]) and cn.totalintax < 0
         and cn.deleted_at is null
    )
    select w.id, min(o.invoicenr) as corrects
      from words w
      join invoices o on o.account_id = ${accountId} and o.invoicenr = w.word and o.invoicenr <> ''
                     and o.deleted_at is null and o.id <> w.id and o.totalintax > 0
                     and o.clientnr is not distinct from w.clientnr and o.sent <= w.sent
     group by w.id
    having count(distinct o.id) = 1`.execute(db);
  return new Map(rows.map((row) => [row.id, row.corrects]));
}
