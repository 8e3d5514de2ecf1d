/**
 * A migration's definitions go to the server in batches (src/db/definition-batch.ts): held until
 * the next statement that is not one, then sent as one text; in order, in the migration's
 * transaction, a held definition's error failing the migration; drops and statements with
 * parameters go at once, so a migration can still catch a drop's refusal.
 */
import { Kysely, sql } from 'kysely';
import { PostgresJSDialect } from 'kysely-postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDefinitionBatch } from '../../src/db/definition-batch.js';
import { databaseUrl, dropSchema, uniqueSchema } from '../support/test-database.js';

const schema = uniqueSchema('batch');
let pool: postgres.Sql;
let db: Kysely<any>;
/** Every text the server was sent, in order. */
const sent: string[] = [];

beforeAll(async () => {
  pool = postgres(databaseUrl(), { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
  await pool.unsafe(`create schema ${schema}`);
  db = new Kysely<any>({
    dialect: new PostgresJSDialect({ postgres: pool }),
    log: (event) => {
      sent.push(event.query.sql);
    },
  });
});

afterAll(async () => {
  await db?.destroy();
  await dropSchema(databaseUrl(), schema);
});

const tablesNamed = async (prefix: string) =>
  (
    await pool<{ relname: string }[]>`
      select relname from pg_class where relnamespace = ${schema}::regnamespace and relname like ${`${prefix}%`} order by relname`
  ).map((row) => row.relname);

describe('a migration’s definitions', () => {
  it('are held until the next other statement, then sent together, in order', async () => {
    sent.length = 0;
    const seen = await db.transaction().execute((trx) =>
      withDefinitionBatch(trx, async (migration) => {
        await sql`create table kept_a (id int primary key)`.execute(migration);
        await sql`comment on table kept_a is 'first'`.execute(migration);
        await sql`alter table kept_a add column name text`.execute(migration);
        expect(
          sent.filter((text) => text.includes('kept_a')),
          'nothing sent yet',
        ).toEqual([]);
        const { rows } = await sql<{ columns: number }>`
          select count(*)::int as columns from pg_attribute
           where attrelid = ${`${schema}.kept_a`}::regclass and attnum > 0`.execute(migration);
        await sql`create table kept_b (id int references kept_a)`.execute(migration);
        return rows[0]!.columns;
      }),
    );
    expect(seen, 'the select ran after the three definitions').toBe(2);
    const statements = sent.filter((text) => text !== 'begin' && text !== 'commit');
    expect(statements).toHaveLength(3);
    expect(statements[0]).toBe(
      "create table kept_a (id int primary key)\n;\ncomment on table kept_a is 'first'\n;\nalter table kept_a add column name text",
    );
    expect(statements[1]).toMatch(/^\s*select count\(\*\)::int as columns/);
    expect(statements[2], 'the last batch is sent when the migration ends').toBe(
      'create table kept_b (id int references kept_a)',
    );
    expect(await tablesNamed('kept_')).toEqual(['kept_a', 'kept_a_pkey', 'kept_b']);
  });

  it('fail the migration, with the server’s error, when one is refused: nothing of it stays', async () => {
    const attempt = db.transaction().execute((trx) =>
      withDefinitionBatch(trx, async (migration) => {
        await sql`create table refused_a (id int)`.execute(migration);
        await sql`create table refused_a (id int)`.execute(migration);
        await sql`create table refused_b (id int)`.execute(migration);
      }),
    );
    await expect(attempt).rejects.toThrow('relation "refused_a" already exists');
    expect(await tablesNamed('refused_')).toEqual([]);
  });

  it('leave drops and statements with parameters unbatched: a drop’s refusal is caught where it is made', async () => {
    await pool.unsafe('create table dropped (id int); create view dropped_view as select id from dropped');
    sent.length = 0;
    const caught = await db.transaction().execute((trx) =>
      withDefinitionBatch(trx, async (migration) => {
        await sql`comment on table dropped is 'kept'`.execute(migration);
        await sql`insert into dropped (id) values (${1})`.execute(migration);
        await sql.raw('savepoint before_drop').execute(migration);
        try {
          await sql.raw('drop table dropped').execute(migration);
          return 'not refused';
        } catch (error) {
          await sql.raw('rollback to savepoint before_drop').execute(migration);
          return (error as Error).message;
        }
      }),
    );
    expect(caught).toMatch(/cannot drop table dropped because other objects depend on it/);
    expect(sent.filter((text) => text !== 'begin').slice(0, 4)).toEqual([
      "comment on table dropped is 'kept'",
      'insert into dropped (id) values ($1)',
      'savepoint before_drop',
      'drop table dropped',
    ]);
    expect((await pool`select id from dropped`).map((row) => row.id)).toEqual([1]);
  });
});
