/**
 * The account foreign keys of the tables a pull writes a row to per record or per line (the mirror
 * tables, their lines, changes, events, payments) become one check per statement (issue 46): a
 * foreign key looks the account up and locks its row once per written row, about a fifth of what
 * writing those rows costs (bench/write-floor.mjs); a fill writes thousands of rows of one account
 * per statement.
 *
 * What the keys held still holds:
 * - every row written (insert, update, COPY) names an account that exists: after each statement,
 *   the accounts of the rows it wrote (a transition table) are locked FOR KEY SHARE, as the keys
 *   did, and one that is missing fails the statement (`foreign_key_violation`);
 * - an account whose rows are there cannot be deleted, nor its id changed, nor the table truncated
 *   (`foreign_key_violation`, naming the table that still holds its rows); the lock above makes a
 *   delete wait for a writer of the account's rows and then see them.
 * The smaller tables (jobs, runs, leases, cursors, …) keep their keys.
 *
 * The functions are security definers, as roles confined to an account write some of these tables
 * (their jobs' payments) and may not read every account; they name tables through the trigger's
 * schema. Statement triggers on a partitioned table (scripts/partition-by-account.mjs) see the rows
 * of every partition; a row written into a partition directly is not checked.
 *
 * A literal snapshot: it names tables and columns as they are at this migration.
 */
import { sql, type Kysely } from 'kysely';

const CHECKED = [
  'changes',
  'events',
  'document_lines',
  'payments',
  'clients',
  'products',
  'quotations',
  'saved_invoices',
  'repeating_invoices',
  'invoices',
  'countries',
];

const FUNCTIONS = [
  `
    create function account_rows_exist() returns trigger language plpgsql security definer
      set search_path = pg_catalog, pg_temp as $$
    declare
      missing integer;
    begin
      execute format('select from %I.accounts a where a.id in (select w.account_id from written w) for key share', tg_table_schema);
      execute format('select w.account_id from written w where not exists (select from %I.accounts a where a.id = w.account_id) limit 1',
                     tg_table_schema) into missing;
      if missing is not null then
        raise foreign_key_violation using
          message = format('insert or update on table "%s" names account %s, which does not exist', tg_table_name, missing),
          hint = 'add the account first (invoice-mirror accounts add)';
      end if;
      return null;
    end
    $$`,
  `
    create function account_rows_kept() returns trigger language plpgsql security definer
      set search_path = pg_catalog, pg_temp as $$
    declare
      checked text;
      held boolean;
    begin
      foreach checked in array tg_argv loop
        if tg_op = 'TRUNCATE' then
          execute format('select exists (select from %I.%I)', tg_table_schema, checked) into held;
          if held then
            raise foreign_key_violation using
              message = format('truncate on table "accounts" refused: table "%s" still holds rows of its accounts', checked),
              hint = 'an account''s mirror rows go with it only on purpose: delete them first';
          end if;
        elsif tg_op = 'DELETE' or old.id is distinct from new.id then
          execute format('select exists (select from %I.%I where account_id = $1)', tg_table_schema, checked) into held using old.id;
          if held then
            raise foreign_key_violation using
              message = format('%s on table "accounts" refused: table "%s" still holds rows of account %s', lower(tg_op), checked, old.id),
              hint = 'an account''s mirror rows go with it only on purpose: delete them first';
          end if;
        end if;
      end loop;
      if tg_op = 'DELETE' then
        return old;
      end if;
      return new;
    end
    $$`,
];

function checksOf(table: string): string[] {
  return [
    `alter table ${table} drop constraint ${table}_account_id_fkey`,
    `create trigger account_rows_inserted after insert on ${table} referencing new table as written
       for each statement execute function account_rows_exist()`,
    `create trigger account_rows_updated after update on ${table} referencing new table as written
       for each statement execute function account_rows_exist()`,
  ];
}

const GUARDS = [
  `create trigger account_rows_kept before delete or update of id on accounts for each row
     execute function account_rows_kept(${CHECKED.map((table) => `'${table}'`).join(', ')})`,
  `create trigger account_rows_kept_truncate before truncate on accounts for each statement
     execute function account_rows_kept(${CHECKED.map((table) => `'${table}'`).join(', ')})`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of [...FUNCTIONS, ...CHECKED.flatMap(checksOf), ...GUARDS]) await sql.raw(statement).execute(db);
}
