/**
 * An empty schema's migrations in one step. A first start replays every migration: about 240
 * statements that create tables and then alter, rekey and rebuild them, 0.45 s of PostgreSQL's
 * work on a 2-core VM, before the first request of a first backfill (and at every test's fresh
 * schema). The schema they leave, dumped by pg_dump (scripts/baseline.mjs writes
 * baseline-schema.ts), is built in 0.15–0.2 s: each object is made once, as it ends up.
 *
 * `migrate` runs it where no migration has been applied yet and records the migrations it stands
 * for; the migrations after it, and the repeatable step, apply as always. The migrations stay
 * what the schema is made of (an existing schema is upgraded by them); the baseline is a copy, and
 * test/foundation/baseline.test.ts checks that it equals them replayed and covers them all.
 */
import { CompiledQuery, sql, type Transaction } from 'kysely';
import type { Migration } from '../../migrations/index.js';
import { BASELINE } from './baseline-schema.js';

/** The leading migrations of `migrations` the baseline stands for, or none where it does not fit them. */
export function baselineCovers(migrations: readonly Migration[]): readonly Migration[] {
  const covered = migrations.slice(0, BASELINE.migrations.length);
  const fits =
    BASELINE.migrations.length > 0 && covered.every((migration, i) => migration.name === BASELINE.migrations[i]);
  return fits ? covered : [];
}

/**
 * Builds the baseline into `schema` (made and empty) inside the migration transaction: one text
 * by the simple protocol, as pg_dump's output runs, with function bodies checked when first run
 * rather than as they are made (they may name what is made after them).
 */
export async function applyBaseline(trx: Transaction<any>, schema: string): Promise<void> {
  await sql`select set_config('check_function_bodies', 'off', true)`.execute(trx);
  await trx.executeQuery(CompiledQuery.raw(BASELINE.definitions.replaceAll(BASELINE.schema, schema)));
  // As migrations 0006 and 0010: long values compressed with lz4 where the server has it.
  const { rows } = await sql<{ lz4: boolean }>`
    select coalesce(bool_or('lz4' = any(enumvals)), false) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(
    trx,
  );
  if (rows[0]?.lz4) await trx.executeQuery(CompiledQuery.raw(BASELINE.lz4.replaceAll(BASELINE.schema, schema)));
  await sql`select set_config('check_function_bodies', 'on', true)`.execute(trx);
}
