/**
 * Overview: with one account, did its last syncs work, what is held back, what is queued; with
 * all accounts, one row per account (its state, last complete sync, records, queue, what waits
 * for a person), each linking to its own overview. Every figure is one aggregate query; nothing
 * here grows with the size of the mirror but the 30-day change count and the record counts.
 */
import type { Kysely } from 'kysely';
import type { Account } from '../../accounts/store.js';
import { ENTITY_NAMES, isEntityName } from '../../catalog/index.js';
import {
  accountSummaries,
  countJobsByStatus,
  dailyActivity,
  HELD_DELETES_ADVICE_TEXT,
  HELD_DELETES_EXPLAINED,
  heldDeletes,
  lastCompletePulls,
  lastRateLimit,
  needsAttention,
  oneAccount,
  rejectedValuesByField,
  runDetails,
  type AccountSummary,
  type AttentionItem,
  type AttentionOptions,
  type Database,
} from '../../db/index.js';
import { JOB_STATUSES } from '../../jobs/index.js';
import { keepHoldingDeletes, releaseHeldDeletes } from '../../sync/index.js';
import { chooseAccount, link, stateText, type ConsoleApp, type Viewing } from '../accounts.js';
import { ago, badge, chart, formatNumber, html, page, text, timeOf, type Html } from '../layout.js';

/**
 * The one list of what needs attention, each item with what to do about it on this page: a link
 * or a button where the console does it, words where a person does (the CLI's commands are the
 * `status` command's wording of the same items).
 */
function attentionCard(view: Viewing, items: readonly AttentionItem[]): Html {
  return html`<section class="card">
    <h2>Needs attention</h2>
    ${
      items.length === 0
        ? html`<p class="muted">Nothing: the syncs work and nothing is held back.</p>`
        : html`<ul>${items.map((item) => html`<li><strong>${item.text}</strong>${attentionAction(view, item)}</li>`)}</ul>`
    }
  </section>`;
}

/** What the console offers for an item: where to decide on it, or what a person does elsewhere. */
function attentionAction(view: Viewing, item: AttentionItem): Html {
  // On the overview of all accounts the sections are on each account's own overview.
  const at = (anchor: string) => `${link(view, '/', view.account ? undefined : (item.account ?? undefined))}#${anchor}`;
  switch (item.kind) {
    case 'held_deletes':
      return html`: <a href="${at('held-deletes')}">release or keep them</a>`;
    case 'rejected_values':
      return html`: <a href="${at('rejected-values')}">see which</a>; correct them in the service and the next sync clears them`;
    case 'failed_pull':
      return html`: <a href="${at('runs')}">see its error</a>; the next sync tries again`;
    case 'interrupted_jobs':
      return html`: <a href="${link(view, '/jobs?status=interrupted', item.account ?? undefined)}">decide on each</a>`;
    case 'stale_pull':
    case 'no_pull':
    case 'stale_mirror':
    case 'no_success':
      return html`: check that the daemon runs and reaches the service (its log says why not)`;
    case 'rate_limit_spent':
      return html`: syncs and jobs go on by themselves in the next hour`;
    case 'unmapped_countries':
      return html`: <a href="${link(view, '/reports/vat_problems', item.account ?? undefined)}">see the VAT problems</a>; give those clients another country in the service`;
    default:
      return html``;
  }
}

/** Release (the deletes are real: apply them) or keep holding, each behind a confirmation saying what it risks. */
function heldDeleteActions(view: Viewing, entity: string): Html {
  return html`<div class="actions">
    <a class="button" href="${link(view, `/held-deletes/${entity}/release`)}">Release…</a>
    <a href="${link(view, `/held-deletes/${entity}/keep`)}">Keep holding…</a></div>`;
}

/** A sync's error as a page words it: without the command the held deletes' buttons replace. */
const runError = (error: string | null): string | null => error?.replace(HELD_DELETES_ADVICE_TEXT, '') ?? null;

