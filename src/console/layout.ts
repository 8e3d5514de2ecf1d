/**
 * The page shell (navigation, styles, scripts) and the small pieces every page uses: values as
 * text, times as ages, pagers, links that keep the current filters. Hono's `html` escapes every
 * interpolated value.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { ENTITY_NAMES, type EntityName } from '../catalog/index.js';
import { relativeTime } from '../format.js';
import { accountSwitcher, link, type Viewing } from './accounts.js';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const SECTIONS = [
  ['/', 'Overview'],
  ['/jobs', 'Jobs'],
  ['/changes', 'Changes'],
  ['/events', 'Events'],
  ['/webhooks', 'Webhooks'],
  ['/records', 'Records'],
  ['/reports', 'Reports'],
] as const;

/**
 * A whole page. With `view` (every page but the errors met before an account is chosen) the
 * header has the account switcher, and the sections' links keep the account chosen.
 */
export function page(
  title: string,
  body: Html,
  options: { view?: Viewing; section?: string; refreshUrl?: string; scripts?: readonly string[] } = {},
): Html {
  const { view } = options;
  const account = view?.account && view.accounts.length > 1 ? ` · ${view.account.name}` : '';
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title}${account} · invoice-mirror</title>
    <link rel="icon" href="/favicon.ico" type="image/svg+xml" />
    <link rel="stylesheet" href="/static/console.css" />
    <link rel="stylesheet" href="/static/uPlot.min.css" />
    <script src="/static/htmx.min.js" defer></script>
    <script src="/static/uPlot.iife.min.js" defer></script>
    <script src="/static/charts.js" defer></script>
    <script src="/static/times.js" defer></script>
    ${options.scripts?.map((name) => html`<script src="/static/${name}" defer></script>`) ?? ''}
  </head>
  <body>
    <header>
      <strong>invoice-mirror</strong>
      <nav>
        ${SECTIONS.map(
          ([href, label]) =>
            html`<a href="${link(view, href)}" class="${options.section === href ? 'active' : ''}">${label}</a>`,
        )}
      </nav>
      ${view ? accountSwitcher(view) : ''}
    </header>
    <main>
      <h1>${title}</h1>
      ${body}
    </main>
  </body>
