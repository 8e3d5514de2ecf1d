/**
 * The repeatable step after the versioned migrations: what the catalogue describes that can be
 * re-created in place at any time (the report views and their helper functions, and the meaning of
 * every column as a `comment on`). It is applied in the migration transaction whenever its
 * content hash differs from the one recorded in `schema_repeatables`, so changing a report is an
 * edit of the catalogue, not a new migration.
 *
 * A view is replaced with `create or replace view`, which keeps the views other people built on
 * ours, and works while a view's columns are only appended to. A view whose columns changed
 * otherwise is dropped and created again; if that would take a view that is not ours with it, the
 * step stops and says which views stand in the way.
 *
 * Row-level security is a step of its own, generated over the tables the schema holds when it runs
 * (every table with `account_id`), and applied again whenever a migration is added, so a table a
 * later migration makes is covered without code here.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import {
  ACCOUNT_COLUMN,
  BOOKKEEPING_COLUMNS,
  countryIso2Functions,
  derivedColumns,
  ENTITIES,
  JOB_KIND_NAMES,
  entityColumns,
  LINE_COLUMNS,
  REPORT_FUNCTIONS,
  REPORTS,
  type Report,
} from '../catalog/index.js';
import { migrations } from '../../migrations/index.js';
import { EVENT_TRIGGER_STATEMENTS } from './event-triggers.js';
import { RunError } from '../errors.js';
import { quoteLiteral, quoteName } from './quote.js';

export interface Repeatable {
  readonly name: string;
  /** Changes whenever what `apply` does changes. */
  readonly hash: string;
  apply(trx: Transaction<any>): Promise<void>;
}

const hashOf = (parts: readonly string[]): string => createHash('sha256').update(parts.join('\0')).digest('hex');

/**
 * Runs statements that take no parameters and return nothing in one round trip (a `do` block
 * that executes each), not one each: a fresh schema gets about 450 comments, which one by one
 * cost about 0.1 s of the first start.
 */
async function executeAll(trx: Transaction<any>, statements: readonly string[]): Promise<void> {
  if (statements.length === 0) return;
  const body = statements.map((statement) => `execute ${quoteLiteral(statement)};`).join('\n');
  await sql.raw(`do $statements$ begin\n${body}\nend $statements$`).execute(trx);
}

const commentOnColumn = (relation: string, column: string, meaning: string): string =>
  `comment on column ${relation}.${quoteName(column)} is ${quoteLiteral(meaning)}`;

/** The meaning of every column of the mirror tables and `document_lines`. */
export function columnComments(): string[] {
  const out: string[] = [];
  for (const entity of ENTITIES) {
    for (const column of [
      ...entityColumns(entity.name),
      ...BOOKKEEPING_COLUMNS,
      ACCOUNT_COLUMN,
      ...derivedColumns(entity.name),
    ]) {
      out.push(commentOnColumn(entity.name, column.name, column.doc));
    }
  }
  for (const column of [...LINE_COLUMNS, ACCOUNT_COLUMN])
    out.push(commentOnColumn('document_lines', column.name, column.doc));
  return out;
}

function reportStatements(report: Report): { view: string; comments: string[] } {
  return {
    // security_invoker: the view reads with the querying role's rights, so row-level security
    // confines a role through the views as in the tables (PostgreSQL 15 and later).
    view: `create or replace view ${report.name} with (security_invoker = true) as ${report.select.trim()}`,
    comments: [
      `comment on view ${report.name} is ${quoteLiteral(report.comment)}`,
      ...Object.entries(report.columns).map(([column, meaning]) => commentOnColumn(report.name, column, meaning)),
    ],
  };
}

/** Views (not ours) that depend on the view, directly or through other views. */
async function dependentViews(trx: Transaction<any>, view: string, ours: ReadonlySet<string>): Promise<string[]> {
  const { rows } = await sql<{ name: string; schema: string }>`
    with recursive dependents(oid) as (
      select distinct r.ev_class
        from pg_depend d join pg_rewrite r on r.oid = d.objid
       where d.refobjid = to_regclass(${view}) and r.ev_class <> d.refobjid
      union
      select distinct r.ev_class
        from dependents p join pg_depend d on d.refobjid = p.oid join pg_rewrite r on r.oid = d.objid
       where r.ev_class <> p.oid
    )
    select c.relname as name, n.nspname as schema
      from dependents p join pg_class c on c.oid = p.oid join pg_namespace n on n.oid = c.relnamespace`.execute(trx);
  return rows.filter((row) => !ours.has(row.name)).map((row) => `${row.schema}.${row.name}`);
}

