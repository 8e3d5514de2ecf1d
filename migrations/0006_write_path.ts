/**
 * A cheaper write path for the mirror, measured with `bench/sync.mjs` (see bench/README.md):
 * - The mirror's and the change log's long values (`raw`, `before`, `after`, text) are compressed
 *   with lz4 where the server has it (Debian's and most builds do; the embedded database does
 *   not). pglz took about a tenth of a backfill's database time; lz4 costs a fraction of that and
 *   decompresses faster for reports too.
 * - `changes.sync_run_id` is no longer a foreign key: the check ran once per change row. The
 *   column still names the run; invoice-mirror never deletes `sync_runs` rows.
 * - `changes` is append-only, so `detected_at` and `sync_run_id` follow the physical order: BRIN
 *   indexes serve their range and equality lookups at a small part of a B-tree's upkeep.
 */
import { sql, type Kysely } from 'kysely';

// Listed here rather than imported: a migration is a snapshot of the schema at its time.
const LONG_VALUED_TABLES = [
  'countries',
  'clients',
  'products',
  'quotations',
  'saved_invoices',
  'repeating_invoices',
  'document_lines',
  'changes',
];

const statements = [
  `alter table changes drop constraint if exists changes_sync_run_id_fkey`,
  `drop index changes_detected_at`,
  `create index changes_detected_at on changes using brin (detected_at)`,
  `drop index changes_sync_run`,
  `create index changes_sync_run on changes using brin (sync_run_id)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
  const { rows } = await sql<{ lz4: boolean }>`
    select coalesce(bool_or('lz4' = any(enumvals)), false) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(
    db,
  );
  if (!rows[0]?.lz4) return;
  // Every column that can be long: the raw records, and the text columns beside them (a wide
  // client row is compressed column by column once it passes 2 kB).
  const { rows: columns } = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and table_name = any(${LONG_VALUED_TABLES}::text[])
      and data_type in ('text', 'jsonb', 'ARRAY')
    order by table_name, ordinal_position`.execute(db);
  for (const { table_name, column_name } of columns) {
    await sql`alter table ${sql.id(table_name)} alter column ${sql.id(column_name)} set compression lz4`.execute(db);
  }
}
