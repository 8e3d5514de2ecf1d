/**
 * The account check after each statement (0023's `account_rows_exist`) reads the rows written
 * once instead of twice, and looks each account up once instead of once per row: it gathers the
 * accounts the rows name (one scan of the transition table, planned once per trigger), locks
 * those that exist FOR KEY SHARE and fails the statement where one is missing, as before. It ran
 * two statements planned at every call, the second probing `accounts` for every row written: a
 * fill writes 500 to 1,000 rows of one account per statement (issue 46).
 *
 * A literal snapshot: it names tables and columns as they are at this migration.
 */
import { sql, type Kysely } from 'kysely';

const FUNCTION = `
  create or replace function account_rows_exist() returns trigger language plpgsql security definer
    set search_path = pg_catalog, pg_temp as $$
  declare
    named integer[];
    found integer[];
    missing integer;
  begin
    select array_agg(distinct w.account_id) into named from written w;
    execute format('select array_agg(a.id) from (select a.id from %I.accounts a where a.id = any($1) for key share) a',
                   tg_table_schema) into found using named;
    select n into missing from unnest(named) n where n <> all(coalesce(found, '{}')) limit 1;
    if missing is not null then
      raise foreign_key_violation using
        message = format('insert or update on table "%s" names account %s, which does not exist', tg_table_name, missing),
        hint = 'add the account first (invoice-mirror accounts add)';
    end if;
    return null;
  end
  $$`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(FUNCTION).execute(db);
}