const HELD_DECISIONS = {
  release: {
    title: 'Release the held deletes',
    button: 'Release: mark them deleted',
    risk: (entity: string, held: number) =>
      `Marks the ${held} held ${entity} records deleted now, as sync --allow-deletes ${entity} would. ` +
      'If the service only answered a short list by mistake, the mirror and its reports lack them until a complete pull lists them again.',
  },
  keep: {
    title: 'Keep holding the deletes',
    button: 'Keep holding',
    risk: (entity: string, held: number) =>
      `The ${held} ${entity} records stay live in the mirror, though the service no longer lists them: ` +
      'reports keep counting them until someone releases the deletes. The hold starts again now.',
  },
} as const;

/** The confirmation of a decision about an entity's held deletes in one account, and the decision itself. */
export function heldDeleteRoutes(app: ConsoleApp, db: Kysely<Database>): void {
  app.get('/held-deletes/:entity/:decision{release|keep}', async (c) => {
    const view = c.get('view');
    const entity = c.req.param('entity');
    const decision = HELD_DECISIONS[c.req.param('decision') as keyof typeof HELD_DECISIONS];
    if (!view.account)
      return c.html(page(decision.title, chooseAccount(view, 'a decision about held deletes', c.req.path), { view }));
    const held = (await heldDeletes(db, view.scope)).find((row) => row.entity === entity);
    if (!isEntityName(entity) || !held)
      return c.html(page('Not found', html`<p class="error">No deletes of ${entity} are held.</p>`, { view }), 404);
    return c.html(
      page(
        `${decision.title}: ${entity}`,
        html`<p>${decision.risk(entity, held.held)}</p>
          <form method="post" action="${link(view, c.req.path)}"><button type="submit">${decision.button}</button> <a href="${link(view, '/')}">Back</a></form>`,
        { view, section: '/' },
      ),
    );
  });
  app.post('/held-deletes/:entity/:decision{release|keep}', async (c) => {
    const view = c.get('view');
    const entity = c.req.param('entity');
    if (!isEntityName(entity))
      return c.html(page('Not found', html`<p class="error">No entity ${entity}.</p>`, { view }), 404);
    if (!view.account)
      return c.html(page('Held deletes', chooseAccount(view, 'a decision', c.req.path), { view }), 400);
    if (!(await heldDeletes(db, view.scope)).some((row) => row.entity === entity))
      return c.html(page('Not found', html`<p class="error">No deletes of ${entity} are held.</p>`, { view }), 404);
    // issue 31: the account-taking signatures of the sync-accounts branch.
    if (c.req.param('decision') === 'release') await releaseHeldDeletes(db, view.account.id, entity);
    else await keepHoldingDeletes(db, view.account.id, entity);
    return c.redirect(link(view, '/'), 303);
  });
}

/** `/`: the account's overview, or with all accounts (several, or none yet) one row per account. */
export async function overviewPage(
  db: Kysely<Database>,
  view: Viewing,
  attention: AttentionOptions = {},
): Promise<Html> {
  if (view.account) return accountOverview(db, view, view.account, attention);
  return allAccountsPage(db, view, attention);
}

async function allAccountsPage(db: Kysely<Database>, view: Viewing, attention: AttentionOptions): Promise<Html> {
  const [summaries, items] = await Promise.all([accountSummaries(db, 'all'), needsAttention(db, 'all', attention)]);
  const body = html`${attentionCard(view, items)}
    <h2>Accounts</h2>
    ${
      summaries.length === 0
        ? html`<p class="muted">No account yet: <code>invoice-mirror backfill</code> adds <code>default</code> (the INVOICING_API_* settings), <code>invoice-mirror accounts add</code> adds others.</p>`
        : accountsTable(view, summaries)
    }`;
  return page('All accounts', body, { view, section: '/' });
}

const count = (view: Viewing, n: number, path: string, name: string): Html =>
  html`<td class="num">${n === 0 ? '0' : html`<a href="${link(view, path, name)}">${formatNumber(n)}</a>`}</td>`;

