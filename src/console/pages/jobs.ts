/**
 * Jobs: the queue filtered by status and kind (refreshing itself while jobs are queued or
 * running), one job's payload, result, attempts and send batches, retry and cancel, and a form
 * that queues any kind through the same validation as `jobs add`.
 */
import type { Hono } from 'hono';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.js';
import { RunError } from '../../errors.js';
import {
  addJob,
  batchesOf,
  cancelJob,
  getJob,
  JOB_STATUSES,
  kindNamed,
  JobStateError,
  KIND_NAMES,
  KINDS,
  listJobs,
  PayloadError,
  PrecheckError,
  payloadTemplate,
  retryJob,
  type JobStatus,
  type RetryDecisions,
} from '../../jobs/index.js';
import { fieldInputs } from '../job-form.js';
import { ago, badge, html, page, pageOf, pager, text, withQuery, type Html } from '../layout.js';

const PAGE_ROWS = 50;

async function jobTable(db: Kysely<Database>, url: string, query: Record<string, string>): Promise<Html> {
  const status = (JOB_STATUSES as readonly string[]).includes(query.status ?? '')
    ? (query.status as JobStatus)
    : undefined;
  const kind = (KIND_NAMES as readonly string[]).includes(query.kind ?? '') ? query.kind : undefined;
  const pageNumber = pageOf(query);
  const rows = await listJobs(db, { status, kind, limit: PAGE_ROWS + 1, offset: (pageNumber - 1) * PAGE_ROWS });
  const active = rows.some((row) => row.status === 'queued' || row.status === 'running');
  // While something runs the table asks for itself again every 2 s (htmx), and stops when all is done.
  return html`<div id="job-table" ${active ? html`hx-get="${withQuery(url, { fragment: 'table' })}" hx-trigger="every 2s" hx-swap="outerHTML"` : ''}>
    <table>
      <thead><tr><th>job</th><th>kind</th><th>status</th><th class="num">attempts</th><th>queued</th><th>finished</th><th>last error</th></tr></thead>
      <tbody>${rows.slice(0, PAGE_ROWS).map(
        (
          row,
        ) => html`<tr><td><a href="/jobs/${row.id}">${row.id}</a></td><td>${row.kind}</td><td>${badge(row.status)}</td>
          <td class="num">${row.attempts}/${row.max_attempts}</td><td>${ago(row.created_at)}</td><td>${row.finished_at ? ago(row.finished_at) : '—'}</td>
          <td>${text(row.last_error)}</td></tr>`,
      )}</tbody>
    </table>
    ${rows.length === 0 ? html`<p class="muted">No job matches.</p>` : ''}
    ${pager(url, pageNumber, rows.length > PAGE_ROWS)}
  </div>`;
}

function jobListPage(table: Html, query: Record<string, string>): Html {
  const options = (values: readonly string[], selected: string | undefined) =>
    values.map((value) => html`<option value="${value}" ${value === selected ? 'selected' : ''}>${value}</option>`);
  return page(
    'Jobs',
    html`<form class="filters" method="get">
        <label>status <select name="status"><option value="">any</option>${options(JOB_STATUSES, query.status)}</select></label>
        <label>kind <select name="kind"><option value="">any</option>${options(KIND_NAMES, query.kind)}</select></label>
        <button type="submit">Filter</button>
        <a href="/jobs/new">Queue a job…</a>
      </form>
      ${table}`,
    { section: '/jobs' },
  );
}

