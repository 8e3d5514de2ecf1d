/**
 * Applies pending migrations in one transaction under an advisory lock, so two processes that
 * start together both succeed: the second waits, then finds nothing left to do.
 */
import { sql, type Kysely } from 'kysely';
import { migrations as allMigrations, type Migration } from '../../migrations/index.js';
import { lockKey } from './locks.js';

/** Returns the names of the migrations it applied (empty when the schema was up to date). */
export async function migrate(
  db: Kysely<any>,
  schema: string,
  migrations: Migration[] = allMigrations,
): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${lockKey(schema, 'migrate')})`.execute(trx);
    await sql`create schema if not exists ${sql.id(schema)}`.execute(trx);
    await sql`
      create table if not exists ${sql.id(schema, 'schema_migrations')} (
        name       text primary key,
        applied_at timestamptz not null default now()
      )`.execute(trx);
    const done = await sql<{ name: string }>`select name from ${sql.id(schema, 'schema_migrations')}`.execute(trx);
    const applied = new Set(done.rows.map((row) => row.name));
    const pending = migrations.filter((migration) => !applied.has(migration.name));
    for (const migration of pending) {
      await migration.up(trx);
      await sql`insert into ${sql.id(schema, 'schema_migrations')} (name) values (${migration.name})`.execute(trx);
    }
    return pending.map((migration) => migration.name);
  });
}

/**
 * Whether the schema is ready for this version without migrating: commands that do not migrate
 * (and every command when AUTO_MIGRATE is off) check it first and say what to do, instead of
 * failing later on a missing table. Reads only, so a role with SELECT grants can run it.
 */
export async function schemaProblem(
  db: Kysely<any>,
  schema: string,
  migrations: Migration[] = allMigrations,
): Promise<string | undefined> {
  const { rows } = await sql<{ table: string | null }>`
    select to_regclass(format('%I.schema_migrations', ${schema}::text))::text as table`.execute(db);
  if (!rows[0]?.table) return `the mirror schema '${schema}' does not exist yet`;
  const done = await sql<{ name: string }>`select name from ${sql.id(schema, 'schema_migrations')}`.execute(db);
  const applied = new Set(done.rows.map((row) => row.name));
  const pending = migrations.filter((migration) => !applied.has(migration.name)).map((m) => m.name);
  if (pending.length === 0) return undefined;
  return `the mirror schema '${schema}' is older than this version of invoice-mirror (${pending.length} migration${pending.length === 1 ? '' : 's'} pending: ${pending.join(', ')})`;
}