/** One row per account; each figure links to where that account's rows are shown. */
function accountsTable(view: Viewing, summaries: readonly AccountSummary[]): Html {
  const byId = new Map<number, Account>(view.accounts.map((account) => [account.id, account]));
  return html`<table class="accounts"><thead><tr><th>account</th><th>state</th><th>last complete sync</th><th>age</th>
      <th class="num">records</th><th class="num">queued jobs</th><th class="num">held deletes</th><th class="num">rejected values</th><th>failing lists</th></tr></thead>
    <tbody>${summaries.map((row) => {
      const account = byId.get(row.id);
      return html`<tr><td><a href="${link(view, '/', row.name)}">${row.name}</a></td>
        <td>${stateCell(row, account)}</td>
        <td>${row.last_complete_sync_at ? timeOf(row.last_complete_sync_at) : html`<span class="muted">never</span>`}</td>
        <td>${row.sync_age_seconds === null ? '—' : ageOf(row.sync_age_seconds)}</td>
        ${count(view, row.records, '/records', row.name)}
        ${count(view, row.queued_jobs, '/jobs?status=queued', row.name)}
        ${count(view, row.held_deletes, '/', row.name)}
        ${count(view, row.rejected_values, '/', row.name)}
        <td>${row.failing_lists.length === 0 ? '—' : html`<span class="error">${row.failing_lists.join(', ')}</span>`}</td></tr>`;
    })}</tbody></table>`;
}

/** The state and why (what to do is its title, and in the attention list above). */
function stateCell(row: AccountSummary, account: Account | undefined): Html {
  if (row.state === 'active' || !account) return badge(row.state);
  const reason = row.state_reason ?? stateText(account);
  return html`<span title="${stateText(account)}">${badge(row.state)} <span class="reason">${reason}</span></span>`;
}

/** An age measured by the database's clock, as the other ages read ("3 min"). */
function ageOf(seconds: number): Html {
  return ago(new Date(Date.now() - seconds * 1000));
}

async function accountOverview(
  db: Kysely<Database>,
  view: Viewing,
  account: Account,
  attention: AttentionOptions,
): Promise<Html> {
  const scope = oneAccount(account.id);
  const [runs, days, lastComplete, held, rejected, queue, budget, items] = await Promise.all([
    runDetails(db, scope, 8),
    dailyActivity(db, scope, 30),
    lastCompletePulls(db, account.id),
    heldDeletes(db, scope),
    rejectedValuesByField(db, scope),
    countJobsByStatus(db, scope),
    lastRateLimit(db, scope),
    needsAttention(db, scope, attention),
  ]);
  const latest = runs[0];
  const body = html`
    ${attentionCard(view, items)}
    <div class="grid">
      <section class="card">
        <h2>Last sync</h2>
        ${
          latest
            ? html`<p>Run <strong>${latest.id}</strong> (${latest.kind}) ${badge(latest.status)} started ${ago(latest.started_at)},
                took ${latest.seconds === null ? 'so far unknown' : `${latest.seconds.toFixed(1)} s`}, ${latest.requests_made ?? 0} requests.</p>
                ${latest.error ? html`<p class="error">${runError(latest.error)}</p>` : ''}`
            : html`<p class="muted">No sync has run yet: run <code>invoice-mirror backfill</code>.</p>`
        }
        <p>Rate-limit budget last seen: ${
          budget
            ? html`<strong>${formatNumber(budget.remaining)}</strong> requests left, ${ago(budget.seenAt)}`
            : html`<span class="muted">not yet reported by the service</span>`
        }</p>
      </section>
      <section class="card">
        <h2>Job queue</h2>
        <table><tbody>
          ${JOB_STATUSES.map(
            (status) =>
              html`<tr><td>${badge(status)}</td><td class="num"><a href="${link(view, `/jobs?status=${status}`)}">${queue[status] ?? 0}</a></td></tr>`,
          )}
        </tbody></table>
      </section>
    </div>
    ${entityTable(view, latest?.counts ?? null, lastComplete)}
    <h2>Last 30 days</h2>
    ${chart('lines', 'Records fetched, changes and failed runs per day', {
      x: days.map((d) => d.day),
      series: {
        'records fetched': days.map((d) => d.fetched),
        changes: days.map((d) => d.changes),
        'failed runs': days.map((d) => d.failures),
      },
    })}
    ${heldSection(view, held)}
    ${rejectedSection(view, rejected)}
    ${runsTable(runs)}`;
  return page('Overview', body, { view, section: '/' });
}

