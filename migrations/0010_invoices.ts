/**
 * Sent invoices: the `invoices` mirror table (its lines in `document_lines` as `invoice`), and
 * per entity the `since` date the next incremental pull lists from.
 * A literal snapshot: it names tables and columns as they are at this migration.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `create table invoices (
  id integer primary key,
  invoicenr_full text,
  invoicenr text,
  reference_line1 text,
  reference_line2 text,
  reference_line3 text,
  profile integer,
  category integer,
  discounttype text,
  discount numeric,
  paymentcondition text,
  paymentperiod integer,
  collection boolean,
  tax numeric,
  totalintax numeric,
  clientnr integer,
  company text,
  contact text,
  address text,
  zipcode text,
  city text,
  country integer,
  phone text,
  mobile text,
  email text,
  taxnumber text,
  invoicenote text,
  sent date,
  uncollectible text,
  lastreminder date,
  open numeric,
  paiddate date,
  taxes jsonb,
  tax_type text,
  language text,
  tax_shifted boolean,
  payment_url text,
  duedate date,
  history jsonb,
  raw jsonb not null,
  raw_hash text,
  first_seen_at timestamptz not null default now(),
  last_changed_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  deleted_at timestamptz
)`,
  `create index invoices_deleted_at on invoices (deleted_at) where deleted_at is not null`,
  // An invoice number names one live invoice; old records may have none.
  `create unique index invoices_invoicenr on invoices (invoicenr) where deleted_at is null and invoicenr <> ''`,
  `create index invoices_clientnr on invoices (clientnr)`,
  `create index invoices_sent on invoices (sent)`,
  // What an incremental pull re-reads: the invoices the mirror holds as still open.
  `create index invoices_open on invoices (id) where open <> 0 and deleted_at is null`,
  `alter table document_lines drop constraint document_lines_document_type_check`,
  `alter table document_lines add constraint document_lines_document_type_check
  check (document_type in ('quotation', 'saved_invoice', 'repeating_invoice', 'invoice'))`,
  `alter table entity_pulls add column since_cursor date`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
  const { rows } = await sql<{ lz4: boolean }>`
    select coalesce(bool_or('lz4' = any(enumvals)), false) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(
    db,
  );
  if (!rows[0]?.lz4) return;
  // As 0006 did for the other mirror tables: every column that can be long, compressed with lz4.
  const { rows: columns } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_schema = current_schema() and table_name = 'invoices' and data_type in ('text', 'jsonb')
    order by ordinal_position`.execute(db);
  for (const { column_name } of columns) {
    await sql`alter table invoices alter column ${sql.id(column_name)} set compression lz4`.execute(db);
  }
}