/** SQLSTATE of `create or replace view` refused: the name, type or number of its columns changed. */
const VIEW_COLUMNS_CHANGED = '42P16';

/**
 * Runs view statements under a savepoint, in one round trip: true when Postgres replaced the views
 * in place; false, with nothing changed, where one view's columns changed otherwise (any other
 * error is thrown). All the report views at once (a fresh schema, views unchanged or with columns
 * appended) spare 26 savepoints and round trips, about 0.1 s of a first start; one view at a time
 * is the way where that fails (replaceView).
 */
async function replacedInPlace(trx: Transaction<any>, statements: readonly string[]): Promise<boolean> {
  await sql`savepoint replace_views`.execute(trx);
  try {
    await executeAll(trx, statements);
    await sql`release savepoint replace_views`.execute(trx);
    return true;
  } catch (error) {
    await sql`rollback to savepoint replace_views`.execute(trx);
    // 42809 (not a view) and the rest are not for a drop and create to mend.
    if ((error as { code?: string }).code === VIEW_COLUMNS_CHANGED) return false;
    throw error;
  }
}

/** `create or replace`; where Postgres refuses (a column renamed, retyped or removed), drop and create. */
async function replaceView(trx: Transaction<any>, name: string, create: string, ours: ReadonlySet<string>) {
  if (await replacedInPlace(trx, [create])) return;
  const blocking = await dependentViews(trx, name, ours);
  if (blocking.length > 0) {
    throw new RunError(
      `report view ${name} changed its columns and ${blocking.join(', ')} ${blocking.length === 1 ? 'depends' : 'depend'} on it: ` +
        'save their definitions, drop them, run migrate again, then create them again',
    );
  }
  // Only our own views depend on it; they come later in the list and are created again below.
  await sql.raw(`drop view ${name} cascade`).execute(trx);
  await sql.raw(create).execute(trx);
}

/** The report views of a list (the catalogue's; tests pass changed ones). */
export function reportViewsOf(reports: readonly Report[]): Repeatable {
  const statements = reports.map(reportStatements);
  const ours = new Set(reports.map((report) => report.name));
  return {
    name: 'report_views',
    hash: hashOf([...REPORT_FUNCTIONS, ...statements.flatMap((s) => [s.view, ...s.comments])]),
    async apply(trx) {
      await executeAll(trx, REPORT_FUNCTIONS);
      if (
        await replacedInPlace(
          trx,
          statements.flatMap(({ view, comments }) => [view, ...comments]),
        )
      )
        return;
      for (const [i, report] of reports.entries()) {
        const { view, comments } = statements[i]!;
        await replaceView(trx, report.name, view, ours);
        await executeAll(trx, comments);
      }
    },
  };
}

export const mirrorComments: Repeatable = (() => {
  const statements = columnComments();
  return {
    name: 'column_comments',
    hash: hashOf(statements),
    async apply(trx) {
      await executeAll(trx, statements);
    },
  };
})();

/**
 * `countries.iso2` from the Dutch name: the mapping as a function (src/catalog/country-codes.ts),
 * which the mirror's writes call for each row they write (the column's `computed`, see merge.ts);
 * triggers that set the code of rows written otherwise (a restore, a test's loader); and the
 * stored rows mapped again, as the mapping may have changed (only the rows whose code changes are
 * written).
 */
