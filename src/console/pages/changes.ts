/**
 * Changes: the change feed of the accounts shown, filtered by entity, operation and date (paged in
 * SQL, newest first), and one record's history in one account: every version, which fields
 * changed, before and after side by side.
 */
import type { Kysely } from 'kysely';
import { ENTITY_NAMES, isEntityName } from '../../catalog/index.js';
import { changeFeed, recordByKey, recordHistory, type Database, type VersionRow } from '../../db/index.js';
import {
  accountInput,
  accountName,
  chooseAccount,
  link,
  showsSeveral,
  type ConsoleApp,
  type Viewing,
} from '../accounts.js';
import {
  ago,
  badge,
  html,
  MAX_INTEGER_ID,
  notFoundPage,
  page,
  pageOf,
  pager,
  pathId,
  text,
  unknownEntityPage,
  type Html,
} from '../layout.js';

const PAGE_ROWS = 50;
const OPS = ['insert', 'update', 'delete', 'restore'] as const;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

async function feedPage(
  db: Kysely<Database>,
  view: Viewing,
  url: string,
  query: Record<string, string>,
): Promise<Html> {
  const problems: string[] = [];
  const entity = isEntityName(query.entity ?? '') ? query.entity! : null;
  const op = (OPS as readonly string[]).includes(query.op ?? '') ? query.op! : null;
  const date = (name: 'from' | 'to'): string | null => {
    const value = query[name] ?? '';
    if (value === '') return null;
    if (DATE.test(value) && !Number.isNaN(Date.parse(value))) return value;
    problems.push(`${name}: "${value}" is not a date; use YYYY-MM-DD`);
    return null;
  };
  const [from, to] = [date('from'), date('to')];
  const pageNumber = pageOf(query);
  const rows = await changeFeed(
    db,
    view.scope,
    { entity, op, from, to },
    { limit: PAGE_ROWS + 1, offset: (pageNumber - 1) * PAGE_ROWS },
  );
  const several = showsSeveral(view);
  const option = (value: string, selected: string | null) =>
    html`<option value="${value}" ${value === selected ? 'selected' : ''}>${value}</option>`;
  return page(
    'Changes',
    html`<form class="filters" method="get">
        ${accountInput(view)}
        <label>entity <select name="entity"><option value="">any</option>${ENTITY_NAMES.map((e) => option(e, entity))}</select></label>
        <label>operation <select name="op"><option value="">any</option>${OPS.map((o) => option(o, op))}</select></label>
        <label>from <input name="from" type="date" value="${query.from ?? ''}" /></label>
        <label>to <input name="to" type="date" value="${query.to ?? ''}" /></label>
        <button type="submit">Filter</button>
      </form>
      ${problems.map((problem) => html`<p class="error">${problem}</p>`)}
      <table>
        <thead><tr><th>change</th>${several ? html`<th>account</th>` : ''}<th>detected</th><th>entity</th><th>record</th><th>operation</th><th>fields changed</th><th>run</th></tr></thead>
        <tbody>${rows.slice(0, PAGE_ROWS).map((row) => {
          const name = several ? accountName(view, row.account_id) : undefined;
          const history = link(view, `/changes/${row.entity}/${encodeURIComponent(row.entity_id)}`, name);
          return html`<tr><td>${row.id}</td>${several ? html`<td>${name}</td>` : ''}<td>${ago(row.detected_at)}</td><td>${row.entity}</td>
            <td><a href="${history}">${row.entity_id}</a></td><td>${badge(row.op)}</td>
            <td>${row.changed_fields?.join(', ') ?? '—'}</td><td>${text(row.sync_run_id)}</td></tr>`;
        })}</tbody>
      </table>
      ${rows.length === 0 ? html`<p class="muted">No change matches.</p>` : ''}
      ${pager(url, pageNumber, rows.length > PAGE_ROWS)}`,
    { view, section: '/changes' },
  );
}

/** One version's fields that differ between before and after (all of them for an insert or delete). */
function differences(row: VersionRow): { field: string; before: unknown; after: unknown }[] {
  const fields = new Set([...Object.keys(row.before ?? {}), ...Object.keys(row.after ?? {})]);
  return [...fields]
    .filter((field) => JSON.stringify(row.before?.[field]) !== JSON.stringify(row.after?.[field]))
    .map((field) => ({ field, before: row.before?.[field], after: row.after?.[field] }));
}

export function historyTable(versions: readonly VersionRow[]): Html {
  if (versions.length === 0) return html`<p class="muted">No change recorded for this record.</p>`;
  return html`${versions.map(
    (
      version,
    ) => html`<h2>${badge(version.op)} change ${version.id}, ${ago(version.detected_at)}${version.sync_run_id ? `, run ${version.sync_run_id}` : ''}</h2>
      <table class="diff"><thead><tr><th>field</th><th>before</th><th>after</th></tr></thead><tbody>
        ${differences(version).map(
          (d) =>
            html`<tr><td>${d.field}</td><td class="before">${text(d.before)}</td><td class="after">${text(d.after)}</td></tr>`,
        )}
      </tbody></table>`,
  )}`;
}

export function changeRoutes(app: ConsoleApp, db: Kysely<Database>): void {
  app.get('/changes', async (c) => c.html(await feedPage(db, c.get('view'), c.req.url, c.req.query())));
  app.get('/changes/:entity/:id', async (c) => {
    const view = c.get('view');
    const entity = c.req.param('entity');
    const id = c.req.param('id');
    if (!isEntityName(entity)) return c.html(unknownEntityPage(entity, view), 404);
    const title = `History of ${entity} ${id}`;
    // A record's id is unique only within its account.
    if (!view.account)
      return c.html(page(title, chooseAccount(view, 'a record', c.req.path), { view, section: '/changes' }));
    const versions = await recordHistory(db, view.account.id, entity, id);
    // A record with no history yet is still one; an id that names no record, and has none, is not.
    const key = pathId(id, MAX_INTEGER_ID);
    if (versions.length === 0 && (key === null || !(await recordByKey(db, view.account.id, entity, key)))) {
      const where = view.accounts.length > 1 ? `account ${view.account.name}` : 'the mirror';
      return c.html(notFoundPage(`No ${entity} ${id} in ${where}, and no history of one.`, view), 404);
    }
    return c.html(
      page(
        title,
        html`<p><a href="${link(view, `/records/${entity}/${encodeURIComponent(id)}`)}">The record as it is now</a></p>${historyTable(versions)}`,
        { view, section: '/changes' },
      ),
    );
  });
}
