/**
 * The big tables' account foreign keys are checks per statement (migration 0023): what the keys
 * held still holds. A row of an account that does not exist is refused however it is written; an
 * account whose rows are there cannot be deleted, renumbered or truncated away, also while a
 * writer of its rows has not committed yet; and every table with an account column has a key or
 * the checks.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedDbParent, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
let sql: postgres.Sql;
let account: number;

beforeAll(async () => {
  sql = postgres(database.current.url, {
    max: 3,
    onnotice: () => undefined,
    connection: { search_path: database.current.schema },
  });
  [{ id: account }] = await sql<{ id: number }[]>`insert into accounts (name) values ('checked') returning id`;
});

afterAll(async () => {
  await sql?.end();
});

/** The error of a statement that must fail, with what the table holds afterwards unchanged. */
async function refusal(statement: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await statement().then(
    () => undefined,
    (caught: postgres.PostgresError) => caught,
  );
  expect(error, 'the statement was refused').toBeDefined();
  return { code: error!.code, message: error!.message };
}

const client = (accountId: number, nr: number) => sql`
  insert into clients (account_id, clientnr, raw, raw_hash) values (${accountId}, ${nr}, '{}', ${`h${nr}`})`;

describe('rows of an account that does not exist', () => {
  it('are refused by insert, update and COPY, in the mirror tables, the lines and the changes; nothing is written', async () => {
    const missing = account + 1000;
    expect(await refusal(() => client(missing, 1))).toEqual({
      code: '23503',
      message: `insert or update on table "clients" names account ${missing}, which does not exist`,
    });
    const changes = () => sql`
      insert into changes (account_id, entity, entity_id, op) values (${missing}, 'clients', '1', 'insert')`;
    const lines = () => sql`
      insert into document_lines (account_id, document_type, document_id, position) values (${missing}, 'invoice', 1, 0)`;
    const moved = () => sql`update clients set account_id = ${missing} where account_id = ${account}`;
    expect((await refusal(changes)).code).toBe('23503');
    expect((await refusal(lines)).code).toBe('23503');
    await client(account, 1);
    expect((await refusal(moved)).code).toBe('23503');
    // COPY from a file the server reads (postgres.js's COPY stream hides the server's refusal).
    const copy = async (rows: string) => {
      const file = join(embeddedDbParent('im-copy-'), 'rows.tsv');
      writeFileSync(file, rows, { mode: 0o644 });
      return sql.unsafe(`copy clients (account_id, clientnr, raw, raw_hash) from '${file}'`);
    };
    expect((await refusal(() => copy(`${account}\t2\t{}\th2\n${missing}\t3\t{}\th3\n`))).code).toBe('23503');
    const held = await sql`select account_id, clientnr from clients order by clientnr`;
    expect(held.map((row) => ({ ...row }))).toEqual([{ account_id: account, clientnr: 1 }]);
  });
});

describe('an account whose rows are there', () => {
  it('cannot be deleted, renumbered or truncated away; its name can change', async () => {
    expect(await refusal(() => sql`delete from accounts where id = ${account}`)).toEqual({
      code: '23503',
      message: `delete on table "accounts" refused: table "clients" still holds rows of account ${account}`,
    });
    expect((await refusal(() => sql`update accounts set id = ${account + 500} where id = ${account}`)).code).toBe(
      '23503',
    );
    expect((await refusal(() => sql`truncate accounts cascade`)).code).toBe('23503');
    await sql`update accounts set name = 'checked-again' where id = ${account}`;
    expect(await sql`select count(*)::int as n from clients where account_id = ${account}`).toEqual([{ n: 1 }]);
  });

  it('is not deleted under a writer of its rows that has not committed: the delete waits, then is refused', async () => {
    const [{ id: other }] = await sql<{ id: number }[]>`insert into accounts (name) values ('racing') returning id`;
    const writer = await sql.reserve();
    try {
      await writer`begin`;
      await writer`insert into clients (account_id, clientnr, raw, raw_hash) values (${other}, 7, '{}', 'h7')`;
      let settled = false;
      const deletion = refusal(() => sql`delete from accounts where id = ${other}`).finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled, 'the delete waits for the writer').toBe(false);
      await writer`commit`;
      expect((await deletion).message).toBe(
        `delete on table "accounts" refused: table "clients" still holds rows of account ${other}`,
      );
    } finally {
      writer.release();
    }
    expect(await sql`select count(*)::int as n from accounts where id = ${other}`).toEqual([{ n: 1 }]);
  });

  it('with no rows in the checked tables, can be deleted', async () => {
    const [{ id: empty }] = await sql<{ id: number }[]>`insert into accounts (name) values ('empty') returning id`;
    await sql`delete from accounts where id = ${empty}`;
    expect(await sql`select count(*)::int as n from accounts where id = ${empty}`).toEqual([{ n: 0 }]);
  });
});

it('every table with an account column has a foreign key to accounts or the account checks', async () => {
  const unguarded = await sql`
    select c.relname as table from pg_class c join pg_attribute a on a.attrelid = c.oid and a.attname = 'account_id'
     where c.relnamespace = ${database.current.schema}::regnamespace and c.relkind in ('r', 'p') and c.relname <> 'accounts'
       and not exists (select from pg_constraint k where k.conrelid = c.oid and k.contype = 'f'
                          and k.confrelid = ${`${database.current.schema}.accounts`}::regclass)
       and (select count(*) from pg_trigger t where t.tgrelid = c.oid
             and t.tgname in ('account_rows_inserted', 'account_rows_updated')) <> 2`;
  expect(unguarded).toEqual([]);
  const checked = await sql`
    select count(distinct t.tgrelid)::int as n from pg_trigger t join pg_class c on c.oid = t.tgrelid
     where c.relnamespace = ${database.current.schema}::regnamespace and t.tgname = 'account_rows_inserted'`;
  expect(checked).toEqual([{ n: 11 }]);
});
