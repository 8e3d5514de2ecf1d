/**
 * Records: each mirror table browsed and searched (paged in SQL, by key or by its first text
 * columns), and one record's page: its typed fields with their meanings, its lines, the raw JSON,
 * its history, the jobs that touched it, and the actions that fit it (reviewed in the job form
 * before anything is queued).
 */
import type { Kysely } from 'kysely';
import {
  BOOKKEEPING_COLUMNS,
  type Column,
  entityColumns,
  LINE_COLUMNS,
  labelOf,
  nameInWords,
  entityNamed,
  isEntityName,
  type EntityName,
  type EntitySpec,
} from '../../catalog/index.js';
import {
  documentLines,
  jobsTouchingRecord,
  mirrorCounts,
  recordByKey,
  recordHistory,
  searchRecords,
  type Database,
} from '../../db/index.js';
import { precheckRefusal, type JobKindName } from '../../jobs/index.js';
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
  columnHead,
  formatNumber,
  html,
  MAX_INTEGER_ID,
  page,
  pageOf,
  pager,
  pathId,
  recordLink,
  unknownEntityPage,
  valueCell,
  type Html,
} from '../layout.js';
import { historyTable } from './changes.js';

const PAGE_ROWS = 50;
const LIST_COLUMNS = 6;

/**
 * The columns a person looks for in each list, in order (the others show their first columns).
 * The first links to the record; a client number links to its client.
 */
const LIST_COLUMNS_OF: Partial<Record<EntityName, readonly string[]>> = {
  invoices: ['invoicenr_full', 'clientnr', 'company', 'sent', 'duedate', 'totalintax', 'open'],
  saved_invoices: ['name', 'clientnr', 'company', 'totalintax'],
  quotations: ['id', 'quotationreference', 'clientnr', 'company', 'date', 'totalintax', 'customstatus'],
  clients: ['clientnr', 'company', 'city', 'email'],
  products: ['id', 'code', 'name', 'priceintax', 'stock'],
  repeating_invoices: ['id', 'name', 'clientnr', 'company', 'frequency', 'totalintax'],
};
const SEARCHED_COLUMNS = 4;

type Row = Record<string, unknown>;

interface RecordAction {
  label: string;
  kind: JobKindName;
  payload: (id: number, row: Row) => unknown;
}

const today = () => new Date().toISOString().slice(0, 10);

/** The actions offered on a record's page, by entity; also the kinds whose jobs are listed there. */
const ACTIONS: Partial<Record<EntityName, RecordAction[]>> = {
  saved_invoices: [
    { label: 'Send this saved invoice', kind: 'send_saved_invoices', payload: (id) => ({ ids: [id], delete: false }) },
    { label: 'Delete it', kind: 'delete_saved_invoice', payload: (id) => ({ id }) },
  ],
  quotations: [
    {
      label: 'Approve this quotation',
      kind: 'approve_quotation',
      payload: (id) => ({ id, name: '', date: today(), comments: '' }),
    },
    { label: 'Send it', kind: 'send_quotation', payload: (id) => ({ id, sendmethod: 'email' }) },
    { label: 'Set its status', kind: 'set_quotation_status', payload: (id) => ({ id, customstatus: 'progress' }) },
  ],
  products: [
    {
      label: "Set this product's stock",
      kind: 'set_product_stock',
      payload: (id, row) => ({ id, stock: Number(row.stock ?? 0) }),
    },
    { label: 'Update it', kind: 'update_product', payload: (id) => ({ id, changes: {} }) },
  ],
  clients: [{ label: 'Update this client', kind: 'update_client', payload: (id) => ({ clientnr: id, changes: {} }) }],
  repeating_invoices: [
    { label: 'Delete this repeating invoice', kind: 'delete_repeating_invoice', payload: (id) => ({ id }) },
  ],
  invoices: [
    {
      label: 'Register a payment',
      kind: 'register_payment',
      payload: (id) => ({ id, amount: 'full', date: today(), method: 'bank' }),
    },
    { label: 'Send a reminder', kind: 'send_reminder', payload: (id) => ({ id, attach_invoice: true }) },
    { label: 'Fetch its PDF', kind: 'fetch_invoice_pdf', payload: (id) => ({ id }) },
  ],
};

async function entitiesPage(db: Kysely<Database>, view: Viewing): Promise<Html> {
  const counts = await mirrorCounts(db, view.scope);
  return page(
    'Records',
    html`<table><thead><tr><th>entity</th><th class="num">records</th><th class="num">marked deleted</th></tr></thead><tbody>
      ${counts.map(
        (c) =>
          html`<tr><td><a href="${link(view, `/records/${c.table}`)}">${c.table}</a></td><td class="num">${formatNumber(c.live)}</td><td class="num">${formatNumber(c.deleted)}</td></tr>`,
      )}</tbody></table>`,
    { view, section: '/records' },
  );
}

