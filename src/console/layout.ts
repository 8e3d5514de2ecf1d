/**
 * The page shell (navigation, styles, scripts) and the small pieces every page uses: values as
 * text, times as ages, pagers, links that keep the current filters. Hono's `html` escapes every
 * interpolated value.
 */
import { html } from 'hono/html';
import { ENTITY_NAMES, labelOf, type EntityName } from '../catalog/index.js';
import { relativeTime } from '../format.js';
import { accountSwitcher, link, type Viewing } from './accounts.js';
import type { Html } from './html.js';

export type { Html };

const SECTIONS = [
  ['/', 'Overview'],
  ['/jobs', 'Jobs'],
  ['/changes', 'Changes'],
  ['/events', 'Events'],
  ['/webhooks', 'Webhooks'],
  ['/records', 'Records'],
  ['/reports', 'Reports'],
  ['/vat', 'VAT'],
  ['/exports', 'Exports'],
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
    <meta name="htmx-config" content='{"includeIndicatorStyles": false}' />
    <link rel="icon" href="/favicon.ico" type="image/svg+xml" />
    <link rel="stylesheet" href="/static/console.css" />
    <link rel="stylesheet" href="/static/uPlot.min.css" />
    <script src="/static/htmx.min.js" defer></script>
    <script src="/static/uPlot.iife.min.js" defer></script>
    <script src="/static/charts.js" defer></script>
    <script src="/static/times.js" defer></script>
    <script src="/static/behaviour.js" defer></script>
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

/** A column's header: its label from the catalogue, its meaning on hover, its name for programs; right-aligned over numbers. */
export function columnHead(column: { name: string; doc: string; label?: string }, numeric = false): Html {
  const label = labelOf(column);
  return html`<th class="${numeric ? 'num ' : ''}${twoLines(label)}" data-column="${column.name}" title="${plainMeaning(column.doc)}">${label}</th>`;
}

/**
 * The class that keeps a header to two lines however narrow its table: a minimum width of half
 * its label and at least its longest word (`w4` … `w16`, in `ch`; a wider table scrolls in its box).
 */
export function twoLines(label: string): string {
  const words = label.split(' ');
  // The narrowest two lines: the split whose longer line is shortest (a line breaks between words).
  let narrowest = label.length;
  for (let i = 1; i < words.length; i++)
    narrowest = Math.min(narrowest, Math.max(words.slice(0, i).join(' ').length, words.slice(i).join(' ').length));
  const needed = Math.ceil(narrowest * 1.15) + 1; // letters of a bold face run a little wider than its `0`
  return `w${Math.min(16, Math.max(4, Math.ceil(needed / 2) * 2))}`;
}

/** A catalogue meaning as a tooltip says it: without the backticks that mark names in the docs. */
export function plainMeaning(doc: string): string {
  return doc.replace(/`/g, '');
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

/** The largest id of an `integer` column (webhooks); `bigint` ids (jobs, events) go to Number.MAX_SAFE_INTEGER. */
export const MAX_INTEGER_ID = 2_147_483_647;

/**
 * An id taken from a path (digits only, the route says so), or null when it is too large to name
 * any row: it then names nothing (a 404), instead of failing the query that would look it up.
 */
export function pathId(text: string, max = Number.MAX_SAFE_INTEGER): number | null {
  if (!/^\d{1,16}$/.test(text)) return null;
  const id = Number(text);
  return id <= max ? id : null;
}

/** The page for an id (or a name) that names nothing: one line saying what was not found. */
export function notFoundPage(line: string, view?: Viewing): Html {
  return page('Not found', html`<p class="error">${line}</p>`, { view });
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
