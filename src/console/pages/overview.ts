/**
 * Overview: did the last syncs work, what is held back, what is queued. Every figure is one
 * aggregate query; nothing here grows with the size of the mirror but the 30-day change count.
 */
import type { Hono } from 'hono';
import type { Kysely } from 'kysely';
import { ENTITY_NAMES, isEntityName } from '../../catalog/index.js';
import {
  countJobsByStatus,
  dailyActivity,
  HELD_DELETES_EXPLAINED,
  heldDeletes,
  heldDeletesAdvice,
  lastCompletePulls,
  lastRateLimit,
  needsAttention,
  rejectedValuesByField,
  runDetails,
  type AttentionItem,
  type AttentionOptions,
  type Database,
} from '../../db/index.js';
import { JOB_STATUSES } from '../../jobs/index.js';
import { keepHoldingDeletes, releaseHeldDeletes } from '../../sync/index.js';
import { ago, badge, chart, formatNumber, html, page, text, type Html } from '../layout.js';

/** The one list of what needs attention, each item with its remedy. */
function attentionCard(items: readonly AttentionItem[]): Html {
  return html`<section class="card">
    <h2>Needs attention</h2>
    ${
      items.length === 0
        ? html`<p class="muted">Nothing: the syncs work and nothing is held back.</p>`
        : html`<ul>${items.map((item) => html`<li><strong>${item.text}</strong>: ${item.remedy}</li>`)}</ul>`
    }
  </section>`;
}

/** Release (the deletes are real: apply them) or keep holding, each behind a confirmation saying what it risks. */
function heldDeleteActions(entity: string): Html {
  return html`<div class="actions">
    <a href="/held-deletes/${entity}/release">Release…</a>
    <a href="/held-deletes/${entity}/keep">Keep holding…</a>
    <span class="muted">(or ${heldDeletesAdvice(entity)})</span></div>`;
}

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

/** The confirmation of a decision about an entity's held deletes, and the decision itself. */
export function heldDeleteRoutes(app: Hono, db: Kysely<Database>): void {
  app.get('/held-deletes/:entity/:decision{release|keep}', async (c) => {
    const entity = c.req.param('entity');
    const decision = HELD_DECISIONS[c.req.param('decision') as keyof typeof HELD_DECISIONS];
    const held = (await heldDeletes(db)).find((row) => row.entity === entity);
    if (!isEntityName(entity) || !held)
      return c.html(page('Not found', html`<p class="error">No deletes of ${entity} are held.</p>`), 404);
    return c.html(
      page(
        `${decision.title}: ${entity}`,
        html`<p>${decision.risk(entity, held.held)}</p>
          <form method="post"><button type="submit">${decision.button}</button> <a href="/">Back</a></form>`,
        { section: '/' },
      ),
    );
  });
  app.post('/held-deletes/:entity/:decision{release|keep}', async (c) => {
    const entity = c.req.param('entity');
    if (!isEntityName(entity)) return c.html(page('Not found', html`<p class="error">No entity ${entity}.</p>`), 404);
    if (c.req.param('decision') === 'release') await releaseHeldDeletes(db, entity);
    else await keepHoldingDeletes(db, entity);
    return c.redirect('/', 303);
  });
}

