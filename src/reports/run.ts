/**
 * The one report runner, for `invoice-mirror report` and the console: a report's rows from its
 * view (all, or one page in a chosen order; every account's, or some accounts'), and its chart's
 * data. The column list comes from the database, so a report with no rows still prints its header.
 */
import { sql, type Kysely } from 'kysely';
import type { Report } from '../catalog/index.js';
import type { Database } from '../db/index.js';
import { inScope, type AccountScope } from '../db/scope.js';
import { UsageError } from '../errors.js';

export interface ReportResult {
  columns: string[];
  rows: Record<string, unknown>[];
}

export interface ReportRequest {
  /** A column of the report to order by (else the report's own order). */
  sort?: { column: string; descending: boolean };
  /** One page of rows (else all). */
  page?: { limit: number; offset: number };
  /** The accounts whose rows to show (else all: every view has `account_id`). */
  scope?: AccountScope;
  /** One period (`2026-Q1`, `2026-03`) of a report with a `period` column (and a `month` one, which matches too). */
  period?: string;
}

/**
 * The rows of one period: `period` equal, or `month` for a report that has both (vat_problems is
 * by quarter and month). A report without a `period` column has no periods: a UsageError.
 */
function periodFilter(report: Report, period: string | undefined) {
  if (period === undefined) return sql`true`;
  if (!Object.hasOwn(report.columns, 'period'))
    throw new UsageError(`report ${report.name} has no periods (--period is for the reports with a period column)`);
  if (!/^\d{4}-(Q[1-4]|0[1-9]|1[0-2])$/.test(period))
    throw new UsageError(`--period: '${period}' is not a quarter (2026-Q1) or a month (2026-03)`);
  return Object.hasOwn(report.columns, 'month')
    ? sql`(${sql.ref('period')} = ${period} or ${sql.ref('month')} = ${period})`
    : sql`${sql.ref('period')} = ${period}`;
}

/** `schema`: where the report's view is; null: the first schema on the search path (the mirror's). */
export async function runReport(
  db: Kysely<Database>,
  schema: string | null,
  report: Report,
  request: ReportRequest = {},
): Promise<ReportResult> {
  const { rows: columnRows } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
     where table_schema = coalesce(${schema}::text, current_schema()) and table_name = ${report.name}
     order by ordinal_position`.execute(db);
  const { sort, page, scope = 'all', period } = request;
  const inPeriod = periodFilter(report, period);
  const order =
    sort && Object.hasOwn(report.columns, sort.column)
      ? sql`${sql.ref(sort.column)} ${sql.raw(sort.descending ? 'desc' : 'asc')} nulls last`
      : sql.raw(report.orderBy);
  const { rows } = await sql<Record<string, unknown>>`
    select * from ${sql.table(report.name)} where ${inScope(scope)} and ${inPeriod} order by ${order}
    ${page ? sql`limit ${page.limit} offset ${page.offset}` : sql``}`.execute(db);
  return { columns: columnRows.map((row) => row.column_name), rows };
}

export interface ReportChartData {
  /** The values of the chart's `x`: bars in the order the report lists them, lines in ascending order. */
  x: string[];
  /** Each `y` summed per value of `x`. */
  series: Record<string, number[]>;
}

/** The chart's data, or null for a report without a chart. */
export async function reportChart(
  db: Kysely<Database>,
  report: Report,
  scope: AccountScope = 'all',
): Promise<ReportChartData | null> {
  if (!report.chart) return null;
  const { x, y } = report.chart;
  // Bars follow the report's own order (pipeline stages in stage order, not alphabetical); lines run
  // along their dates.
  const order = report.chart.kind === 'bars' ? sql`min(report_position)` : sql`min(${sql.ref(x)}::text)`;
  const { rows } = await sql<Record<string, unknown>>`
    select ${sql.ref(x)}::text as x, ${sql.join(y.map((name) => sql`coalesce(sum(${sql.ref(name)}), 0)::float8 as ${sql.ref(name)}`))}
      from (select *, row_number() over (order by ${sql.raw(report.orderBy)}) as report_position
              from ${sql.table(report.name)} where ${inScope(scope)}) listed
     group by 1 order by ${order}`.execute(db);
  return {
    x: rows.map((row) => String(row.x ?? '—')),
    series: Object.fromEntries(y.map((name) => [name, rows.map((row) => Number(row[name]))])),
  };
}
