/**
 * Reports: every built-in report (the catalogue's views) as a table sorted by any column, paged in
 * SQL, with a CSV download of all its rows and, where the catalogue gives one, a chart.
 */
import type { Hono } from 'hono';
import { sql, type Kysely } from 'kysely';
import { REPORTS, type Report } from '../../catalog/index.js';
import type { Database } from '../../db/index.js';
import { formatRows } from '../../format.js';
import { chart, html, page, pageOf, pager, text, withQuery, type Html } from '../layout.js';

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

/** The order: a column of the report and a direction from the query, else the report's own. */
function orderOf(report: Report, query: Record<string, string>) {
  const column = Object.hasOwn(report.columns, query.sort ?? '') ? query.sort! : null;
  const descending = query.dir === 'desc';
  return {
    column,
    descending,
    sql: column ? sql`${sql.ref(column)} ${sql.raw(descending ? 'desc' : 'asc')} nulls last` : sql.raw(report.orderBy),
  };
}

/** The chart's data: `y` summed per value of `x`, in the order the values first appear. */
async function chartOf(db: Kysely<Database>, report: Report): Promise<Html> {
  if (!report.chart) return html``;
  const { kind, x, y } = report.chart;
  const { rows } = await sql<Record<string, unknown>>`
    select ${sql.ref(x)}::text as x, ${sql.join(y.map((name) => sql`coalesce(sum(${sql.ref(name)}), 0)::float8 as ${sql.ref(name)}`))}
      from ${sql.table(report.name)} group by 1 order by min(${sql.ref(x)}::text)`.execute(db);
  return chart(kind, `${y.join(', ')} by ${x}`, {
    x: rows.map((row) => String(row.x ?? '—')),
    series: Object.fromEntries(y.map((name) => [name, rows.map((row) => Number(row[name]))])),
  });
}

async function reportPage(
  db: Kysely<Database>,
  report: Report,
  url: string,
  query: Record<string, string>,
): Promise<Html> {
  const order = orderOf(report, query);
  const pageNumber = pageOf(query);
  const columns = Object.keys(report.columns);
  const [{ rows }, drawn] = await Promise.all([
    sql<Record<string, unknown>>`select * from ${sql.table(report.name)} order by ${order.sql}
      limit ${PAGE_ROWS + 1} offset ${(pageNumber - 1) * PAGE_ROWS}`.execute(db),
    chartOf(db, report),
  ]);
  const sortLink = (column: string) => {
    const dir = order.column === column && !order.descending ? 'desc' : 'asc';
    const arrow = order.column === column ? (order.descending ? ' ▼' : ' ▲') : '';
    return html`<a href="${withQuery(url, { sort: column, dir, page: undefined })}">${column}${arrow}</a>`;
  };
  return page(
    report.title,
    html`<p>${report.comment} <a href="/reports/${report.name}.csv">Download CSV</a></p>
      ${drawn}
      <table><thead><tr>${columns.map((c) => html`<th title="${report.columns[c]}">${sortLink(c)}</th>`)}</tr></thead><tbody>
      ${rows.slice(0, PAGE_ROWS).map((row) => html`<tr>${columns.map((c) => html`<td>${text(row[c])}</td>`)}</tr>`)}
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
    const { rows } = await sql<
      Record<string, unknown>
    >`select * from ${sql.table(report.name)} order by ${sql.raw(report.orderBy)}`.execute(db);
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
