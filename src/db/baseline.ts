/**
 * An empty schema's migrations and repeatable step in one step. A first start replayed every
 * migration, about 240 statements that create tables and then alter, rekey and rebuild them, and
 * then the repeatable step (the report views, comments, triggers and policies made from the
 * catalogue): 0.45–0.75 s of PostgreSQL's work on a 2-core VM before the first request of a first
 * backfill (and at every test's fresh schema). The schema they leave, dumped by pg_dump
 * (scripts/baseline.mjs writes baseline-schema.ts), is built in 0.15–0.25 s: each object is made
 * once, as it ends up.
 *
 * `migrate` runs it where no migration has been applied yet and records the migrations and
 * repeatables it stands for; the migrations after it, and a repeatable whose hash has changed
 * since, apply as always. The migrations and the catalogue stay what the schema is made of (an
 * existing schema is upgraded by them); the baseline is a copy, and
 * test/foundation/baseline.test.ts checks that it equals them replayed and is current.
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
 * rather than as they are made (they may name what is made after them); and records the
 * migrations it stands for and what the repeatables it holds were made from. Returns the
 * repeatables' names.
 */
export async function applyBaseline(trx: Transaction<any>, schema: string): Promise<string[]> {
  const { rows: settings } = await sql<{ was: string }>`
    select current_setting('check_function_bodies') as was, set_config('check_function_bodies', 'off', true)`.execute(
    trx,
  );
  await trx.executeQuery(CompiledQuery.raw(BASELINE.definitions.replaceAll(BASELINE.schema, schema)));
  // As migrations 0006 and 0010: long values compressed with lz4 where the server has it.
  const { rows } = await sql<{ lz4: boolean }>`
    select coalesce(bool_or('lz4' = any(enumvals)), false) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(
    trx,
  );
  if (rows[0]?.lz4) await trx.executeQuery(CompiledQuery.raw(BASELINE.lz4.replaceAll(BASELINE.schema, schema)));
  await sql`select set_config('check_function_bodies', ${settings[0]?.was ?? 'on'}, true)`.execute(trx);
  await sql`insert into ${sql.id(schema, 'schema_migrations')} (name) select unnest(${[...BASELINE.migrations]}::text[])`.execute(
    trx,
  );
  const made = Object.entries(BASELINE.repeatables);
  await sql`
    insert into ${sql.id(schema, 'schema_repeatables')} (name, hash)
    select * from unnest(${made.map(([name]) => name)}::text[], ${made.map(([, hash]) => hash)}::text[])`.execute(trx);
  return made.map(([name]) => name);
}
