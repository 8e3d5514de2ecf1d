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
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import {
  ACCOUNT_COLUMN,
  BOOKKEEPING_COLUMNS,
  ENTITIES,
  JOB_KIND_NAMES,
  entityColumns,
  LINE_COLUMNS,
  REPORT_FUNCTIONS,
  REPORTS,
  type Report,
} from '../catalog/index.js';
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
    for (const column of [...entityColumns(entity.name), ...BOOKKEEPING_COLUMNS, ACCOUNT_COLUMN]) {
      out.push(commentOnColumn(entity.name, column.name, column.doc));
    }
  }
  for (const column of [...LINE_COLUMNS, ACCOUNT_COLUMN])
    out.push(commentOnColumn('document_lines', column.name, column.doc));
  return out;
}

function reportStatements(report: Report): { view: string; comments: string[] } {
  return {
    view: `create or replace view ${report.name} as ${report.select.trim()}`,
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

/** `create or replace`; where Postgres refuses (a column renamed, retyped or removed), drop and create. */
async function replaceView(trx: Transaction<any>, name: string, create: string, ours: ReadonlySet<string>) {
  await sql`savepoint replace_view`.execute(trx);
  try {
    await sql.raw(create).execute(trx);
    await sql`release savepoint replace_view`.execute(trx);
    return;
  } catch (error) {
    await sql`rollback to savepoint replace_view`.execute(trx);
    // 42P16: cannot change the name, type or number of a view's columns in place. 42809: not a view.
    const code = (error as { code?: string }).code;
    if (code !== '42P16') throw error;
  }
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
      for (const statement of REPORT_FUNCTIONS) await sql.raw(statement).execute(trx);
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

export const REPEATABLES: readonly Repeatable[] = [mirrorComments, reportViewsOf(REPORTS), jobKindCheck];

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
