/**
 * `invoice-mirror sql QUERY [--account A …]`: one read-only statement against the mirror, on a
 * session whose role may not write files, read server files or run programs (sql-session.ts):
 * the mirror's own role where it is such a role, else the reporting role the mirror makes. With
 * `--account`, the query sees only those accounts' rows: on its connection, before it runs, every
 * table and view of the schema that has `account_id` (and `accounts`) is shadowed by a temporary
 * view of the same name holding only their rows (Postgres looks in `pg_temp` first for an
 * unqualified name). A convenience for one person's queries, not a boundary: a name qualified with
 * the schema reads past it (row-level security is the boundary, see docs/schema.md).
 */
import { resolveAccounts } from '../accounts/resolve.js';
import type { Command } from 'commander';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';
import { quoteLiteral } from '../db/quote.js';
import { RunError, UsageError, errorMessage } from '../errors.js';
import { isMonthColumn, MONEY_COLUMN_NAMES } from '../catalog/index.js';
import { OUTPUT_FORMATS, formatRows, readableRows, type OutputFormat } from '../format.js';
import { choice, collect, withApp } from './context.js';
import { openQuerySession } from './sql-session.js';

type Rows = { rows: Record<string, unknown>[] };

interface SqlOptions {
  format: OutputFormat;
  account: string[];
  raw?: boolean;
}

/** A query's money and months, by the names the catalogue gives them (see MONEY_COLUMN_NAMES). */
const SQL_READABLE = { money: (column: string) => MONEY_COLUMN_NAMES.has(column), month: isMonthColumn };

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
    .option(
      '--raw',
      'the table with the values exactly as stored (money unrounded, months as their first day, ISO times)',
    )
    .action(
      withApp({ readOnly: true }, async (app, query: string, options: SqlOptions) => {
        refuseSessionStatement(query);
        const { schema } = app.database;
        const { scope } = await resolveAccounts(app.database.db, options.account);
        const session = await openQuerySession(app);
        try {
          const { db } = session;
          let result: Rows;
          try {
            result =
              scope === 'all' ? await readOnly(db, query) : await readOnlyForAccounts(db, schema, scope.ids, query);
          } catch (error) {
            throw queryFailure(error);
          }
          // No rows, no keys to read the columns from: ask the server what the query returns (the
          // temporary views have the columns of what they shadow).
          const columns = result.rows[0] ? Object.keys(result.rows[0]) : await session.columnsOf(query);
          const shown =
            options.format === 'table' && !options.raw ? readableRows(result.rows, columns, SQL_READABLE) : result.rows;
          process.stdout.write(await formatRows(shown, options.format, columns));
        } finally {
          await session.close();
        }
      }),
    );
}

/**
 * Statements that act on the session rather than read: SET, RESET (RESET SESSION AUTHORIZATION,
 * SET ROLE …), DISCARD, LOAD. Refused before anything runs; sql hands out one query, not a session.
 */
function refuseSessionStatement(query: string): void {
  const keyword = leadingKeyword(query);
  if (['set', 'reset', 'discard', 'load'].includes(keyword)) {
    throw new UsageError(
      `sql: ${keyword.toUpperCase()} is refused: sql runs one query that reads, not statements that change its session`,
    );
  }
}

/** The statement's first word, past blanks, comments and opening parentheses; lower case. */
export function leadingKeyword(query: string): string {
  let rest = query;
  for (;;) {
    const trimmed = rest.replace(/^[\s(]+/, '');
    if (trimmed.startsWith('--')) {
      const end = trimmed.indexOf('\n');
      rest = end < 0 ? '' : trimmed.slice(end + 1);
    } else if (trimmed.startsWith('/*')) {
      rest = trimmed.slice(blockCommentEnd(trimmed));
    } else {
      return (/^[a-z_]+/i.exec(trimmed)?.[0] ?? '').toLowerCase();
    }
  }
}

/** Where a block comment at the start of `text` ends (they nest in SQL); the text's end if never. */
function blockCommentEnd(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const pair = text.slice(i, i + 2);
    if (pair === '/*') depth++;
    else if (pair === '*/') depth--;
    else continue;
    i++;
    if (depth === 0) return i + 1;
  }
  return text.length;
}

/** A failed query as one line; a few failures with a known remedy say it. */
function queryFailure(error: unknown): Error {
  const message = errorMessage(error);
  if (/multiple commands/.test(message)) {
    return new UsageError('sql: one statement only (the query held several, separated by ;)');
  }
  if (/permission denied to create temporary tables/.test(message)) {
    return new RunError(
      `query failed: ${message} (sql --account shadows the tables with temporary views: grant TEMPORARY on the database to the role sql runs as)`,
    );
  }
  return new RunError(`query failed: ${message}`);
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
