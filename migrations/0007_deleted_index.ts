/**
 * `deleted_at` is indexed for the deleted rows only. Live rows are nearly all of a table, so a
 * filter on `deleted_at is null` reads the table anyway, while "deleted since …" needs only the
 * few deleted ones. A partial index is that much smaller, and a row inserted live costs it
 * nothing: `bench/sync.mjs` measured about 3 % less database CPU for a backfill (6 interleaved
 * pairs, 4.09 against 4.22 core-seconds).
 */
import { sql, type Kysely } from 'kysely';

// Listed here rather than imported: a migration is a snapshot of the schema at its time.
const MIRROR_TABLES = ['countries', 'clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'];

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of MIRROR_TABLES) {
    const index = `${table}_deleted_at`;
    await sql`drop index ${sql.id(index)}`.execute(db);
    await sql`create index ${sql.id(index)} on ${sql.id(table)} (deleted_at) where deleted_at is not null`.execute(db);
  }
}