export const countryCodes: Repeatable = (() => {
  // The code of a row from its own columns, as the mirror's writes compute it (its `computed`).
  const code = derivedColumns('countries').find((column) => column.name === 'iso2')!.computed!;
  const update = `update countries c set iso2 = w.iso2 from (select account_id, id, ${code} as iso2 from written) w
     where c.account_id = w.account_id and c.id = w.id and c.iso2 is distinct from w.iso2`;
  const statements = [
    ...countryIso2Functions(),
    // After the statement, not before each row: a BEFORE ROW trigger would keep the table from
    // being partitioned by account (scripts/partition-by-account.mjs). It reads the rows written
    // alone, and updates only where a code is wrong, which the mirror's own writes never leave:
    // its update used to run for every write, as a plan PL/pgSQL keeps for the session; made at
    // the first write, to an empty table, that plan read every account's countries at each write
    // after (a daemon filling 1,000 accounts: 0.7 s a write after 200 accounts, 3.2 s after 700).
    // EXECUTE plans the update for the table as it is. The update fires the update trigger once
    // more, which does nothing at that depth.
    `
    create or replace function countries_set_iso2() returns trigger language plpgsql as $$
    begin
      if pg_trigger_depth() > 1 or not exists (select from written where iso2 is distinct from ${code}) then
        return null;
      end if;
      execute ${quoteLiteral(update)};
      return null;
    end
    $$`,
    'drop trigger if exists countries_iso2 on countries',
    'drop trigger if exists countries_iso2_insert on countries',
    'drop trigger if exists countries_iso2_update on countries',
    'create trigger countries_iso2_insert after insert on countries referencing new table as written for each statement execute function countries_set_iso2()',
    'create trigger countries_iso2_update after update on countries referencing new table as written for each statement execute function countries_set_iso2()',
    `update countries set iso2 = ${code} where iso2 is distinct from ${code}`,
  ];
  return {
    name: 'country_codes',
    hash: hashOf(statements),
    async apply(trx) {
      await executeAll(trx, statements);
    },
  };
})();

/**
 * `jobs.kind` holds a known kind: checked at INSERT, so a kind misspelled in SQL is refused at once
 * (naming the constraint) instead of failing when the job runs. NOT VALID: rows queued before are
 * left as they are (they fail when run, saying the kind is unknown).
 */
export const jobKindCheck: Repeatable = (() => {
  const statements = [
    'alter table jobs drop constraint if exists jobs_kind_known',
    `alter table jobs add constraint jobs_kind_known check (kind in (${JOB_KIND_NAMES.map(quoteLiteral).join(', ')})) not valid`,
    `comment on constraint jobs_kind_known on jobs is ${quoteLiteral(`kind must be one of: ${JOB_KIND_NAMES.join(', ')}`)}`,
  ];
  return {
    name: 'job_kinds',
    hash: hashOf(statements),
    async apply(trx) {
      await executeAll(trx, statements);
    },
  };
})();

/**
 * Whether a role may see or write a row of this account: one of its own when it is confined, any
 * when it is not (`visible_accounts`). The sub-select runs once a query, and `= any` of an array
 * lets the plan use the indexes, which all lead with `account_id`.
 */
const visible = (column: string): string => `${column} = any ((select visible_accounts(current_user))::integer[])`;

/**
 * Row-level security on every table with `account_id` (found when the step runs), and on
 * `accounts` by its id. Not forced: the tables' owner (the mirror's own process) is not subject to
 * the policies and pays nothing for them; neither does a superuser.
 */
const ENABLE_POLICIES = `
  do $policies$
  declare
    t regclass;
  begin
    for t in
      select c.oid::regclass from pg_class c
        join pg_attribute a on a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped
       where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
       order by c.relname
    loop
      execute format('alter table %s enable row level security', t);
      execute format('drop policy if exists account_rows on %s', t);
      execute format('create policy account_rows on %s using (%s) with check (%s)', t,
                     ${quoteLiteral(visible('account_id'))}, ${quoteLiteral(visible('account_id'))});
      execute format('comment on policy account_rows on %s is %L', t,
                     'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined');
    end loop;
  end
  $policies$`;

/**
 * `grant_account(account, role)`: what a confined role needs (the schema, reading every table
 * and view, queuing jobs) and its row in account_roles. It finds the schema from `accounts`
 * bound when created (a SQL-standard body), so it works from any search_path.
 */