async function jobPage(db: Kysely<Database>, id: number, message?: { error?: string; info?: string }): Promise<Html> {
  const job = await getJob(db, id);
  const errors = Array.isArray(job.errors)
    ? (job.errors as { attempt?: number; at?: string; outcome?: string; error?: string }[])
    : [];
  const batches = batchesOf(job.result);
  const live = job.status === 'queued' || job.status === 'running';
  const policy = kindNamed(job.kind)?.policy;
  const actions = policy?.actions(job.status as JobStatus, job.result) ?? [];
  const canRetry = actions.includes('retry');
  const canCancel = actions.includes('cancel');
  const deciding = actions.includes('mark-sent') || actions.includes('resend');
  const idStates = policy?.idsByState(job.payload, job.result) ?? null;
  return page(
    `Job ${id}: ${job.kind}`,
    html`<div id="job" ${live ? html`hx-get="/jobs/${id}" hx-trigger="every 2s" hx-select="#job" hx-swap="outerHTML"` : ''}>
      ${message?.error ? html`<p class="error">${message.error}</p>` : ''}
      ${message?.info ? html`<p>${message.info}</p>` : ''}
      <p>${badge(job.status)} attempts ${job.attempts}/${job.max_attempts}; queued ${ago(job.created_at)};
        ${job.started_at ? html`started ${ago(job.started_at)}; ` : ''}${job.finished_at ? html`finished ${ago(job.finished_at)}` : html`runs after ${ago(job.run_after)}`}</p>
      ${job.last_error ? html`<p class="error">${job.last_error}</p>` : ''}
      <div class="actions">
        ${canRetry ? html`<form method="post" action="/jobs/${id}/retry"><button type="submit">Retry</button></form>` : ''}
        ${canCancel ? html`<form method="post" action="/jobs/${id}/cancel"><button type="submit" class="secondary">Cancel</button></form>` : ''}
        ${deciding && idStates === null ? decisionLinks(id, 'call') : ''}
      </div>
      ${idStates === null ? '' : idStatesTable(id, idStates, deciding)}
      <div class="grid">
        <section><h2>Payload</h2><pre>${JSON.stringify(job.payload, null, 2)}</pre></section>
        <section><h2>Result</h2><pre>${job.result === null ? '—' : JSON.stringify(job.result, null, 2)}</pre></section>
      </div>
      <h2>Attempts that failed</h2>
      ${
        errors.length === 0
          ? html`<p class="muted">None.</p>`
          : html`<table><thead><tr><th>attempt</th><th>at</th><th>then</th><th>error</th></tr></thead><tbody>
              ${errors.map((e, i) => html`<tr><td title="attempt ${text(e.attempt)} since the job was last queued">${i + 1}</td><td>${text(e.at)}</td><td>${text(e.outcome)}</td><td>${text(e.error)}</td></tr>`)}</tbody></table>`
      }
      ${
        batches.length === 0
          ? ''
          : html`<h2>Batches of the send</h2><table><thead><tr><th>ids</th><th>attempt</th><th>outcome</th><th>started</th><th>error</th></tr></thead><tbody>
              ${batches.map(
                (b) =>
                  html`<tr><td>${b.ids.join(', ')}</td><td>${b.attempt}</td><td>${badge(b.outcome)}</td><td>${text(b.started_at)}</td><td>${text(b.error)}</td></tr>`,
              )}</tbody></table>`
      }
    </div>`,
    { section: '/jobs' },
  );
}

/** The ids a choice names: `all` (every id of unknown outcome), one id, or the whole call of a single-call job. */
type Subject = 'call' | 'all' | number;

const CHOICES = {
  'mark-sent': {
    label: 'Mark as sent',
    risk: (what: string) =>
      `Records ${what} as sent without sending. If the call did not in fact reach the service, nothing is sent and nobody is told.`,
  },
  resend: {
    label: 'Send again',
    risk: (what: string) =>
      `Makes the call for ${what} again. If the earlier call did reach the service, it happens twice: a customer gets it twice, a payment is booked twice. Check the service first.`,
  },
} as const;
type Choice = keyof typeof CHOICES;

const subjectWords = (subject: Subject, unknown: readonly number[]): string =>
  subject === 'call'
    ? 'the call of unknown outcome'
    : subject === 'all'
      ? `all ${unknown.length} ids of unknown outcome (${unknown.join(', ')})`
      : `id ${subject}`;

