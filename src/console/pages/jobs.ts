/**
 * Jobs: the queue of the accounts shown, filtered by status and kind (refreshing itself while jobs
 * are queued or running), one job's payload, result, attempts and send batches, retry and cancel,
 * and a form that queues any kind for the account chosen through the same validation as `jobs add`.
 */
import type { Context } from 'hono';
import type { Kysely } from 'kysely';
import { jobsInScope, type Database } from '../../db/index.js';
import { RunError } from '../../errors.js';
import {
  addJob,
  batchFailureText,
  batchesOf,
  cancelJob,
  getJob,
  JOB_STATUSES,
  kindNamed,
  JobStateError,
  KIND_NAMES,
  KINDS,
  PayloadError,
  PrecheckError,
  payloadTemplate,
  RESOLVE_COMMANDS_TEXT,
  retryJob,
  type JobStatus,
  type RetryDecisions,
} from '../../jobs/index.js';
import {
  accountInput,
  accountName,
  chooseAccount,
  link,
  showsSeveral,
  stateText,
  type ConsoleApp,
  type ConsoleEnv,
  type Viewing,
} from '../accounts.js';
import { fieldInputs } from '../job-form.js';
import { type SendFact, sendFacts } from './send-facts.js';
import { ago, badge, html, page, pageOf, pager, pathId, text, withQuery, type Html } from '../layout.js';

const PAGE_ROWS = 50;

async function jobTable(
  db: Kysely<Database>,
  view: Viewing,
  url: string,
  query: Record<string, string>,
): Promise<Html> {
  const status = (JOB_STATUSES as readonly string[]).includes(query.status ?? '')
    ? (query.status as JobStatus)
    : undefined;
  const kind = (KIND_NAMES as readonly string[]).includes(query.kind ?? '') ? query.kind : undefined;
  const pageNumber = pageOf(query);
  const rows = await jobsInScope(db, view.scope, {
    status,
    kind,
    limit: PAGE_ROWS + 1,
    offset: (pageNumber - 1) * PAGE_ROWS,
  });
  const several = showsSeveral(view);
  const active = rows.some((row) => row.status === 'queued' || row.status === 'running');
  // While something runs the table asks for itself again every 2 s (htmx), and stops when all is done.
  return html`<div id="job-table" ${active ? html`hx-get="${withQuery(url, { fragment: 'table' })}" hx-trigger="every 2s" hx-swap="outerHTML"` : ''}>
    <table>
      <thead><tr><th>job</th>${several ? html`<th>account</th>` : ''}<th>kind</th><th>status</th><th class="num">attempts</th><th>queued</th><th>finished</th><th>last error</th></tr></thead>
      <tbody>${rows.slice(0, PAGE_ROWS).map(
        (
          row,
        ) => html`<tr><td><a href="${link(view, `/jobs/${row.id}`, several ? row.account : undefined)}">${row.id}</a></td>
          ${several ? html`<td>${row.account}</td>` : ''}<td>${row.kind}</td><td>${badge(row.status)}</td>
          <td class="num">${row.attempts}/${row.max_attempts}</td><td>${ago(row.created_at)}</td><td>${row.finished_at ? ago(row.finished_at) : '—'}</td>
          <td>${text(row.last_error)}</td></tr>`,
      )}</tbody>
    </table>
    ${rows.length === 0 ? html`<p class="muted">No job matches.</p>` : ''}
    ${pager(url, pageNumber, rows.length > PAGE_ROWS)}
  </div>`;
}

function jobListPage(view: Viewing, table: Html, query: Record<string, string>): Html {
  const options = (values: readonly string[], selected: string | undefined) =>
    values.map((value) => html`<option value="${value}" ${value === selected ? 'selected' : ''}>${value}</option>`);
  return page(
    'Jobs',
    html`<form class="filters" method="get">
        ${accountInput(view)}
        <label>status <select name="status"><option value="">any</option>${options(JOB_STATUSES, query.status)}</select></label>
        <label>kind <select name="kind"><option value="">any</option>${options(KIND_NAMES, query.kind)}</select></label>
        <button type="submit">Filter</button>
        <a href="${link(view, '/jobs/new')}">Queue a job…</a>
      </form>
      ${table}`,
    { view, section: '/jobs' },
  );
}

/** The job, when it is one of the accounts shown (JobStateError, a page not found, when not). */
async function jobInView(db: Kysely<Database>, view: Viewing, id: number) {
  const job = await getJob(db, id);
  if (view.account && job.account_id !== view.account.id)
    throw new JobStateError(`no job ${id} in account ${view.account.name}`);
  return job;
}