const ENTITY_COUNTS = ['fetched', 'inserted', 'updated', 'deleted', 'held', 'rejected', 'unchanged'] as const;

function entityTable(
  view: Viewing,
  counts: Record<string, Record<string, number>> | null,
  lastComplete: Map<string, Date | null>,
): Html {
  return html`<h2>Per entity (last run)</h2>
    <table>
      <thead><tr><th>entity</th>${ENTITY_COUNTS.map((n) => html`<th class="num">${n}</th>`)}<th>last complete pull</th></tr></thead>
      <tbody>
        ${ENTITY_NAMES.map((entity) => {
          const of = counts?.[entity];
          return html`<tr><td><a href="${link(view, `/records/${entity}`)}">${entity}</a></td>
            ${ENTITY_COUNTS.map((name) => html`<td class="num">${of ? formatNumber(Number(of[name] ?? 0)) : '—'}</td>`)}
            <td>${ago(lastComplete.get(entity) ?? null)}</td></tr>`;
        })}
      </tbody>
    </table>`;
}

function heldSection(view: Viewing, held: Awaited<ReturnType<typeof heldDeletes>>): Html {
  return html`<h2 id="held-deletes">Held deletes</h2>
    ${
      held.length === 0
        ? html`<p class="muted">None: every record missing upstream was marked deleted, or none was missing.</p>`
        : html`<p>Held deletes: ${HELD_DELETES_EXPLAINED}</p>
            <table><thead><tr><th>entity</th><th class="num">held</th><th>since</th><th>decide</th></tr></thead><tbody>
            ${held.map(
              (row) =>
                html`<tr><td>${row.entity}</td><td class="num">${row.held}</td><td>${ago(row.since)}</td><td>${heldDeleteActions(view, row.entity)}</td></tr>`,
            )}
            </tbody></table>`
    }`;
}

function rejectedSection(view: Viewing, rejected: Awaited<ReturnType<typeof rejectedValuesByField>>): Html {
  return html`<h2 id="rejected-values">Rejected values</h2>
    ${
      rejected.length === 0
        ? html`<p class="muted">None: every value was stored as the service sent it.</p>`
        : html`<p>Values stored other than as sent (the rest of each record is stored). Correct them in the service; the next sync that reads them clears them here.</p>
            <table><thead><tr><th>entity</th><th>field</th><th class="num">records</th><th>for example</th><th>reason</th><th>last seen</th></tr></thead><tbody>
            ${rejected.map(
              (row) => html`<tr><td>${row.entity}</td><td>${row.field}</td><td class="num">${row.values}</td>
                <td><a href="${link(view, `/records/${row.entity}/${encodeURIComponent(row.example_id)}`)}">${row.example_id}</a></td><td>${row.reason}</td><td>${ago(row.last_seen_at)}</td></tr>`,
            )}
            </tbody></table>`
    }`;
}

function runsTable(runs: Awaited<ReturnType<typeof runDetails>>): Html {
  return html`<h2 id="runs">Recent runs</h2>
    <table>
      <thead><tr><th>run</th><th>kind</th><th>status</th><th>started</th><th class="num">seconds</th><th class="num">requests</th><th>error</th></tr></thead>
      <tbody>${runs.map(
        (
          run,
        ) => html`<tr><td>${run.id}</td><td>${run.kind}</td><td>${badge(run.status)}</td><td>${ago(run.started_at)}</td>
          <td class="num">${run.seconds === null ? '—' : run.seconds.toFixed(1)}</td><td class="num">${run.requests_made === null ? '—' : formatNumber(run.requests_made)}</td><td>${text(runError(run.error))}</td></tr>`,
      )}</tbody>
    </table>`;
}
