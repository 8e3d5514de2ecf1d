/**
 * Overview: did the last syncs work, what is held back, what is queued. Every figure is one
 * aggregate query; nothing here grows with the size of the mirror but the 30-day change count.
 */
import { sql, type Kysely } from 'kysely';
import { ENTITY_NAMES } from '../../catalog/index.js';
import { countJobsByStatus, heldDeletes, lastRateLimit, type Database } from '../../db/index.js';
import { JOB_STATUSES } from '../../jobs/index.js';
import { ago, badge, chart, html, page, text, type Html } from '../layout.js';

interface RunRow {
  id: string;
  kind: string;
  status: string;
  started_at: Date;
  seconds: number | null;
  requests_made: number | null;
  error: string | null;
  counts: Record<string, Record<string, number>> | null;
}

export async function overviewPage(db: Kysely<Database>): Promise<Html> {
  const [runs, days, pulls, held, rejected, queue, budget] = await Promise.all([
    sql<RunRow>`
      select id, kind, status, started_at, extract(epoch from finished_at - started_at)::float8 as seconds,
             requests_made, error, counts
        from sync_runs order by id desc limit 8`.execute(db),
    sql<{ day: string; fetched: number; changes: number; failures: number }>`
      with runs as (
        select started_at::date as day,
               count(*) filter (where status not in ('succeeded', 'running'))::int as failures,
               coalesce(sum((select sum((entity.value ->> 'fetched')::bigint) from jsonb_each(counts) as entity)), 0)::float8 as fetched
          from sync_runs where started_at >= current_date - 29 group by 1),
      changed as (
        select detected_at::date as day, count(*)::int as changes
          from changes where detected_at >= current_date - 29 group by 1)
      select to_char(d, 'YYYY-MM-DD') as day, coalesce(r.fetched, 0) as fetched,
             coalesce(c.changes, 0) as changes, coalesce(r.failures, 0) as failures
        from generate_series(current_date - 29, current_date, interval '1 day') as d
        left join runs r on r.day = d::date left join changed c on c.day = d::date
       order by d`.execute(db),
    sql<{ entity: string; last_complete_at: Date | null }>`select entity, last_complete_at from entity_pulls`.execute(
      db,
    ),
    heldDeletes(db),
    sql<{ entity: string; field: string; values: number; example_id: string; reason: string; last_seen_at: Date }>`
      select entity, field, count(*)::int as values, min(entity_id) as example_id, min(reason) as reason,
             max(last_seen_at) as last_seen_at
        from rejected_values group by entity, field order by entity, field`.execute(db),
    countJobsByStatus(db),
    lastRateLimit(db),
  ]);
  const latest = runs.rows[0];
  const lastComplete = new Map(pulls.rows.map((row) => [row.entity, row.last_complete_at]));
  const body = html`
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
            ? html`<strong>${budget.remaining}</strong> requests left, ${ago(budget.seenAt)}`
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
              (name) => html`<td class="num">${counts ? text(counts[name] ?? 0) : '—'}</td>`,
            )}
            <td>${ago(lastComplete.get(entity) ?? null)}</td></tr>`;
        })}
      </tbody>
    </table>
    <h2>Last 30 days</h2>
    ${chart('lines', 'Records fetched, changes and failed runs per day', {
      x: days.rows.map((d) => d.day),
      series: {
        'records fetched': days.rows.map((d) => Number(d.fetched)),
        changes: days.rows.map((d) => Number(d.changes)),
        'failed runs': days.rows.map((d) => Number(d.failures)),
      },
    })}
    <h2>Held deletes</h2>
    ${
      held.length === 0
        ? html`<p class="muted">None: every record missing upstream was marked deleted, or none was missing.</p>`
        : html`<p>Records missing upstream that the delete safeguard did not mark deleted. The next complete pull confirms or releases them;
            if they really were deleted, run <code>invoice-mirror sync --allow-deletes ENTITY</code>.</p>
            <table><thead><tr><th>entity</th><th class="num">held</th><th>since</th></tr></thead><tbody>
            ${held.map((row) => html`<tr><td>${row.entity}</td><td class="num">${row.held}</td><td>${ago(row.since)}</td></tr>`)}
            </tbody></table>`
    }
    <h2>Rejected values</h2>
    ${
      rejected.rows.length === 0
        ? html`<p class="muted">None: every value was stored as the service sent it.</p>`
        : html`<p>Values stored other than as sent (the rest of each record is stored). Correct them in the service; the next sync that reads them clears them here.</p>
            <table><thead><tr><th>entity</th><th>field</th><th class="num">records</th><th>for example</th><th>reason</th><th>last seen</th></tr></thead><tbody>
            ${rejected.rows.map(
              (row) => html`<tr><td>${row.entity}</td><td>${row.field}</td><td class="num">${row.values}</td>
                <td><a href="/records/${row.entity}/${encodeURIComponent(row.example_id)}">${row.example_id}</a></td><td>${row.reason}</td><td>${ago(row.last_seen_at)}</td></tr>`,
            )}
            </tbody></table>`
    }
    <h2>Recent runs</h2>
    <table>
      <thead><tr><th>run</th><th>kind</th><th>status</th><th>started</th><th class="num">seconds</th><th class="num">requests</th><th>error</th></tr></thead>
      <tbody>${runs.rows.map(
        (
          run,
        ) => html`<tr><td>${run.id}</td><td>${run.kind}</td><td>${badge(run.status)}</td><td>${ago(run.started_at)}</td>
          <td class="num">${run.seconds === null ? '—' : run.seconds.toFixed(1)}</td><td class="num">${text(run.requests_made)}</td><td>${text(run.error)}</td></tr>`,
      )}</tbody>
    </table>`;
  return page('Overview', body, { section: '/' });
}
