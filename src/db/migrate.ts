/**
 * Applies pending migrations (to an empty schema, their baseline in one step, repeatables
 * included: src/db/baseline.ts), then the repeatable step (src/db/repeatable.ts) where the catalogue
 * changed, in one transaction under a lock, so two processes that start together both succeed:
 * the second waits, then finds nothing left to do.
 *
 * The lock is `schema_migrations` locked in EXCLUSIVE mode, which no role that may only read it
 * can hold off (reading takes ACCESS SHARE, which does not conflict; stronger modes need UPDATE),
 * where an advisory lock's key anyone could compute and hold, freezing every command that
 * migrates at its start. Only for a schema not made yet, with no table to lock, is it an advisory
 * lock first.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { migrations as allMigrations, type Migration } from '../../migrations/index.js';
import { applyBaseline, baselineCovers } from './baseline.js';
import { withDefinitionBatch } from './definition-batch.js';
import { REPEATABLES, staleRepeatables, type Repeatable } from './repeatable.js';

/** What to apply; tests pass their own lists. */
export interface MigrationPlan {
  migrations?: readonly Migration[];
  repeatables?: readonly Repeatable[];
  /** Whether an empty schema is built from the baseline (src/db/baseline.ts); by default where the migrations and repeatables are this version's. */
  baseline?: boolean;
}

/** Returns the names of the migrations and repeatables it applied, the baseline's among them (empty when the schema was up to date). */
export async function migrate(db: Kysely<any>, schema: string, plan: MigrationPlan = {}): Promise<string[]> {
  const {
    migrations = allMigrations,
    repeatables = REPEATABLES,
    baseline = plan.migrations === undefined && plan.repeatables === undefined,
  } = plan;
  return db.transaction().execute(async (trx) => {
    await lockMigrations(trx, schema);
    const pending = await pendingMigrations(trx, schema, migrations);
    const built = baseline && pending.length === migrations.length ? baselineCovers(migrations) : [];
    const made = new Set<string>();
    if (built.length > 0) for (const name of await applyBaseline(trx, schema)) made.add(name);
    for (const migration of pending.slice(built.length)) {
      await withDefinitionBatch(trx, (db) => migration.up(db));
      await sql`insert into ${sql.id(schema, 'schema_migrations')} (name) values (${migration.name})`.execute(trx);
    }
    const stale = await staleRepeatables(trx, schema, repeatables);
    for (const repeatable of stale) {
      made.add(repeatable.name);
      await repeatable.apply(trx);
      await sql`
        insert into ${sql.id(schema, 'schema_repeatables')} (name, hash) values (${repeatable.name}, ${repeatable.hash})
        on conflict (name) do update set hash = excluded.hash, applied_at = now()`.execute(trx);
    }
    return [
      ...pending.map((migration) => migration.name),
      ...repeatables.filter((repeatable) => made.has(repeatable.name)).map((repeatable) => repeatable.name),
    ];
  });
}

/**
 * Takes the migrations' lock, making the schema and its two bookkeeping tables first where they
 * are missing (under an advisory lock, as two processes may make them at once).
 */
async function lockMigrations(trx: Transaction<any>, schema: string): Promise<void> {
  const migrations = sql.id(schema, 'schema_migrations');
  const { rows } = await sql<{ found: boolean }>`
    select to_regclass(format('%I.schema_migrations', ${schema}::text)) is not null
       and to_regclass(format('%I.schema_repeatables', ${schema}::text)) is not null as found`.execute(trx);
  if (!rows[0]?.found) {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`invoice-mirror:${schema}:migrate`}, 0))`.execute(trx);
    await sql`create schema if not exists ${sql.id(schema)}`.execute(trx);
    await sql`
      create table if not exists ${migrations} (
        name       text primary key,
        applied_at timestamptz not null default now()
      )`.execute(trx);
    await sql`
      create table if not exists ${sql.id(schema, 'schema_repeatables')} (
        name       text primary key,
        hash       text not null,
        applied_at timestamptz not null default now()
      )`.execute(trx);
  }
  await sql`lock table ${migrations} in exclusive mode`.execute(trx);
}

async function pendingMigrations(db: Kysely<any>, schema: string, migrations: readonly Migration[]) {
  const done = await sql<{ name: string }>`select name from ${sql.id(schema, 'schema_migrations')}`.execute(db);
  const applied = new Set(done.rows.map((row) => row.name));
  return migrations.filter((migration) => !applied.has(migration.name));
}

/**
 * Whether the schema is ready for this version without migrating: commands that do not migrate
 * (and every command when AUTO_MIGRATE is off) check it first and say what to do, instead of
 * failing later on a missing table. Reads only, so a role with SELECT grants can run it. Report
 * views older than the catalogue are no reason to stop: they still answer, and the next command
 * that migrates brings them up to date.
 */
export async function schemaProblem(
  db: Kysely<any>,
  schema: string,
  migrations: readonly Migration[] = allMigrations,
): Promise<string | undefined> {
  const { rows } = await sql<{ table: string | null }>`
    select to_regclass(format('%I.schema_migrations', ${schema}::text))::text as table`.execute(db);
  if (!rows[0]?.table) return `the mirror schema '${schema}' does not exist yet`;
  const pending = (await pendingMigrations(db, schema, migrations)).map((migration) => migration.name);
  if (pending.length === 0) return undefined;
  return `the mirror schema '${schema}' is older than this version of invoice-mirror (${pending.length} migration${pending.length === 1 ? '' : 's'} pending: ${pending.join(', ')})`;
}