function decisionLinks(id: number, subject: Subject): Html {
  return html`${(Object.keys(CHOICES) as Choice[]).map(
    (choice) =>
      html`<a href="/jobs/${id}/decide?choice=${choice}&amp;ids=${String(subject)}">${CHOICES[choice].label}${subject === 'all' ? ' (all unknown)' : ''}…</a> `,
  )}`;
}

/** A send's ids by state; those of unknown outcome each with their decisions, and the decisions for all of them. */
function idStatesTable(id: number, states: [string, number[]][], deciding: boolean): Html {
  const unknown = states.find(([name]) => name.includes('unknown'))?.[1] ?? [];
  return html`<h2>Ids by state</h2>
    <table><thead><tr><th>state</th><th>ids</th></tr></thead><tbody>
    ${states.map(
      ([name, ids]) =>
        html`<tr><td>${name}</td><td>${
          deciding && ids === unknown
            ? html`<ul>${ids.map((i) => html`<li>${i}: ${decisionLinks(id, i)}</li>`)}</ul>`
            : ids.join(', ')
        }</td></tr>`,
    )}</tbody></table>
    ${deciding && unknown.length > 1 ? html`<div class="actions">${decisionLinks(id, 'all')}</div>` : ''}`;
}

/** The confirmation of a person's decision about a call of unknown outcome, saying what it risks. */
async function decidePage(db: Kysely<Database>, id: number, choice: Choice, subject: Subject): Promise<Html> {
  const job = await getJob(db, id);
  const states = kindNamed(job.kind)?.policy.idsByState(job.payload, job.result) ?? null;
  const unknown = states?.find(([name]) => name.includes('unknown'))?.[1] ?? [];
  const what = subjectWords(subject, unknown);
  return page(
    `Job ${id}: ${CHOICES[choice].label.toLowerCase()}?`,
    html`<p><strong>${CHOICES[choice].label}: ${what}.</strong></p>
      <p class="error">${CHOICES[choice].risk(what)}</p>
      <form method="post" action="/jobs/${id}/decide">
        <input type="hidden" name="choice" value="${choice}" /><input type="hidden" name="ids" value="${String(subject)}" />
        <button type="submit">${CHOICES[choice].label}</button> <a href="/jobs/${id}">Back to the job</a>
      </form>`,
    { section: '/jobs' },
  );
}

function parseDecision(choice: unknown, ids: unknown): { choice: Choice; subject: Subject } | null {
  if (choice !== 'mark-sent' && choice !== 'resend') return null;
  const text = String(ids ?? '');
  if (text === 'call' || text === 'all') return { choice, subject: text };
  return /^\d{1,10}$/.test(text) ? { choice, subject: Number(text) } : null;
}

function retryDecisions(choice: Choice, subject: Subject): RetryDecisions {
  const named = subject === 'call' ? true : subject === 'all' ? 'unknown' : [subject];
  return choice === 'mark-sent' ? { markSent: named } : { resend: named };
}

function newJobPage(values: { kind?: string; payload?: string }, error?: string): Html {
  const kind = values.kind ?? 'send_saved_invoices';
  const onPayload = error && !error.startsWith('kind:');
  // The field a refusal names ("payload.stock: must be a number"), marked on its input too.
  const failed = onPayload ? /^payload\.([A-Za-z0-9_]+)/.exec(error)?.[1] : undefined;
  return page(
    'Queue a job',
    html`<form method="post" action="/jobs" style="max-width: 720px">
      <p class="muted">The same check as <code>invoice-mirror jobs add</code>: the payload is validated before anything is queued.</p>
      <label class="${error?.startsWith('kind:') ? 'field-error' : ''}">kind (choosing one fills in its fields)
        <select name="kind" onchange="location.href = '/jobs/new?kind=' + encodeURIComponent(this.value)">${KIND_NAMES.map(
          (name) =>
            html`<option value="${name}" ${name === kind ? 'selected' : ''}>${name}: ${KINDS[name].summary}</option>`,
        )}</select></label>
      ${fieldInputs(kind, failed)}
      <details open>
        <summary>the payload as JSON (what is queued; the fields above edit it)</summary>
        <label class="${onPayload ? 'field-error' : ''}">payload (JSON)
          <textarea name="payload" spellcheck="false">${values.payload ?? payloadTemplate(kind)}</textarea>
          ${error ? html`<span class="error" role="alert">${error}</span>` : ''}
        </label>
      </details>
      <p><button type="submit">Queue</button></p>
    </form>`,
    { section: '/jobs', scripts: ['jobform.js'] },
  );
}

