/**
 * The VAT return of one account and period, as a bookkeeper reads it beside the tax form: each
 * rubric (or Belgian grid) with its number, its Dutch and English name, base and VAT right-aligned
 * with two decimals, what is not covered said so (never 0), and the period's unclassified entries
 * linked to their list. The figures are the report views' own (vat_return_nl, vat_return_be,
 * vat_problems), read through the one report runner, so the page shows what `report` prints.
 */
import { sql, type Kysely } from 'kysely';
import { findReport } from '../../catalog/index.js';
import type { Database } from '../../db/index.js';
import { runReport } from '../../reports/index.js';
import { chooseAccount, link, type ConsoleApp, type Viewing } from '../accounts.js';
import { formatNumber, html, page, valueCell, type Html } from '../layout.js';

const money = (value: unknown): Html =>
  value === null || value === undefined
    ? html`<td class="num muted">—</td>`
    : html`<td class="num money">${formatNumber(value as string | number, true)}</td>`;

/** The account's VAT country and the periods its return has, newest first. */
async function periodsOf(db: Kysely<Database>, accountId: number): Promise<{ country: string; periods: string[] }> {
  const { rows } = await sql<{ country: string; period: string | null }>`
    select a.vat_country as country, e.period
      from accounts a
      left join (select distinct account_id, quarter as period from vat_entries where quarter is not null) e
        on e.account_id = a.id
     where a.id = ${accountId}
     order by e.period desc`.execute(db);
  return { country: rows[0]?.country ?? 'NL', periods: rows.flatMap((row) => (row.period ? [row.period] : [])) };
}

function periodChoice(view: Viewing, periods: readonly string[], current: string): Html {
  return html`<form method="get" action="/vat" class="filters">
    ${view.account ? html`<input type="hidden" name="account" value="${view.account.name}" />` : ''}
    <label>Period <select name="period" onchange="this.form.submit()">${periods.map(
      (p) => html`<option value="${p}" ${p === current ? 'selected' : ''}>${p}</option>`,
    )}</select></label>
    <noscript><button type="submit">Show</button></noscript>
  </form>`;
}

async function vatPage(db: Kysely<Database>, view: Viewing, query: Record<string, string>): Promise<Html> {
  if (!view.account) return page('VAT return', chooseAccount(view, 'a VAT return', '/vat'), { view, section: '/vat' });
  const { country, periods } = await periodsOf(db, view.account.id);
  const period = query.period && /^\d{4}-(Q[1-4]|0[1-9]|1[0-2])$/.test(query.period) ? query.period : periods[0];
  if (!period)
    return page('VAT return', html`<p class="muted">No sent invoices yet, so no VAT return.</p>`, {
      view,
      section: '/vat',
    });
  const name = country === 'BE' ? 'vat_return_be' : 'vat_return_nl';
  const codeColumn = country === 'BE' ? 'grid' : 'rubric';
  const scope = { ids: [view.account.id] };
  const { rows } = await runReport(db, null, findReport(name)!, { scope, period });
  const shown = rows.filter((row) => row.period === period);
  const problems = Number(shown[0]?.unclassified_entries ?? 0);
  const first = shown[0];
  const title = `${country === 'BE' ? 'Belgian' : 'Dutch'} VAT return ${period}`;
  return page(
    title,
    html`${periodChoice(view, periods, period)}
      <p>${first ? `${String(first.period_start)} to ${String(first.period_end)}` : ''}, by the invoice date
        (factuurstelsel), from the service's own VAT per rate. Amounts in euros to the cent; the form takes whole
        euros. <a href="${link(view, `/reports/${name}`)}">All periods</a></p>
      ${
        problems > 0
          ? html`<p class="error" role="alert">${problems} VAT ${problems === 1 ? 'entry' : 'entries'} of this period
              cannot be classified and are in no ${codeColumn}:
              <a href="${link(view, `/vat/problems?period=${period}`)}">see the VAT problems</a>.</p>`
          : ''
      }
      <table class="vat-return"><thead><tr><th>${codeColumn}</th><th>naam</th><th>name</th>
        <th class="num">base (omzet)</th><th class="num">VAT (btw)</th><th class="num">entries</th><th>note</th></tr></thead>
      <tbody>${shown.map(
        (row) => html`<tr class="${row.coverage === 'no' ? 'muted' : ''}" data-code="${String(row[codeColumn])}">
          <td><strong>${String(row[codeColumn])}</strong></td><td>${String(row.name_nl)}</td><td>${String(row.name_en)}</td>
          ${money(row.base)}${money(row.vat)}
          ${row.entries === null ? html`<td class="num muted">—</td>` : valueCell(row.entries, { name: 'entries', type: 'integer' })}
          <td>${row.coverage === 'no' ? 'not covered: ' : ''}${String(row.note).replace(/^not covered: /, '')}</td></tr>`,
      )}</tbody></table>`,
    { view, section: '/vat' },
  );
}

async function problemsPage(db: Kysely<Database>, view: Viewing, query: Record<string, string>): Promise<Html> {
  if (!view.account)
    return page('VAT problems', chooseAccount(view, 'the VAT problems', '/vat/problems'), { view, section: '/vat' });
  const period = query.period && /^\d{4}-(Q[1-4]|0[1-9]|1[0-2])$/.test(query.period) ? query.period : undefined;
  const { rows } = await runReport(db, null, findReport('vat_problems')!, {
    scope: { ids: [view.account.id] },
    period,
  });
  return page(
    `VAT problems${period ? ` ${period}` : ''}`,
    html`<p>Entries the VAT return cannot classify, each with what to do. <a href="${link(view, '/vat')}">Back to the VAT return</a></p>
      <table><thead><tr><th>invoice</th><th>date</th><th>client</th><th>country</th><th class="num">rate</th>
        <th class="num">base</th><th class="num">VAT</th><th>problem</th><th>what to do</th></tr></thead>
      <tbody>${rows.map(
        (
          row,
        ) => html`<tr><td><a href="${link(view, `/records/invoices/${String(row.invoice_id)}`)}">${String(row.invoice_number ?? row.invoice_id)}</a></td>
          <td>${String(row.invoice_date ?? '—')}</td><td>${String(row.client_name ?? '—')}</td><td>${String(row.country_name ?? '—')}</td>
          ${valueCell(row.rate, { name: 'rate', type: 'numeric' })}${money(row.base)}${money(row.vat)}
          <td>${String(row.problem)}</td><td>${String(row.what_to_do)}</td></tr>`,
      )}</tbody></table>
      ${rows.length === 0 ? html`<p class="muted">No problems.</p>` : ''}`,
    { view, section: '/vat' },
  );
}

export function vatRoutes(app: ConsoleApp, db: Kysely<Database>): void {
  app.get('/vat', async (c) => c.html(await vatPage(db, c.get('view'), c.req.query())));
  app.get('/vat/problems', async (c) => c.html(await problemsPage(db, c.get('view'), c.req.query())));
}