async function jobPage(
  db: Kysely<Database>,
  view: Viewing,
  id: number,
  message?: { error?: string; info?: string },
): Promise<Html> {
  const job = await jobInView(db, view, id);
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
  const facts = deciding ? await factsOf(db, job) : new Map<number, SendFact>();
  return page(
    `Job ${id}: ${job.kind}`,
    html`<div id="job" ${live ? html`hx-get="${link(view, `/jobs/${id}`)}" hx-trigger="every 2s" hx-select="#job" hx-swap="outerHTML"` : ''}>
      ${view.accounts.length > 1 ? html`<p>Account <a href="${link(view, '/', accountName(view, job.account_id))}">${accountName(view, job.account_id)}</a></p>` : ''}
      ${message?.error ? html`<p class="error">${message.error}</p>` : ''}
      ${message?.info ? html`<p>${message.info}</p>` : ''}
      <p>${badge(job.status)} attempts ${job.attempts}/${job.max_attempts}; queued ${ago(job.created_at)};
        ${job.started_at ? html`started ${ago(job.started_at)}; ` : ''}${job.finished_at ? html`finished ${ago(job.finished_at)}` : html`runs after ${ago(job.run_after)}`}</p>
      ${job.last_error ? html`<p class="error">${pageWording(job.last_error, deciding)}</p>` : ''}
      <div class="actions">
        ${canRetry ? html`<form method="post" action="${link(view, `/jobs/${id}/retry`)}"><button type="submit" title="${deciding ? 'asks the service about the ids of unknown outcome first, and sends only those certainly not sent' : ''}">${deciding ? 'Retry (asks the service first)' : 'Retry'}</button></form>` : ''}
        ${canCancel ? html`<form method="post" action="${link(view, `/jobs/${id}/cancel`)}"><button type="submit" class="secondary">Cancel</button></form>` : ''}
        ${deciding && idStates === null ? decisionLinks(view, id, 'call') : ''}
      </div>
      ${idStates === null ? '' : idStatesTable(view, id, idStates, deciding, facts)}
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
                  html`<tr><td>${b.ids.join(', ')}</td><td>${b.attempt}</td><td>${badge(b.outcome)}${b.outcome === 'failed' ? html` <span class="muted">${batchFailureText(b)}</span>` : ''}</td><td>${text(b.started_at)}</td><td>${text(b.error)}</td></tr>`,
              )}</tbody></table>`
      }
    </div>`,
    { view, section: '/jobs' },
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

function decisionLink(view: Viewing, id: number, subject: Subject, choice: Choice, suggested = false): Html {
  const href = link(view, `/jobs/${id}/decide?choice=${choice}&ids=${String(subject)}`);
  return html`<a class="${suggested ? 'button' : ''}" href="${href}">${CHOICES[choice].label}${subject === 'all' ? ' (all unknown)' : ''}…</a> `;
}

function decisionLinks(view: Viewing, id: number, subject: Subject): Html {
  return html`${(Object.keys(CHOICES) as Choice[]).map(
    (choice) =>
      html`<a href="${link(view, `/jobs/${id}/decide?choice=${choice}&ids=${String(subject)}`)}">${CHOICES[choice].label}${subject === 'all' ? ' (all unknown)' : ''}…</a> `,
  )}`;
}

/**
 * A job's message as a page words it: without the commands that resolve an unknown outcome when
 * the page offers them as buttons (the message itself, in the job row, keeps them for the CLI).
 */
function pageWording(message: string, deciding: boolean): string {
  return deciding ? message.replace(RESOLVE_COMMANDS_TEXT, '') : message;
}

/** What the mirror's syncs show about a send's ids of unknown outcome, each with its call's start. */
async function factsOf(db: Kysely<Database>, job: Awaited<ReturnType<typeof getJob>>): Promise<Map<number, SendFact>> {
  if (job.kind !== 'send_saved_invoices') return new Map();
  const calls = new Map<number, string>();
  for (const batch of batchesOf(job.result))
    if (batch.outcome === 'unknown' || batch.outcome === 'sending')
      for (const i of batch.ids) calls.set(i, batch.started_at);
  const deleting = (job.payload as { delete?: unknown } | null)?.delete === true;
  return sendFacts(db, job.account_id, calls, deleting);
}

/** One id of unknown outcome: what the mirror knows, then the decisions, the one it suggests first. */
function unknownIdItem(view: Viewing, id: number, i: number, fact: SendFact | undefined): Html {
  const order: Choice[] = fact?.verdict === 'unsent' ? ['resend', 'mark-sent'] : ['mark-sent', 'resend'];
  const suggested = fact?.verdict === 'sent' ? 'mark-sent' : fact?.verdict === 'unsent' ? 'resend' : null;
  return html`<li><strong>${i}</strong>${fact ? html`: ${fact.words}` : ''}
    <div class="actions">${order.map((choice) => decisionLink(view, id, i, choice, choice === suggested))}</div></li>`;
}

/** A send's ids by state; those of unknown outcome each with what the mirror knows and their decisions, and the decisions for all. */
function idStatesTable(
  view: Viewing,
  id: number,
  states: [string, number[]][],
  deciding: boolean,
  facts: ReadonlyMap<number, SendFact>,
): Html {
  const unknown = states.find(([name]) => name.includes('unknown'))?.[1] ?? [];
  return html`<h2>Ids by state</h2>
    <table><thead><tr><th>State</th><th>Ids${deciding ? " and what the mirror's syncs show" : ''}</th></tr></thead><tbody>
    ${states.map(
      ([name, ids]) =>
        html`<tr><td>${name}</td><td>${
          deciding && ids === unknown
            ? html`<ul class="decisions">${ids.map((i) => unknownIdItem(view, id, i, facts.get(i)))}</ul>`
            : ids.join(', ')
        }</td></tr>`,
    )}</tbody></table>
    ${deciding && unknown.length > 1 ? html`<div class="actions">${decisionLinks(view, id, 'all')}</div>` : ''}`;
}

/** The confirmation of a person's decision about a call of unknown outcome, saying what it risks. */
async function decidePage(
  db: Kysely<Database>,
  view: Viewing,
  id: number,
  choice: Choice,
  subject: Subject,
): Promise<Html> {
  const job = await jobInView(db, view, id);
  const states = kindNamed(job.kind)?.policy.idsByState(job.payload, job.result) ?? null;
  const unknown = states?.find(([name]) => name.includes('unknown'))?.[1] ?? [];
  const what = subjectWords(subject, unknown);
  return page(
    `Job ${id}: ${CHOICES[choice].label.toLowerCase()}?`,
    html`<p><strong>${CHOICES[choice].label}: ${what}.</strong></p>
      <p class="error">${CHOICES[choice].risk(what)}</p>
      <form method="post" action="${link(view, `/jobs/${id}/decide`)}">
        <input type="hidden" name="choice" value="${choice}" /><input type="hidden" name="ids" value="${String(subject)}" />
        <button type="submit">${CHOICES[choice].label}</button> <a href="${link(view, `/jobs/${id}`)}">Back to the job</a>
      </form>`,
    { view, section: '/jobs' },
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

/** The job form for the account shown; without one, which accounts it could be for. */
function newJobPage(view: Viewing, values: { kind?: string; payload?: string }, error?: string): Html {
  const account = view.account;
  if (!account) {
    const given = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined);
    const path = given.length === 0 ? '/jobs/new' : `/jobs/new?${new URLSearchParams(given).toString()}`;
    return page('Queue a job', chooseAccount(view, 'a job', path), { view, section: '/jobs' });
  }
  const kind = values.kind ?? 'send_saved_invoices';
  const onPayload = error && !error.startsWith('kind:');
  // The field a refusal names ("payload.stock: must be a number"), marked on its input too.
  const failed = onPayload ? /^payload\.([A-Za-z0-9_]+)/.exec(error)?.[1] : undefined;
  // Choosing a kind reloads the form with its fields, for the same account.
  const reload = view.named === null ? '/jobs/new?kind=' : `/jobs/new?account=${encodeURIComponent(view.named)}&kind=`;
  return page(
    'Queue a job',
    html`<form method="post" action="${link(view, '/jobs')}" class="job-form">
      ${view.accounts.length > 1 ? html`<p>For account <strong>${account.name}</strong>.</p>` : ''}
      ${account.state === 'active' ? '' : html`<p class="note">Account ${account.name}: ${stateText(account)}. A job queued now waits until it is served again.</p>`}
      <p class="muted">The same check as <code>invoice-mirror jobs add</code>: the payload is validated before anything is queued.</p>
      <label class="${error?.startsWith('kind:') ? 'field-error' : ''}">kind (choosing one fills in its fields)
        <select name="kind" data-reload="${reload}">${KIND_NAMES.map(
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
    { view, section: '/jobs', scripts: ['jobform.js'] },
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

/** A job page, or the page not found when the id names no job of the accounts shown. */
async function jobPageOr404(
  view: Viewing,
  id: number,
  render: () => Promise<Html>,
): Promise<{ page: Html; status: 200 | 404 }> {
  try {
    return { page: await render(), status: 200 };
  } catch (error) {
    // An id that names no job is a page not found, not a failure of the console.
    if (!(error instanceof JobStateError)) throw error;
    const where = view.account && view.accounts.length > 1 ? ` in account ${view.account.name}` : '';
    const body = html`<p class="error">No job ${id || 'with that id'}${where}: <a href="${link(view, '/jobs')}">the queue</a>.</p>`;
    return { page: page('Not found', body, { view }), status: 404 };
  }
}

export function jobRoutes(app: ConsoleApp, db: Kysely<Database>, defaults: { maxAttempts: number }): void {
  app.get('/jobs', async (c) => {
    const view = c.get('view');
    const query = c.req.query();
    const table = await jobTable(db, view, c.req.url, query);
    return c.html(query.fragment === 'table' ? table : jobListPage(view, table, query));
  });
  app.get('/jobs/new', (c) =>
    c.html(newJobPage(c.get('view'), { kind: c.req.query('kind'), payload: c.req.query('payload') })),
  );
  app.post('/jobs', async (c) => {
    const view = c.get('view');
    const form = await c.req.parseBody();
    const kind = String(form.kind ?? '');
    const payloadText = String(form.payload ?? '');
    // Without an account the form says which accounts it could be for; nothing is queued.
    const again = (error?: string) => c.html(newJobPage(view, { kind, payload: payloadText }, error), 400);
    if (!view.account) return again();
    // A removed account's rows are kept read-only: nothing is queued for it.
    if (view.account.state === 'removed') return again(`account ${view.account.name}: ${stateText(view.account)}`);
    const parsed = parsePayload(payloadText);
    if ('error' in parsed) return again(parsed.error);
    try {
      // issue 31: the account-taking signature of the jobs-accounts branch.
      const job = { kind, payload: parsed.payload, maxAttempts: defaults.maxAttempts };
      const { id } = await addJob(db, view.account.id, job);
      return c.redirect(link(view, `/jobs/${id}`), 303);
    } catch (error) {
      if (error instanceof PayloadError || error instanceof PrecheckError) return again(error.message);
      throw error;
    }
  });
  jobPageRoutes(app, db);
}

/** One job's page, the decisions about a call of unknown outcome, retry and cancel. */
function jobPageRoutes(app: ConsoleApp, db: Kysely<Database>): void {
  const DECIDE = 'choose mark-sent or resend, for an id or all';
  app.get('/jobs/:id{[0-9]+}', async (c) => {
    const view = c.get('view');
    const id = jobIdOf(c.req.param('id'));
    const shown = await jobPageOr404(view, id, () => jobPage(db, view, id));
    return c.html(shown.page, shown.status);
  });
  app.get('/jobs/:id{[0-9]+}/decide', async (c) => {
    const view = c.get('view');
    const id = jobIdOf(c.req.param('id'));
    const decision = parseDecision(c.req.query('choice'), c.req.query('ids'));
    const shown = await jobPageOr404(view, id, () =>
      decision ? decidePage(db, view, id, decision.choice, decision.subject) : jobPage(db, view, id, { error: DECIDE }),
    );
    return c.html(shown.page, shown.status === 200 && !decision ? 400 : shown.status);
  });
  app.post('/jobs/:id{[0-9]+}/decide', async (c) => {
    const view = c.get('view');
    const id = jobIdOf(c.req.param('id'));
    const form = await c.req.parseBody();
    const decision = parseDecision(form.choice, form.ids);
    if (!decision) {
      const shown = await jobPageOr404(view, id, () => jobPage(db, view, id, { error: DECIDE }));
      return c.html(shown.page, shown.status === 200 ? 400 : shown.status);
    }
    return steer(c, db, view, id, () => retryJob(db, id, retryDecisions(decision.choice, decision.subject)));
  });
  app.post('/jobs/:id{[0-9]+}/:action{retry|cancel}', async (c) => {
    const view = c.get('view');
    const id = jobIdOf(c.req.param('id'));
    const retry = c.req.param('action') === 'retry';
    return steer(c, db, view, id, () => (retry ? retryJob(db, id) : cancelJob(db, id)));
  });
}

/** A job id from the path; one too large to be a job's is 0, which names none either (ids start at 1). */
function jobIdOf(text: string): number {
  return pathId(text) ?? 0;
}

/**
 * Retries, cancels or decides for a job of the accounts shown, then shows it; a job in a state
 * that does not allow it is shown with the reason (409).
 */
async function steer(
  c: Context<ConsoleEnv>,
  db: Kysely<Database>,
  view: Viewing,
  id: number,
  act: () => Promise<unknown>,
): Promise<Response> {
  const found = await jobPageOr404(view, id, async () => {
    await jobInView(db, view, id);
    return html``;
  });
  if (found.status === 404) return c.html(found.page, 404);
  try {
    await act();
  } catch (error) {
    if (error instanceof JobStateError || error instanceof RunError)
      return c.html(await jobPage(db, view, id, { error: error.message }), 409);
    throw error;
  }
  return c.redirect(link(view, `/jobs/${id}`), 303);
}