/** The POSTed payload as an object, or the reason it is not JSON. */
function parsePayload(text: string): { payload: unknown } | { error: string } {
  try {
    return { payload: JSON.parse(text) };
  } catch (error) {
    return { error: `payload: not valid JSON (${(error as Error).message})` };
  }
}

export function jobRoutes(app: Hono, db: Kysely<Database>, defaults: { maxAttempts: number }): void {
  app.get('/jobs', async (c) => {
    const query = c.req.query();
    const table = await jobTable(db, c.req.url, query);
    return c.html(query.fragment === 'table' ? table : jobListPage(table, query));
  });
  app.get('/jobs/new', (c) => c.html(newJobPage({ kind: c.req.query('kind'), payload: c.req.query('payload') })));
  app.post('/jobs', async (c) => {
    const form = await c.req.parseBody();
    const kind = String(form.kind ?? '');
    const payloadText = String(form.payload ?? '');
    const parsed = parsePayload(payloadText);
    if ('error' in parsed) return c.html(newJobPage({ kind, payload: payloadText }, parsed.error), 400);
    try {
      const { id } = await addJob(db, { kind, payload: parsed.payload, maxAttempts: defaults.maxAttempts });
      return c.redirect(`/jobs/${id}`, 303);
    } catch (error) {
      if (error instanceof PayloadError || error instanceof PrecheckError)
        return c.html(newJobPage({ kind, payload: payloadText }, error.message), 400);
      throw error;
    }
  });
  app.get('/jobs/:id{[0-9]+}', async (c) => {
    const id = Number(c.req.param('id'));
    try {
      return c.html(await jobPage(db, id));
    } catch (error) {
      // An id that names no job is a page not found, not a failure of the console.
      if (error instanceof JobStateError)
        return c.html(page('Not found', html`<p class="error">No job ${id}: <a href="/jobs">the queue</a>.</p>`), 404);
      throw error;
    }
  });
  app.get('/jobs/:id{[0-9]+}/decide', async (c) => {
    const id = Number(c.req.param('id'));
    const decision = parseDecision(c.req.query('choice'), c.req.query('ids'));
    if (!decision) return c.html(await jobPage(db, id, { error: 'choose mark-sent or resend, for an id or all' }), 400);
    return c.html(await decidePage(db, id, decision.choice, decision.subject));
  });
  app.post('/jobs/:id{[0-9]+}/decide', async (c) => {
    const id = Number(c.req.param('id'));
    const form = await c.req.parseBody();
    const decision = parseDecision(form.choice, form.ids);
    if (!decision) return c.html(await jobPage(db, id, { error: 'choose mark-sent or resend, for an id or all' }), 400);
    try {
      await retryJob(db, id, retryDecisions(decision.choice, decision.subject));
    } catch (error) {
      if (error instanceof JobStateError || error instanceof RunError)
        return c.html(await jobPage(db, id, { error: error.message }), 409);
      throw error;
    }
    return c.redirect(`/jobs/${id}`, 303);
  });
  app.post('/jobs/:id{[0-9]+}/:action{retry|cancel}', async (c) => {
    const id = Number(c.req.param('id'));
    const action = c.req.param('action');
    try {
      if (action === 'retry') await retryJob(db, id);
      else await cancelJob(db, id);
    } catch (error) {
      if (error instanceof JobStateError || error instanceof RunError)
        return c.html(await jobPage(db, id, { error: error.message }), 409);
      throw error;
    }
    return c.redirect(`/jobs/${id}`, 303);
  });
}
