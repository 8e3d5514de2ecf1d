/**
 * The page shell (navigation, styles, scripts) and the small pieces every page uses: values as
 * text, times as ages, pagers, links that keep the current filters. Hono's `html` escapes every
 * interpolated value.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { ENTITY_NAMES } from '../catalog/index.js';
import { relativeTime } from '../format.js';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const SECTIONS = [
  ['/', 'Overview'],
  ['/jobs', 'Jobs'],
  ['/changes', 'Changes'],
  ['/records', 'Records'],
  ['/reports', 'Reports'],
] as const;

export function page(title: string, body: Html, options: { section?: string; refreshUrl?: string } = {}): Html {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · invoice-mirror</title>
    <link rel="stylesheet" href="/static/console.css" />
    <link rel="stylesheet" href="/static/uPlot.min.css" />
    <script src="/static/htmx.min.js" defer></script>
    <script src="/static/uPlot.iife.min.js" defer></script>
    <script src="/static/charts.js" defer></script>
  </head>
  <body>
    <header>
      <strong>invoice-mirror</strong>
      <nav>
        ${SECTIONS.map(
          ([href, label]) => html`<a href="${href}" class="${options.section === href ? 'active' : ''}">${label}</a>`,
        )}
      </nav>
    </header>
    <main>
      <h1>${title}</h1>
      ${body}
    </main>
  </body>
</html>`;
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
  return html`<time datetime="${at.toISOString()}" title="${text(at)}">${relativeTime(at, now)}</time>`;
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
export function unknownEntityPage(name: string): Html {
  return page('Not found', html`<p class="error">No entity "${name}"; known: ${ENTITY_NAMES.join(', ')}.</p>`);
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
  return html`<figure class="chart" data-kind="${kind}" data-chart="${JSON.stringify(data)}"><figcaption>${title}</figcaption></figure>`;
}

export { html };