export async function overviewPage(db: Kysely<Database>, attention: AttentionOptions = {}): Promise<Html> {
  const [runs, days, lastComplete, held, rejected, queue, budget, items] = await Promise.all([
    runDetails(db, 8),
    dailyActivity(db, 30),
    lastCompletePulls(db),
    heldDeletes(db),
    rejectedValuesByField(db),
    countJobsByStatus(db),
    lastRateLimit(db),
    needsAttention(db, attention),
  ]);
  const latest = runs[0];
  const body = html`
    ${attentionCard(items)}
    <div class="grid">
      <section class="card">
        <h2>Last sync</h2>
        ${
          latest
            ? html`<p>Run <strong>${latest.id}</strong> (${latest.kind}) ${badge(latest.status)} started ${ago(latest.started_at)},
                took ${latest.seconds === null ? 'so far unknown' : `${latest.seconds.toFixed(1)} s`}, ${latest.requests_made ?? 0} requests.</p>
                ${latest.error ? html`<p class="error">${latest.error}</p>` : ''}`
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
              html`<tr><td>${badge(status)}</td><td class="num"><a href="/jobs?status=${status}">${queue[status] ?? 0}</a></td></tr>`,
          )}
        </tbody></table>
      </section>
    </div>
    <h2>Per entity (last run)</h2>
    <table>
      <thead><tr><th>entity</th>${['fetched', 'inserted', 'updated', 'deleted', 'held', 'rejected', 'unchanged'].map((n) => html`<th class="num">${n}</th>`)}<th>last complete pull</th></tr></thead>
      <tbody>
        ${ENTITY_NAMES.map((entity) => {
          const counts = latest?.counts?.[entity];
          return html`<tr><td><a href="/records/${entity}">${entity}</a></td>
            ${['fetched', 'inserted', 'updated', 'deleted', 'held', 'rejected', 'unchanged'].map(
              (name) => html`<td class="num">${counts ? formatNumber(Number(counts[name] ?? 0)) : '—'}</td>`,
            )}
            <td>${ago(lastComplete.get(entity) ?? null)}</td></tr>`;
        })}
      </tbody>
    </table>
    <h2>Last 30 days</h2>
    ${chart('lines', 'Records fetched, changes and failed runs per day', {
      x: days.map((d) => d.day),
      series: {
        'records fetched': days.map((d) => d.fetched),
        changes: days.map((d) => d.changes),
        'failed runs': days.map((d) => d.failures),
      },
    })}
    <h2>Held deletes</h2>
    ${
      held.length === 0
        ? html`<p class="muted">None: every record missing upstream was marked deleted, or none was missing.</p>`
        : html`<p>Held deletes: ${HELD_DELETES_EXPLAINED}</p>
            <table><thead><tr><th>entity</th><th class="num">held</th><th>since</th><th>decide</th></tr></thead><tbody>
            ${held.map(
              (row) =>
                html`<tr><td>${row.entity}</td><td class="num">${row.held}</td><td>${ago(row.since)}</td><td>${heldDeleteActions(row.entity)}</td></tr>`,
            )}
            </tbody></table>`
    }
    <h2>Rejected values</h2>
    ${
      rejected.length === 0
        ? html`<p class="muted">None: every value was stored as the service sent it.</p>`
        : html`<p>Values stored other than as sent (the rest of each record is stored). Correct them in the service; the next sync that reads them clears them here.</p>
            <table><thead><tr><th>entity</th><th>field</th><th class="num">records</th><th>for example</th><th>reason</th><th>last seen</th></tr></thead><tbody>
            ${rejected.map(
              (row) => html`<tr><td>${row.entity}</td><td>${row.field}</td><td class="num">${row.values}</td>
                <td><a href="/records/${row.entity}/${encodeURIComponent(row.example_id)}">${row.example_id}</a></td><td>${row.reason}</td><td>${ago(row.last_seen_at)}</td></tr>`,
            )}
            </tbody></table>`
    }
    <h2>Recent runs</h2>
    <table>
      <thead><tr><th>run</th><th>kind</th><th>status</th><th>started</th><th class="num">seconds</th><th class="num">requests</th><th>error</th></tr></thead>
      <tbody>${runs.map(
        (
          run,
        ) => html`<tr><td>${run.id}</td><td>${run.kind}</td><td>${badge(run.status)}</td><td>${ago(run.started_at)}</td>
          <td class="num">${run.seconds === null ? '—' : run.seconds.toFixed(1)}</td><td class="num">${run.requests_made === null ? '—' : formatNumber(run.requests_made)}</td><td>${text(run.error)}</td></tr>`,
      )}</tbody>
    </table>`;
  return page('Overview', body, { section: '/' });
}
