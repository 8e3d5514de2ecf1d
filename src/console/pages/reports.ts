/**
 * Reports: every built-in report (the catalogue's views) as a table sorted by any column, paged in
 * SQL, with a CSV download of all its rows and, where the catalogue gives one, a chart.
 */
import type { Hono } from 'hono';
import type { Kysely } from 'kysely';
import { REPORTS, type Report } from '../../catalog/index.js';
import type { Database } from '../../db/index.js';
import { formatRows } from '../../format.js';
import { reportChart, runReport, type ReportChartData, type ReportRequest } from '../../reports/index.js';
import { chart, html, page, pageOf, pager, recordLink, valueCell, withQuery, type Html } from '../layout.js';

const PAGE_ROWS = 100;

function listPage(): Html {
  return page(
    'Reports',
    html`<table><thead><tr><th>report</th><th>what it shows</th><th></th></tr></thead><tbody>
      ${REPORTS.map(
        (r) => html`<tr><td><a href="/reports/${r.name}">${r.title}</a></td><td>${r.description}</td>
          <td><a href="/reports/${r.name}.csv">CSV</a></td></tr>`,
      )}</tbody></table>`,
    { section: '/reports' },
  );
}

/** The order asked for in the query: a column of the report and a direction, else none (the report's own). */
function sortOf(report: Report, query: Record<string, string>): ReportRequest['sort'] {
  const column = Object.hasOwn(report.columns, query.sort ?? '') ? query.sort! : null;
  return column ? { column, descending: query.dir === 'desc' } : undefined;
}

/** A report's columns that hold money (by name: totals, amounts, prices, values; not counts of them). */
const MONEY = /(total|amount|price|value|paid|to_pay|still_open|^tax$|discount)/;
const NOT_MONEY = /(count|days|sends|changes)/;
export const isMoneyColumn = (name: string): boolean => MONEY.test(name) && !NOT_MONEY.test(name);

/** A column's meaning in a few words: its first clause. */
function shortMeaning(report: Report, column: string): string {
  const clause = (report.columns[column] ?? '').split(/[;(:]/)[0]!.trim();
  // A meaning that starts with a list of values ("draft (not sent), open…") says nothing as a title.
  return clause.includes(' ') ? clause : column.replace(/_/g, ' ');
}

/** The chart of a report that has one, titled in words ("quotation total including tax, by stage"). */
function chartOf(report: Report, data: ReportChartData | null): Html {
  if (!report.chart || !data) return html``;
  const what = report.chart.y.map((y) => shortMeaning(report, y)).join(' and ');
  const title = `${what.charAt(0).toUpperCase()}${what.slice(1)}, by ${report.chart.x.replace(/_/g, ' ')}`;
  const series = Object.fromEntries(
    Object.entries(data.series).map(([name, values]) => [shortMeaning(report, name), values]),
  );
  return chart(report.chart.kind, title, { x: data.x, series });
}

async function reportPage(
  db: Kysely<Database>,
  report: Report,
  url: string,
  query: Record<string, string>,
): Promise<Html> {
  const sort = sortOf(report, query);
  const pageNumber = pageOf(query);
  const columns = Object.keys(report.columns);
  const [{ rows }, data] = await Promise.all([
    runReport(db, null, report, { sort, page: { limit: PAGE_ROWS + 1, offset: (pageNumber - 1) * PAGE_ROWS } }),
    reportChart(db, report),
  ]);
  const numericColumns = new Set(
    columns.filter((c) =>
      rows.some((row) => typeof row[c] === 'number' || /^-?\d+(\.\d+)?$/.test(String(row[c] ?? ''))),
    ),
  );
  const sortLink = (column: string) => {
    const dir = sort?.column === column && !sort.descending ? 'desc' : 'asc';
    const arrow = sort?.column === column ? (sort.descending ? ' ▼' : ' ▲') : '';
    return html`<a href="${withQuery(url, { sort: column, dir, page: undefined })}">${shortMeaning(report, column)}${arrow}</a>`;
  };
  return page(
    report.title,
    html`<p>${report.comment} <a href="/reports/${report.name}.csv">Download CSV</a></p>
      ${chartOf(report, data)}
      <table><thead><tr>${columns.map(
        (c) =>
          html`<th class="${numericColumns.has(c) ? 'num' : ''}" title="${c}: ${report.columns[c]}">${sortLink(c)}</th>`,
      )}</tr></thead><tbody>
      ${rows
        .slice(0, PAGE_ROWS)
        .map(
          (row) =>
            html`<tr>${columns.map((c) => valueCell(row[c], { name: c, money: isMoneyColumn(c) }, recordLink(null, c, row[c])))}</tr>`,
        )}
      </tbody></table>
      ${rows.length === 0 ? html`<p class="muted">No rows.</p>` : ''}
      ${pager(url, pageNumber, rows.length > PAGE_ROWS)}`,
    { section: '/reports' },
  );
}

export function reportRoutes(app: Hono, db: Kysely<Database>): void {
  const find = (name: string) => REPORTS.find((r) => r.name === name);
  app.get('/reports', (c) => c.html(listPage()));
  app.get('/reports/:file{[a-z_]+\\.csv}', async (c) => {
    const name = c.req.param('file').replace(/\.csv$/, '');
    const report = find(name);
    if (!report) return c.text(`no report ${name}\n`, 404);
    const { rows } = await runReport(db, null, report);
    c.header('content-type', 'text/csv; charset=utf-8');
    c.header('content-disposition', `attachment; filename="${report.name}.csv"`);
    return c.body(formatRows(rows, 'csv', Object.keys(report.columns)));
  });
  app.get('/reports/:name{[a-z_]+}', async (c) => {
    const report = find(c.req.param('name'));
    if (!report) return c.html(page('Not found', html`<p class="error">No report "${c.req.param('name')}".</p>`), 404);
    return c.html(await reportPage(db, report, c.req.url, c.req.query()));
  });
}