const GRANT_FUNCTIONS = [
  `
    create or replace function account_grant(accounts_table regclass, account text, grantee text) returns text
    language plpgsql as $$
    declare
      mirror text := (select relnamespace::regnamespace::text from pg_class where oid = accounts_table);
      owner_id oid := (select relowner from pg_class where oid = accounts_table);
      found_id integer;
      names text;
    begin
      execute format('select id from %s where name = $1', accounts_table) into found_id using account;
      if found_id is null then
        raise exception 'grant_account: no account named %', account using errcode = '22023';
      end if;
      if not exists (select from pg_roles where rolname = grantee) then
        raise exception 'grant_account: no role named % (create it first: CREATE ROLE % LOGIN PASSWORD ''…'')', grantee, grantee
          using errcode = '42704';
      end if;
      if exists (select from pg_roles where rolname = grantee and (rolsuper or rolbypassrls))
         or pg_has_role(grantee, owner_id, 'MEMBER') then
        raise exception 'grant_account: role % cannot be confined: it is a superuser, has BYPASSRLS, or is (a member of) the owner of the tables', grantee
          using errcode = '42501';
      end if;
      execute format('grant usage on schema %s to %I', mirror, grantee);
      execute format('grant select on all tables in schema %s to %I', mirror, grantee);
      execute format('grant insert on %s.jobs to %I', mirror, grantee);
      execute format('grant usage on sequence %s to %I', pg_get_serial_sequence(mirror || '.jobs', 'id'), grantee);
      execute format('insert into %s.account_roles (role_name, account_id) values ($1, $2) on conflict do nothing', mirror)
        using grantee, found_id;
      execute format('select string_agg(a.name, '', '' order by a.name) from %s.account_roles r join %s a on a.id = r.account_id where r.role_name = $1',
                     mirror, accounts_table) into names using grantee;
      return format('%s sees the rows of: %s', grantee, names);
    end
    $$`,
  `comment on function account_grant(regclass, text, text) is 'The work of grant_account(account, role), given the accounts table'`,
  `
    create or replace function grant_account(account_name text, role_name text) returns text language sql
    begin atomic
      select account_grant('accounts'::regclass, account_name, role_name);
    end`,
  `comment on function grant_account(text, text) is 'Confines an existing role to an account by row-level security and grants it what it needs: USAGE on the schema, SELECT on every table and view, INSERT on jobs (a role may be confined to several accounts)'`,
];

/**
 * A table a later migration adds, or a report view a later version adds (or makes again), is
 * readable by the confined roles too: their grants are made again (a role dropped meanwhile is
 * passed over; one that can no longer be confined is a warning).
 */
const RENEW_GRANTS = `
  do $grants$
  declare
    g record;
  begin
    for g in
      select a.name, r.role_name from account_roles r join accounts a on a.id = r.account_id
       where exists (select from pg_roles p where p.rolname = r.role_name)
       order by r.role_name, a.name
    loop
      begin
        perform account_grant('accounts'::regclass, g.name, g.role_name);
      exception when others then
        raise warning 'row-level security: the grants of role % were not renewed: %', g.role_name, sqlerrm;
      end;
    end loop;
  end
  $grants$`;

const reportViews = reportViewsOf(REPORTS);

export const rowSecurity: Repeatable = (() => {
  const statements = [
    ...GRANT_FUNCTIONS,
    ENABLE_POLICIES,
    'alter table accounts enable row level security',
    'drop policy if exists account_rows on accounts',
    `create policy account_rows on accounts using (${visible('id')}) with check (${visible('id')})`,
    `comment on policy account_rows on accounts is 'A role named in account_roles sees only its own accounts'`,
    RENEW_GRANTS,
  ];
  return {
    name: 'row_security',
    // The tables are found when the step runs: a new migration may have added one, and changed
    // report views may need the confined roles' grants again.
    hash: hashOf([...statements, ...migrations.map((migration) => migration.name), reportViews.hash]),
    async apply(trx) {
      await executeAll(trx, statements);
    },
  };
})();

/** The functions and triggers that write events (src/db/event-triggers.ts), made from the catalogue. */
export const eventTriggers: Repeatable = {
  name: 'event_triggers',
  hash: hashOf(EVENT_TRIGGER_STATEMENTS),
  async apply(trx) {
    for (const statement of EVENT_TRIGGER_STATEMENTS) await sql.raw(statement).execute(trx);
  },
};

export const REPEATABLES: readonly Repeatable[] = [
  mirrorComments,
  countryCodes,
  reportViews,
  jobKindCheck,
  eventTriggers,
  rowSecurity,
];

/** The repeatables whose recorded hash differs from their current one. */
export async function staleRepeatables(
  db: Kysely<any>,
  schema: string,
  repeatables: readonly Repeatable[],
): Promise<Repeatable[]> {
  const { rows } = await sql<{ name: string; hash: string }>`
    select name, hash from ${sql.id(schema, 'schema_repeatables')}`.execute(db);
  const recorded = new Map(rows.map((row) => [row.name, row.hash]));
  return repeatables.filter((repeatable) => recorded.get(repeatable.name) !== repeatable.hash);
}
