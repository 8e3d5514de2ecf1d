/**
 * Reports: every built-in report (the catalogue's views) as a table sorted by any column, paged in
 * SQL, with a CSV download of all its rows and, where the catalogue gives one, a chart; of the
 * account shown (the views' `account_id`), or of all accounts, each row naming its account.
 */
import type { Kysely } from 'kysely';
import { isMoneyColumn, REPORTS, reportColumnLabel, type Report } from '../../catalog/index.js';
import type { Database } from '../../db/index.js';
import { formatRows } from '../../format.js';
import { reportChart, runReport, type ReportChartData, type ReportRequest } from '../../reports/index.js';
import { link, showsSeveral, type ConsoleApp, type Viewing } from '../accounts.js';
import {
  chart,
  html,
  page,
  pageOf,
  pager,
  plainMeaning,
  recordLink,
  twoLines,
  valueCell,
  withQuery,
  type Html,
} from '../layout.js';

const PAGE_ROWS = 100;

function listPage(view: Viewing): Html {
  return page(
    'Reports',
    html`<table><thead><tr><th>Report</th><th>What it shows</th><th></th></tr></thead><tbody>
      ${REPORTS.map(
        (r) => html`<tr><td><a href="${link(view, `/reports/${r.name}`)}">${r.title}</a></td><td>${r.description}</td>
          <td><a href="${link(view, `/reports/${r.name}.csv`)}">CSV</a></td></tr>`,
      )}</tbody></table>`,
    { view, section: '/reports' },
  );
}

/**
 * The columns shown: the account's id never (its name says it), its name only when rows of
 * several accounts are shown.
 */
function shownColumns(view: Viewing, report: Report): string[] {
  return Object.keys(report.columns).filter(
    (column) => column !== 'account_id' && (column !== 'account_name' || showsSeveral(view)),
  );
}

/** The order asked for in the query: a column of the report and a direction, else none (the report's own). */
function sortOf(report: Report, query: Record<string, string>): ReportRequest['sort'] {
  const column = Object.hasOwn(report.columns, query.sort ?? '') ? query.sort! : null;
  return column ? { column, descending: query.dir === 'desc' } : undefined;
}

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
  view: Viewing,
  report: Report,
  url: string,
  query: Record<string, string>,
): Promise<Html> {
  const sort = sortOf(report, query);
  const pageNumber = pageOf(query);
  const columns = shownColumns(view, report);
  const slice = { limit: PAGE_ROWS + 1, offset: (pageNumber - 1) * PAGE_ROWS };
  const [{ rows }, data] = await Promise.all([
    runReport(db, null, report, { sort, page: slice, scope: view.scope }),
    reportChart(db, report, view.scope),
  ]);
  const numericColumns = new Set(
    columns.filter((c) =>
      rows.some((row) => typeof row[c] === 'number' || /^-?\d+(\.\d+)?$/.test(String(row[c] ?? ''))),
    ),
  );
  const sortLink = (column: string) => {
    const dir = sort?.column === column && !sort.descending ? 'desc' : 'asc';
    const arrow = sort?.column === column ? (sort.descending ? ' ▼' : ' ▲') : '';
    return html`<a href="${withQuery(url, { sort: column, dir, page: undefined })}">${reportColumnLabel(column)}${arrow}</a>`;
  };
  return page(
    report.title,
    html`<p>${report.comment} <a href="${link(view, `/reports/${report.name}.csv`)}">Download CSV</a></p>
      ${chartOf(report, data)}
      <table><thead><tr>${columns.map(
        (c) =>
          html`<th class="${numericColumns.has(c) ? 'num ' : ''}${twoLines(`${reportColumnLabel(c)} ▲`)}" data-column="${c}" title="${plainMeaning(report.columns[c] ?? '')}">${sortLink(c)}</th>`,
      )}</tr></thead><tbody>
      ${rows
        .slice(0, PAGE_ROWS)
        .map(
          (row) =>
            html`<tr>${columns.map((c) => valueCell(row[c], { name: c, money: isMoneyColumn(c) }, rowLink(view, row, c)))}</tr>`,
        )}
      </tbody></table>
      ${rows.length === 0 ? html`<p class="muted">No rows.</p>` : ''}
      ${pager(url, pageNumber, rows.length > PAGE_ROWS)}`,
    { view, section: '/reports' },
  );
}

/** The record a value names, in the row's own account (a client number is unique only within one). */
function rowLink(view: Viewing, row: Record<string, unknown>, column: string): string | undefined {
  const target = recordLink(null, column, row[column]);
  if (!target) return undefined;
  return link(view, target, showsSeveral(view) && typeof row.account_name === 'string' ? row.account_name : undefined);
}

export function reportRoutes(app: ConsoleApp, db: Kysely<Database>): void {
  const find = (name: string) => REPORTS.find((r) => r.name === name);
  app.get('/reports', (c) => c.html(listPage(c.get('view'))));
  app.get('/reports/:file{[a-z_]+\\.csv}', async (c) => {
    const name = c.req.param('file').replace(/\.csv$/, '');
    const report = find(name);
    if (!report) return c.text(`no report ${name}\n`, 404);
    const view = c.get('view');
    const { rows } = await runReport(db, null, report, { scope: view.scope });
    // The file of one account says which; every column is kept (a program may want the ids).
    const file = view.account && view.accounts.length > 1 ? `${report.name}-${view.account.name}` : report.name;
    c.header('content-type', 'text/csv; charset=utf-8');
    c.header('content-disposition', `attachment; filename="${file}.csv"`);
    return c.body(await formatRows(rows, 'csv', Object.keys(report.columns)));
  });
  app.get('/reports/:name{[a-z_]+}', async (c) => {
    const report = find(c.req.param('name'));
    const view = c.get('view');
    if (!report)
      return c.html(page('Not found', html`<p class="error">No report "${c.req.param('name')}".</p>`, { view }), 404);
    return c.html(await reportPage(db, view, report, c.req.url, c.req.query()));
  });
}
