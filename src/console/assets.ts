/**
 * What the browser loads besides the pages: htmx (live refresh, forms) and uPlot (charts) from
 * node_modules, as npm installed them (no CDN, no build step), and the console's own style sheet
 * and chart script, kept here as text so the bundled command needs no files of its own.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ConsoleApp } from './accounts.js';
import { JOB_FORM_SCRIPT } from './job-form.js';

const STYLE = `
:root { --fg: #1d2433; --muted: #6b7280; --line: #e5e7eb; --bg: #f8fafc; --accent: #1d4ed8; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: 4px 24px; align-items: center; padding: 10px 24px; background: #111827; color: #fff; }
header nav { display: flex; flex-wrap: wrap; row-gap: 4px; }
header nav a { color: #cbd5e1; text-decoration: none; margin-right: 16px; }
header nav a.active, header nav a:hover { color: #fff; border-bottom: 2px solid #60a5fa; }
header form.switcher { margin-left: auto; }
header form.switcher label { flex-direction: row; align-items: center; gap: 6px; color: #cbd5e1; }
header form.switcher select { max-width: 16em; }
.reason { font-size: 12px; color: var(--muted); }
table.accounts td { white-space: nowrap; } table.accounts td:nth-child(2) { white-space: normal; }
.badge.active { background: #dcfce7; color: #166534; }
.badge.refused { background: #fee2e2; color: #991b1b; }
.badge.paused { background: #fef3c7; color: #92400e; }
main { padding: 16px 24px 48px; max-width: 1400px; }
@media (max-width: 600px) { header, main { padding-left: 12px; padding-right: 12px; } header nav a { margin-right: 10px; } }
.scroll { max-width: 100%; overflow-x: auto; margin-bottom: 8px; }
.grid > * { min-width: 0; }
.note { background: #fef3c7; color: #92400e; border: 1px solid #fde68a; border-radius: 6px; padding: 6px 12px; }
input, select, textarea { max-width: 100%; }
.help { font-size: 12px; color: var(--muted); }
fieldset { border: 1px solid var(--line); border-radius: 6px; background: #fff; margin: 8px 0; }
label.check { flex-direction: row; align-items: center; gap: 6px; }
h1 { font-size: 20px; margin: 4px 0 16px; } h2 { font-size: 16px; margin: 24px 0 8px; }
a { color: var(--accent); }
table { border-collapse: collapse; background: #fff; border: 1px solid var(--line); width: 100%; }
th, td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #f1f5f9; font-weight: 600; }
td.num, td time { white-space: nowrap; }
th[title] { cursor: help; }
th.w4 { min-width: 4ch; } th.w6 { min-width: 6ch; } th.w8 { min-width: 8ch; } th.w10 { min-width: 10ch; } th.w12 { min-width: 12ch; } th.w14 { min-width: 14ch; } th.w16 { min-width: 16ch; }
table.fields td { overflow-wrap: anywhere; }
table.fields td.num { text-align: left; } /* one value per row: read beside its label, not in a column */
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 16px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 12px; background: #e5e7eb; }
.badge.succeeded, .badge.ok { background: #dcfce7; color: #166534; }
.badge.failed, .badge.unhealthy { background: #fee2e2; color: #991b1b; }
.badge.running, .badge.queued { background: #dbeafe; color: #1e40af; }
.badge.interrupted, .badge.partial, .badge.cancelled { background: #fef3c7; color: #92400e; }
form.filters { display: flex; gap: 8px; flex-wrap: wrap; align-items: end; margin-bottom: 12px; }
label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
input, select, textarea, button { font: inherit; padding: 4px 6px; }
textarea { width: 100%; min-height: 140px; font-family: ui-monospace, monospace; }
button { background: var(--accent); color: #fff; border: 0; border-radius: 4px; padding: 5px 12px; cursor: pointer; }
button.secondary { background: #64748b; }
a.button { display: inline-block; background: var(--accent); color: #fff; border-radius: 4px; padding: 3px 10px; text-decoration: none; }
ul.decisions li { margin-bottom: 6px; } ul.decisions .actions { margin-top: 2px; }
.error { color: #991b1b; }
.field-error textarea, .field-error select, .field-error input { border: 2px solid #dc2626; }
pre { background: #fff; border: 1px solid var(--line); padding: 8px; overflow: auto; max-height: 420px; }
.diff td.before { background: #fef2f2; } .diff td.after { background: #f0fdf4; }
.actions form { display: inline-block; margin: 0 8px 8px 0; }
.pager { display: flex; gap: 16px; }
figure.chart.empty { min-height: 0; }
figure.chart { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 0; padding: 8px; min-height: 260px; }
figcaption { font-weight: 600; margin-bottom: 4px; }
form.job-form { max-width: 720px; }
`;

/**
 * What the pages' controls do without inline handlers (the Content-Security-Policy allows no
 * inline script): a select marked data-submit-on-change submits its form (the account switcher),
 * one with data-reload goes to that address plus its value (the job form's kind).
 */
const BEHAVIOUR = `
document.addEventListener('change', (event) => {
  const select = event.target;
  if (!(select instanceof HTMLSelectElement)) return;
  if (select.hasAttribute('data-submit-on-change')) select.form?.submit();
  else if (select.dataset.reload !== undefined) location.href = select.dataset.reload + encodeURIComponent(select.value);
});
`;

/** Draws every figure.chart from its data-chart JSON with uPlot (lines over dates, or bars per label). */
const CHARTS = `
function drawCharts() {
  for (const figure of document.querySelectorAll('figure.chart:not([data-drawn])')) {
    figure.setAttribute('data-drawn', '1');
    const data = JSON.parse(figure.dataset.chart);
    const names = Object.keys(data.series);
    const colours = ['#1d4ed8', '#16a34a', '#dc2626', '#d97706', '#7c3aed'];
    const bars = figure.dataset.kind === 'bars';
    const xs = bars ? data.x.map((_, i) => i) : data.x.map((d) => Date.parse(d) / 1000);
    const values = names.flatMap((name) => data.series[name]);
    const low = Math.min(0, ...values), high = Math.max(0, ...values);
    const opts = {
      width: Math.max(260, figure.clientWidth - 20), height: 220,
      scales: {
        // Bars: one slot per label, half a slot of room at each end so the first and last bars are whole.
        x: bars ? { time: false, range: () => [-0.5, data.x.length - 0.5] } : { time: true },
        // Always from zero: a bar's height is its value, not its difference from the smallest.
        y: { range: () => [low, high === low ? 1 : high + (high - low) * 0.05] },
      },
      axes: [
        bars ? { values: (_, ticks) => ticks.map((t) => Number.isInteger(t) ? (data.x[t] ?? '') : ''), splits: () => data.x.map((_, i) => i) } : {},
        { size: 80, values: (_, ticks) => ticks.map((t) => t.toLocaleString('en-US')) },
      ],
      series: [bars ? { label: 'of', value: (_, v) => (v == null ? '--' : (data.x[v] ?? '')) } : {}, ...names.map((name, i) => ({
        label: name, stroke: colours[i % colours.length], width: 2,
        fill: bars ? colours[i % colours.length] + '99' : undefined,
        paths: bars ? uPlot.paths.bars({ size: [0.6, 60] }) : undefined,
        points: bars ? { show: false } : undefined,
      }))],
    };
    new uPlot(opts, [xs, ...names.map((name) => data.series[name])], figure);
  }
}
document.addEventListener('DOMContentLoaded', drawCharts);
document.addEventListener('htmx:afterSwap', drawCharts);
`;

/** Times in the viewer's time zone: each <time class="local"> rewritten, every time's exact moment on hover. */
const TIMES = `
function localTimes(root) {
  for (const time of root.querySelectorAll('time[datetime]:not([data-local])')) {
    const at = new Date(time.getAttribute('datetime'));
    if (Number.isNaN(at.getTime()) || !time.getAttribute('datetime').includes('T')) continue;
    time.setAttribute('data-local', '1');
    const exact = at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
    time.title = exact;
    if (time.classList.contains('local'))
      time.textContent = at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }
}
document.addEventListener('DOMContentLoaded', () => localTimes(document));
document.addEventListener('htmx:afterSwap', (event) => localTimes(event.target.parentNode || document));
`;

/** The console's icon: a small invoice with a mirrored fold, as SVG (browsers take it at /favicon.ico). */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="5" y="2" width="22" height="28" rx="3" fill="#1d4ed8"/><path d="M10 10h12M10 15h12M10 20h8" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/></svg>`;

const fromPackage = (path: string): string => readFileSync(createRequire(import.meta.url).resolve(path), 'utf8');

export function serveAssets(app: ConsoleApp): void {
  const files: Record<string, { type: string; load: () => string }> = {
    'console.css': { type: 'text/css', load: () => STYLE },
    'charts.js': { type: 'text/javascript', load: () => CHARTS },
    'times.js': { type: 'text/javascript', load: () => TIMES },
    'behaviour.js': { type: 'text/javascript', load: () => BEHAVIOUR },
    'jobform.js': { type: 'text/javascript', load: () => JOB_FORM_SCRIPT },
    'htmx.min.js': { type: 'text/javascript', load: () => fromPackage('htmx.org/dist/htmx.min.js') },
    'uPlot.iife.min.js': { type: 'text/javascript', load: () => fromPackage('uplot/dist/uPlot.iife.min.js') },
    'uPlot.min.css': { type: 'text/css', load: () => fromPackage('uplot/dist/uPlot.min.css') },
  };
  app.get('/favicon.ico', (c) => {
    c.header('content-type', 'image/svg+xml');
    c.header('cache-control', 'max-age=86400');
    return c.body(FAVICON);
  });
  const loaded = new Map<string, string>();
  app.get('/static/:name', (c) => {
    const name = c.req.param('name');
    const file = files[name];
    if (!file) return c.text(`not found: /static/${name}\n`, 404);
    if (!loaded.has(name)) loaded.set(name, file.load());
    c.header('content-type', `${file.type}; charset=utf-8`);
    c.header('cache-control', 'max-age=3600');
    return c.body(loaded.get(name)!);
  });
}