async function listPage(
  db: Kysely<Database>,
  view: Viewing,
  entity: EntityName,
  url: string,
  query: Record<string, string>,
): Promise<Html> {
  const definition = entityNamed(entity);
  const columns = entityColumns(entity).filter((c) => c.type !== 'jsonb');
  const byName = new Map(columns.map((c) => [c.name, c]));
  const chosen = (LIST_COLUMNS_OF[entity] ?? columns.slice(0, LIST_COLUMNS).map((c) => c.name)).filter((name) =>
    byName.has(name),
  );
  const shown: Column[] = chosen.map((name) => byName.get(name)!);
  const fetched = chosen.includes(definition.key) ? chosen : [definition.key, ...chosen];
  const searched = columns.filter((c) => c.type === 'text').slice(0, SEARCHED_COLUMNS);
  const q = (query.q ?? '').trim();
  const pageNumber = pageOf(query);
  const rows = await searchRecords(db, view.scope, entity, {
    columns: fetched,
    searched: searched.map((c) => c.name),
    q,
    limit: PAGE_ROWS + 1,
    offset: (pageNumber - 1) * PAGE_ROWS,
  });
  const numeric = (c: Column) => c.type === 'integer' || c.type === 'numeric';
  const several = showsSeveral(view);
  return page(
    `Records: ${entity}`,
    html`<form class="filters" method="get">
        ${accountInput(view)}
        <label>search (${[byName.get(definition.key) ?? { name: definition.key, doc: '' }, ...searched].map((c) => labelOf(c)).join(', ')})
          <input name="q" value="${q}" size="40" /></label>
        <button type="submit">Search</button>
      </form>
      <table class="records"><thead><tr>${several ? html`<th>account</th>` : ''}${shown.map((c) => columnHead(c, numeric(c)))}<th></th></tr></thead><tbody>
      ${rows.slice(0, PAGE_ROWS).map((row) => {
        // A row of all accounts links to its own account's pages.
        const name = several ? accountName(view, row.account_id) : undefined;
        const self = link(view, `/records/${entity}/${encodeURIComponent(String(row[definition.key]))}`, name);
        const refers = (c: Column) => {
          const target = recordLink(entity, c.name, row[c.name]);
          return target && link(view, target, name);
        };
        return html`<tr>${several ? html`<td>${name}</td>` : ''}${shown.map((c, i) =>
          valueCell(row[c.name], c, i === 0 ? self : refers(c)),
        )}<td>${row.deleted_at ? badge('deleted') : ''}</td></tr>`;
      })}
      </tbody></table>
      ${rows.length === 0 ? html`<p class="muted">No record matches.</p>` : ''}
      ${pager(url, pageNumber, rows.length > PAGE_ROWS)}`,
    { view, section: '/records' },
  );
}

/**
 * The actions the kind's pre-check accepts for this record now (a paid invoice takes no payment,
 * a draft quotation no approval): the rule lives in the kind, asked here, never repeated.
 */
async function fittingActions(
  db: Kysely<Database>,
  accountId: number,
  actions: readonly RecordAction[],
  id: number,
  row: Row,
): Promise<{ label: string; kind: JobKindName; payload: unknown }[]> {
  const offered = await Promise.all(
    actions.map(async (action) => {
      const payload = action.payload(id, row);
      // issue 31: the account-taking signature of the jobs-accounts branch.
      return (await precheckRefusal(db, accountId, action.kind, payload)) === null ? { ...action, payload } : null;
    }),
  );
  return offered.filter((action) => action !== null);
}

type JobRow = Awaited<ReturnType<typeof jobsTouchingRecord>>[number];

