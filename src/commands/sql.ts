/**
 * `invoice-mirror sql QUERY [--account A …]`: one read-only statement against the mirror. With
 * `--account`, the query sees only those accounts' rows: on its connection, before it runs, every
 * table and view of the schema that has `account_id` (and `accounts`) is shadowed by a temporary
 * view of the same name holding only their rows (Postgres looks in `pg_temp` first for an
 * unqualified name). A convenience for one person's queries, not a boundary: a name qualified with
 * the schema reads past it (row-level security is the boundary, see docs/schema.md).
 */
import type { Command } from 'commander';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';
import { quoteLiteral } from '../db/quote.js';
import { RunError, UsageError, errorMessage } from '../errors.js';
import { OUTPUT_FORMATS, formatRows, type OutputFormat } from '../format.js';
import { accountScope } from '../reports/index.js';
import { choice, collect, withApp } from './context.js';

type Rows = { rows: Record<string, unknown>[] };

interface SqlOptions {
  format: OutputFormat;
  account: string[];
}

export function registerSqlCommand(command: Command): void {
  command
    .argument('<query>', 'the SQL query, e.g. "select * from clients limit 5"')
    .option(
      '--format <format>',
      `output format: ${OUTPUT_FORMATS.join(', ')}`,
      choice('--format', OUTPUT_FORMATS),
      'table',
    )
    .option(
      '--account <name>',
      "the query sees only this account's rows (repeat for more; default: every account)",
      collect,
      [],
    )
    .action(
      withApp({ readOnly: true }, async (app, query: string, options: SqlOptions) => {
        const { db, schema } = app.database;
        const scope = await accountScope(db, options.account);
        let result: Rows;
        try {
          result =
            scope === 'all' ? await readOnly(db, query) : await readOnlyForAccounts(db, schema, scope.ids, query);
        } catch (error) {
          if (/multiple commands/.test(errorMessage(error))) {
            throw new UsageError('sql: one statement only (the query held several, separated by ;)');
          }
          throw new RunError(`query failed: ${errorMessage(error)}`);
        }
        // No rows, no keys to read the columns from: ask the server what the query returns (the
        // temporary views have the columns of what they shadow).
        const columns = result.rows[0] ? Object.keys(result.rows[0]) : await app.database.columnsOf(query);
        process.stdout.write(await formatRows(result.rows, options.format, columns));
      }),
    );
}

/** A read-only transaction on a read-only session (see openApp): nothing can change the mirror. */
function readOnly(db: Kysely<Database>, query: string): Promise<Rows> {
  return db
    .transaction()
    .setAccessMode('read only')
    .execute((trx) => sql.raw<Record<string, unknown>>(query).execute(trx));
}

/**
 * The temporary views are made in a transaction that may write (the session is read-only, so it
 * says so), which then turns read-only (allowed at any point) for the query, and is rolled back:
 * the views go with it, and the pooled connection is left as it was.
 */
async function readOnlyForAccounts(
  db: Kysely<Database>,
  schema: string,
  ids: readonly number[],
  query: string,
): Promise<Rows> {
  return db.connection().execute(async (connection) => {
    await sql`start transaction read write`.execute(connection);
    try {
      await sql.raw(shadowingViews(schema, ids)).execute(connection);
      await sql`set transaction read only`.execute(connection);
      return await sql.raw<Record<string, unknown>>(query).execute(connection);
    } finally {
      await sql`rollback`.execute(connection);
    }
  });
}

/** One statement making a temporary view for every relation of the schema with `account_id`, and `accounts`. */
function shadowingViews(schema: string, ids: readonly number[]): string {
  const list = quoteLiteral(`{${ids.map((id) => Math.trunc(Number(id))).join(',')}}`);
  return `
    do $shadow$
    declare
      r record;
    begin
      for r in
        select c.relname,
               case when c.relname = 'accounts' then 'id' else 'account_id' end as key
          from pg_class c
         where c.relnamespace = (select oid from pg_namespace where nspname = ${quoteLiteral(schema)})
           and c.relkind in ('r', 'p', 'v', 'm')
           and (c.relname = 'accounts'
                or exists (select from pg_attribute a
                            where a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped))
      loop
        execute format('create temporary view %I as select * from %I.%I where %I = any (%L::integer[])',
                       r.relname, ${quoteLiteral(schema)}, r.relname, r.key, ${list});
      end loop;
    end
    $shadow$`;
}