</html>`;
}

/**
 * Numbers are formatted in one locale, en-US ("1,234.50": comma thousands, point decimals), so a
 * page reads the same for everyone; times are shown in the viewer's own time zone by times.js.
 */
export const NUMBER_LOCALE = 'en-US';
const MONEY = new Intl.NumberFormat(NUMBER_LOCALE, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const NUMBER = new Intl.NumberFormat(NUMBER_LOCALE, { maximumFractionDigits: 4 });

/** What a cell knows of its column: the catalogue's SQL type, and whether it holds money. */
export interface CellColumn {
  readonly name: string;
  readonly type?: string;
  readonly money?: boolean;
}

/** Names that hold identifiers (never grouped in thousands): ids, numbers, codes. */
const IDENTIFIER = /(^id$|_id$|nr$|_number$|code$|^country$|^category$|^profile$|^year$)/;

/** A number as text: money with two decimals, anything else with thousands separators. */
export function formatNumber(value: number | string, money = false): string {
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(number)) return String(value);
  return money ? MONEY.format(number) : NUMBER.format(number);
}

function isNumeric(value: unknown): value is number | string {
  return typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value));
}

/** A time in the viewer's time zone (times.js rewrites it in the browser), the exact time on hover. */
export function timeOf(value: Date | string): Html {
  const at = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(at.getTime())) return html`${String(value)}`;
  return html`<time class="local" datetime="${at.toISOString()}" title="${text(at)}">${text(at)}</time>`;
}

/**
 * One table cell for a value of a column: numbers right-aligned and formatted (money with two
 * decimals), dates as dates, times in the viewer's zone, `link` (when given) around the value.
 */
export function valueCell(value: unknown, column: CellColumn, link?: string): Html {
  const wrap = (inner: Html | string) => (link ? html`<a href="${link}">${inner}</a>` : inner);
  if (value === null || value === undefined || value === '') return html`<td>—</td>`;
  const type = column.type;
  if (value instanceof Date || type === 'timestamptz') return html`<td>${wrap(timeOf(value as Date | string))}</td>`;
  if (type === 'date' && typeof value === 'string')
    return html`<td><time datetime="${value}">${wrap(value)}</time></td>`;
  const identifier = IDENTIFIER.test(column.name);
  const numericType = type === 'integer' || type === 'numeric' || (type === undefined && isNumeric(value));
  if (numericType && isNumeric(value)) {
    const shown = identifier ? String(value) : formatNumber(value, column.money === true);
    return html`<td class="num${column.money ? ' money' : ''}" title="${String(value)}">${wrap(shown)}</td>`;
  }
  if (typeof value === 'boolean') return html`<td>${wrap(value ? 'yes' : 'no')}</td>`;
  return html`<td>${wrap(text(value))}</td>`;
}

/** A column's header: its meaning from the catalogue, its name on hover; right-aligned over numbers. */
export function columnHead(name: string, meaning?: string, numeric = false): Html {
  return html`<th class="${numeric ? 'num' : ''}" title="${name}">${meaning ?? name}</th>`;
}

/** The entity a column's value identifies, by column name (mirror tables and reports). */
const REFERS_TO: Readonly<Record<string, EntityName>> = {
  clientnr: 'clients',
  client_number: 'clients',
  country: 'countries',
  invoice_id: 'invoices',
  quotation_id: 'quotations',
  saved_invoice_id: 'saved_invoices',
  repeating_invoice_id: 'repeating_invoices',
  product_id: 'products',
};

/**
 * The record page a value links to: a client number to its client, an invoice id to its invoice…
 * (none for 0, "no client" on old records, nor for a table's own key, which links itself).
 */
export function recordLink(entity: EntityName | null, column: string, value: unknown): string | undefined {
  const target = REFERS_TO[column];
  if (!target || target === entity) return undefined;
  if (!(typeof value === 'number' || (typeof value === 'string' && /^\d{1,15}$/.test(value))) || Number(value) <= 0)
    return undefined;
  return `/records/${target}/${value}`;
}

/** A value from the database as text; null shows as a dash. */
export function text(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (value instanceof Date)
    return value
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, 'Z');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A time as an age ("3 min ago"); the exact time is its title. */
export function ago(value: Date | string | null | undefined, now = Date.now()): Html {
  if (value === null || value === undefined) return html`<span class="muted">never</span>`;
  const at = value instanceof Date ? value : new Date(value);
  return html`<time class="ago" datetime="${at.toISOString()}" title="${text(at)}">${relativeTime(at, now)}</time>`;
}

/** A status as a coloured badge. */
export function badge(status: string): Html {
  return html`<span class="badge ${status}">${status}</span>`;
}

/** The current URL with some query parameters changed (undefined removes one). */
export function withQuery(url: string, changes: Record<string, string | number | undefined>): string {
  const parsed = new URL(url, 'http://console');
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === '') parsed.searchParams.delete(name);
    else parsed.searchParams.set(name, String(value));
  }
  const query = parsed.searchParams.toString();
  return `${parsed.pathname}${query ? `?${query}` : ''}`;
}

/** The page number a list was asked for (`?page=`), 1 when missing or not a number. */
export function pageOf(query: Record<string, string>): number {
  return Math.max(1, Number.parseInt(query.page ?? '1', 10) || 1);
}

/** The page for an entity name that is not one of the mirror's. */
export function unknownEntityPage(name: string, view?: Viewing): Html {
  return page('Not found', html`<p class="error">No entity "${name}"; known: ${ENTITY_NAMES.join(', ')}.</p>`, {
    view,
  });
}

/** Previous and next links of a list read with `limit + 1` rows (the extra row says there is more). */
export function pager(url: string, pageNumber: number, hasNext: boolean): Html {
  return html`<p class="pager">
    ${pageNumber > 1 ? html`<a href="${withQuery(url, { page: pageNumber - 1 })}">← newer</a>` : ''}
    <span class="muted">page ${pageNumber}</span>
    ${hasNext ? html`<a href="${withQuery(url, { page: pageNumber + 1 })}">older →</a>` : ''}
  </p>`;
}

/** Data for a chart drawn by charts.js in the browser (uPlot), as a JSON attribute. */
export function chart(
  kind: 'lines' | 'bars',
  title: string,
  data: { x: (string | number)[]; series: Record<string, number[]> },
): Html {
  const values = Object.values(data.series).flat();
  if (data.x.length === 0 || values.every((value) => !value))
    return html`<figure class="chart empty"><figcaption>${title}</figcaption><p class="muted">Nothing to draw yet: every value is zero.</p></figure>`;
  return html`<figure class="chart" data-kind="${kind}" data-chart="${JSON.stringify(data)}"><figcaption>${title}</figcaption></figure>`;
}

export { html };