/** One record of one account: fields, raw JSON, lines, the jobs that touched it, its latest changes, the actions that fit. */
async function recordPage(
  db: Kysely<Database>,
  view: Viewing,
  accountId: number,
  entity: EntityName,
  idText: string,
): Promise<Html | null> {
  const definition: EntitySpec = entityNamed(entity);
  // Keys are `integer` columns: a larger number names no record.
  const id = /^\d+$/.test(idText) ? pathId(idText, MAX_INTEGER_ID) : null;
  if (id === null) return null;
  const row = await recordByKey(db, accountId, entity, id);
  if (!row) return null;
  const actions = ACTIONS[entity] ?? [];
  const [lines, versions, jobs, fitting] = await Promise.all([
    definition.documentType ? documentLines(db, accountId, definition.documentType, id) : Promise.resolve([]),
    recordHistory(db, accountId, entity, idText),
    jobsTouchingRecord(
      db,
      accountId,
      actions.map((action) => action.kind),
      id,
    ),
    fittingActions(db, accountId, actions, id, row),
  ]);
  const fields = [...entityColumns(entity), ...BOOKKEEPING_COLUMNS].filter((c) => c.name !== 'raw');
  return page(
    `${definition.label} ${id}`,
    html`${row.deleted_at ? html`<p>${badge('deleted')} marked deleted ${ago(row.deleted_at as Date)}: the service no longer lists it.</p>` : ''}
      <div class="actions">
        ${fitting.map(
          (action) =>
            html`<form method="get" action="/jobs/new">${accountInput(view)}<input type="hidden" name="kind" value="${action.kind}" />
              <input type="hidden" name="payload" value="${JSON.stringify(action.payload)}" /><button type="submit">${action.label}…</button></form>`,
        )}
        <a href="${link(view, `/changes/${entity}/${id}`)}">History (${versions.length} change${versions.length === 1 ? '' : 's'})</a>
      </div>
      <div class="grid">
        <section>
          <h2>Fields</h2>
          <table class="fields"><tbody>${fields.map((c) => {
            const target = recordLink(entity, c.name, row[c.name]);
            return html`<tr>${columnHead(c)}${valueCell(row[c.name], c, target && link(view, target))}</tr>`;
          })}</tbody></table>
        </section>
        <section><h2>Raw JSON (as stored: jsonb orders the keys)</h2><pre>${JSON.stringify(row.raw, null, 2)}</pre></section>
      </div>
      ${definition.documentType ? html`<h2>Lines</h2>${lines.length === 0 ? html`<p class="muted">No lines.</p>` : linesTable(lines)}` : ''}
      <h2>Jobs that touched it</h2>
      ${jobsTable(view, jobs)}
      <h2>Latest changes</h2>
      ${historyTable(versions.slice(0, 5))}`,
    { view, section: '/records' },
  );
}

function jobsTable(view: Viewing, jobs: readonly JobRow[]): Html {
  if (jobs.length === 0) return html`<p class="muted">None.</p>`;
  return html`<table><thead><tr><th>job</th><th>kind</th><th>status</th><th>queued</th><th>last error</th></tr></thead><tbody>
    ${jobs.map(
      (
        job,
      ) => html`<tr><td><a href="${link(view, `/jobs/${String(job.id)}`)}">${String(job.id)}</a></td><td>${String(job.kind)}</td>
        <td>${badge(String(job.status))}</td><td>${ago(job.created_at as Date)}</td>${valueCell(job.last_error, { name: 'last_error', type: 'text' })}</tr>`,
    )}</tbody></table>`;
}

/** A document's lines; the keys that tie them to the document (its account, type and id) are left out. */
function linesTable(lines: readonly Row[]): Html {
  const known = new Map<string, Column>(LINE_COLUMNS.map((c) => [c.name, c]));
  const hidden = new Set(['account_id', 'document_type', 'document_id']);
  const names = Object.keys(lines[0]!).filter((name) => !hidden.has(name));
  const columnOf = (name: string): Column =>
    known.get(name) ?? { name, type: 'integer', doc: `${name} of the line`, label: nameInWords(name) };
  return html`<table><thead><tr>${names.map((n) => {
    const c = columnOf(n);
    return columnHead(c, c.type === 'numeric' || c.type === 'integer');
  })}</tr></thead><tbody>
    ${lines.map((line) => html`<tr>${names.map((n) => valueCell(line[n], columnOf(n)))}</tr>`)}</tbody></table>`;
}

export function recordRoutes(app: ConsoleApp, db: Kysely<Database>): void {
  app.get('/records', async (c) => c.html(await entitiesPage(db, c.get('view'))));
  app.get('/records/:entity', async (c) => {
    const view = c.get('view');
    const entity = c.req.param('entity');
    if (!isEntityName(entity)) return c.html(unknownEntityPage(entity, view), 404);
    return c.html(await listPage(db, view, entity, c.req.url, c.req.query()));
  });
  app.get('/records/:entity/:id', async (c) => {
    const view = c.get('view');
    const entity = c.req.param('entity');
    if (!isEntityName(entity)) return c.html(unknownEntityPage(entity, view), 404);
    const id = c.req.param('id');
    const title = `${entityNamed(entity).label} ${id}`;
    // A record's key is unique only within its account.
    if (!view.account)
      return c.html(page(title, chooseAccount(view, 'a record', c.req.path), { view, section: '/records' }));
    const found = await recordPage(db, view, view.account.id, entity, id);
    if (found) return c.html(found);
    const where = view.accounts.length > 1 ? `account ${view.account.name}` : 'the mirror';
    return c.html(
      page('Not found', html`<p class="error">No ${entityNamed(entity).label} ${id} in ${where}.</p>`, { view }),
      404,
    );
  });
}
