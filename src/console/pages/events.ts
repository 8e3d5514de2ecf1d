/**
 * Events and webhooks: the newest business events of the accounts shown (by type); the webhook
 * subscriptions with their state; one subscription's deliveries with their last attempt, a
 * retry button per delivery and, when paused, a resume button. Signing secrets are never shown.
 */
import type { Kysely } from 'kysely';
import { ENTITY_NAMES, EVENT_TYPE_NAMES } from '../../catalog/index.js';
import type { Database } from '../../db/index.js';
import { readEvents } from '../../events/store.js';
import { listDeliveries, listSubscriptions, resumeSubscription, retryDelivery } from '../../webhooks/subscriptions.js';
import { accountInput, link, showsSeveral, type ConsoleApp, type Viewing } from '../accounts.js';
import { ago, badge, html, MAX_INTEGER_ID, notFoundPage, page, pathId, text, type Html } from '../layout.js';

const PAGE_ROWS = 100;

/** A receiver's URL as the console shows it: a query (often a token) hidden. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return '(not a URL)';
  }
}

async function eventsPage(db: Kysely<Database>, view: Viewing, query: Record<string, string>): Promise<Html> {
  const type = EVENT_TYPE_NAMES.includes(query.type ?? '') ? query.type! : null;
  const rows = await readEvents(db, {
    scope: view.scope,
    types: type ? [type] : [],
    limit: PAGE_ROWS,
    newestFirst: true,
  });
  const several = showsSeveral(view);
  const option = (value: string) =>
    html`<option value="${value}" ${value === type ? 'selected' : ''}>${value}</option>`;
  const recordCell = (entity: string, id: string, account: string) =>
    (ENTITY_NAMES as readonly string[]).includes(entity)
      ? html`<a href="${link(view, `/changes/${entity}/${encodeURIComponent(id)}`, account)}">${entity} ${id}</a>`
      : html`${entity} ${id}`;
  return page(
    'Events',
    html`<form class="filters" method="get">
        ${accountInput(view)}
        <label>type <select name="type"><option value="">any</option>${EVENT_TYPE_NAMES.map(option)}</select></label>
        <button type="submit">Filter</button>
      </form>
      <p class="muted">The newest ${PAGE_ROWS} events; <code>invoice-mirror events --follow</code> streams them, and webhooks push them.</p>
      <table>
        <thead><tr><th>event</th>${several ? html`<th>account</th>` : ''}<th>occurred</th><th>type</th><th>record</th><th>body</th></tr></thead>
        <tbody>${rows.map(
          (
            row,
          ) => html`<tr><td>${row.id}</td>${several ? html`<td>${row.account}</td>` : ''}<td>${ago(row.occurred_at)}</td>
            <td>${badge(row.type)}</td><td>${recordCell(row.entity, row.record_id, row.account)}</td><td><code>${text(row.body)}</code></td></tr>`,
        )}</tbody>
      </table>
      ${rows.length === 0 ? html`<p class="muted">No event matches.</p>` : ''}`,
    { view, section: '/events' },
  );
}

async function subscriptionsPage(db: Kysely<Database>, view: Viewing): Promise<Html> {
  const shown = (await listSubscriptions(db)).filter(
    (row) => !view.account || row.account === null || row.account === view.account.name,
  );
  return page(
    'Webhooks',
    html`<p class="muted">Add one with <code>invoice-mirror webhooks add URL [--events T,…] [--account NAME]</code>, which prints its signing secret once.</p>
      <table>
        <thead><tr><th>webhook</th><th>receiver</th><th>account</th><th>events</th><th>state</th><th>pending</th><th>delivered</th><th>last delivered</th></tr></thead>
        <tbody>${shown.map(
          (
            row,
          ) => html`<tr><td><a href="${link(view, `/webhooks/${row.id}`)}">${row.id}</a></td><td>${shownUrl(row.url)}</td>
            <td>${row.account ?? 'all'}</td><td>${row.event_types?.join(', ') ?? 'all'}</td>
            <td>${badge(row.state)} ${row.state_reason ? html`<span class="muted">${row.state_reason}</span>` : ''}</td>
            <td>${row.pending}</td><td>${row.delivered}</td><td>${ago(row.last_delivered_at)}</td></tr>`,
        )}</tbody>
      </table>
      ${shown.length === 0 ? html`<p class="muted">No webhook yet.</p>` : ''}`,
    { view, section: '/webhooks' },
  );
}

async function deliveriesPage(db: Kysely<Database>, view: Viewing, id: number): Promise<Html | null> {
  const [subscription] = await listSubscriptions(db, id);
  if (!subscription) return null;
  const rows = await listDeliveries(db, id, PAGE_ROWS);
  const paused = subscription.state === 'paused';
  return page(
    `Webhook ${id}`,
    html`<p>${shownUrl(subscription.url)}: ${badge(subscription.state)} ${subscription.state_reason ?? ''}</p>
      ${paused ? html`<form method="post" action="${link(view, `/webhooks/${id}/resume`)}"><button type="submit">Resume</button></form>` : ''}
      <table>
        <thead><tr><th>delivery</th><th>event</th><th>type</th><th>account</th><th>record</th><th>state</th><th>attempts</th><th>next try</th><th>last answer</th><th></th></tr></thead>
        <tbody>${rows.map(
          (row) => html`<tr><td>${row.id}</td><td>${row.event_id}</td><td>${text(row.type)}</td><td>${row.account}</td>
            <td>${row.entity} ${row.record_id}</td><td>${badge(row.state)}</td><td>${row.attempts}</td>
            <td>${row.state === 'pending' ? ago(row.due_at) : '—'}</td>
            <td>${row.last_status ?? ''} ${text(row.last_status === null ? row.last_error : row.last_response)}</td>
            <td><form method="post" action="${link(view, `/webhooks/${id}/events/${row.event_id}/retry`)}"><button type="submit" class="secondary">Retry</button></form></td></tr>`,
        )}</tbody>
      </table>
      ${rows.length === 0 ? html`<p class="muted">Nothing delivered yet.</p>` : ''}`,
    { view, section: '/webhooks' },
  );
}

export function eventRoutes(app: ConsoleApp, db: Kysely<Database>): void {
  app.get('/events', async (c) => c.html(await eventsPage(db, c.get('view'), c.req.query())));
  app.get('/webhooks', async (c) => c.html(await subscriptionsPage(db, c.get('view'))));
  app.get('/webhooks/:id{[0-9]+}', async (c) => {
    const view = c.get('view');
    const id = await webhookInView(db, view, c.req.param('id'));
    const shown = id === null ? null : await deliveriesPage(db, view, id);
    return shown ? c.html(shown) : c.html(noWebhook(view, c.req.param('id')), 404);
  });
  app.post('/webhooks/:id{[0-9]+}/resume', async (c) => {
    const view = c.get('view');
    const id = await webhookInView(db, view, c.req.param('id'));
    if (id === null) return c.html(noWebhook(view, c.req.param('id')), 404);
    await resumeSubscription(db, id);
    return c.redirect(link(view, `/webhooks/${id}`), 303);
  });
  app.post('/webhooks/:id{[0-9]+}/events/:event{[0-9]+}/retry', async (c) => {
    const view = c.get('view');
    const id = await webhookInView(db, view, c.req.param('id'));
    if (id === null) return c.html(noWebhook(view, c.req.param('id')), 404);
    const event = c.req.param('event');
    if (pathId(event) === null || !(await hasDelivery(db, id, event)))
      return c.html(notFoundPage(`Webhook ${id} has no delivery of event ${event}.`, view), 404);
    await retryDelivery(db, id, event);
    return c.redirect(link(view, `/webhooks/${id}`), 303);
  });
}

/** The webhook a path names, when the page's accounts see it (one of theirs, or one of every account); else null. */
async function webhookInView(db: Kysely<Database>, view: Viewing, text: string): Promise<number | null> {
  const id = pathId(text, MAX_INTEGER_ID);
  if (id === null) return null;
  const found = await db
    .selectFrom('webhook_subscriptions')
    .select('account_id')
    .where('id', '=', id)
    .executeTakeFirst();
  if (!found) return null;
  return !view.account || found.account_id === null || found.account_id === view.account.id ? id : null;
}

async function hasDelivery(db: Kysely<Database>, id: number, event: string): Promise<boolean> {
  const found = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('subscription_id', '=', id)
    .where('event_id', '=', event)
    .executeTakeFirst();
  return found !== undefined;
}

function noWebhook(view: Viewing, id: string): Html {
  const where = view.account && view.accounts.length > 1 ? ` of account ${view.account.name}` : '';
  return notFoundPage(`No webhook ${id}${where}.`, view);
}
