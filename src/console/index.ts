/**
 * The web console: server-rendered pages over the mirror's tables (Hono), a little htmx for live
 * refresh and uPlot for charts, all served from this process. `invoice-mirror console` serves it
 * on its own; the daemon serves it beside /healthz and /metrics.
 */
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import type { Kysely } from 'kysely';
import type { RequestListener, Server } from 'node:http';
import type { ConsoleSettings } from '../config.js';
import type { AttentionOptions, Database } from '../db/index.js';
import { errorMessage, RunError } from '../errors.js';
import { logger } from '../log.js';
import { requireCredential } from './access.js';
import { requireOwnHost } from './own-host.js';
import { accountChoice, type ConsoleApp } from './accounts.js';
import { serveAssets } from './assets.js';
import { html, page } from './layout.js';
import { changeRoutes } from './pages/changes.js';
import { eventRoutes } from './pages/events.js';
import { exportRoutes } from './pages/exports.js';
import { jobRoutes } from './pages/jobs.js';
import { heldDeleteRoutes, overviewPage } from './pages/overview.js';
import { recordRoutes } from './pages/records.js';
import { reportRoutes } from './pages/reports.js';
import { vatRoutes } from './pages/vat.js';

export { checkConsoleAccess } from './access.js';

export interface ConsoleDeps {
  db: Kysely<Database>;
  /** CONSOLE_PUBLIC_HOSTS may be left out (none). */
  settings: Omit<ConsoleSettings, 'publicHosts'> & Partial<Pick<ConsoleSettings, 'publicHosts'>>;
  /** Attempts of a job queued from the form (JOB_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** How the overview judges the pulls' ages (the sync schedule; the daemon's uptime when it serves the console). */
  attention?: () => AttentionOptions;
  /**
   * Whether this process also runs the queued jobs (the daemon does; the `console` command does
   * not). Without a worker every page says where the jobs queued here will run.
   */
  worker: boolean;
  /** The EXPORT_SELLERS directory (the accounts' seller files) the Exports page reads; unset: none. */
  sellers?: string;
}

/**
 * Every answer's Content-Security-Policy: the pages load only the console's own scripts (htmx,
 * uPlot and its own, all served from /static), styles and images, none inline (htmx's indicator
 * style is turned off in the page's htmx-config), talk only to the console, post forms only to it,
 * and are never framed. An HTML injection a page let through could run nothing.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** What every page says when the console is served without a worker (the `console` command). */
export const NO_WORKER_NOTE =
  "No worker runs in this process: jobs queued here run when a daemon or 'invoice-mirror jobs run' runs.";

/**
 * The finishing touches of every HTML answer: each table in a box that scrolls sideways (so no page
 * is wider than its window), and, without a worker, the note saying so at the top of the page.
 */
async function finishHtml(response: Response, worker: boolean): Promise<Response> {
  if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) return response;
  let body = (await response.text())
    .replace(/<table\b/g, '<div class="scroll"><table')
    .replace(/<\/table>/g, '</table></div>');
  if (!worker) body = body.replace('<main>', `<main><p class="note" role="note">${NO_WORKER_NOTE}</p>`);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

export function createConsoleApp(deps: ConsoleDeps): ConsoleApp {
  const { db } = deps;
  const log = logger.child({ module: 'console' });
  const app: ConsoleApp = new Hono();
  // Outermost, so that every answer has them, refusals included.
  app.use('*', async (c, next) => {
    await next();
    c.res = await finishHtml(c.res, deps.worker);
    c.header('content-security-policy', CONTENT_SECURITY_POLICY);
    c.header('x-frame-options', 'DENY');
    c.header('referrer-policy', 'same-origin');
  });
  app.use('*', requireOwnHost(deps.settings.publicHosts ?? [], log));
  app.use('*', requireCredential(deps.settings));
  app.use('*', csrf());
  app.use(
    '*',
    accountChoice(db, (line) => page('Unknown account', html`<p class="error">${line}</p>`)),
  );
  serveAssets(app);
  app.get('/', async (c) => c.html(await overviewPage(db, c.get('view'), deps.attention?.())));
  jobRoutes(app, db, { maxAttempts: deps.maxAttempts });
  heldDeleteRoutes(app, db);
  changeRoutes(app, db);
  eventRoutes(app, db);
  recordRoutes(app, db);
  reportRoutes(app, db);
  vatRoutes(app, db);
  exportRoutes(app, db, deps.sellers);
  app.notFound((c) =>
    c.html(page('Not found', html`<p class="error">No page at ${c.req.path}.</p>`, { view: c.get('view') }), 404),
  );
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse(); // a refusal (csrf: 403), not a failure
    log.error({ path: c.req.path, error: errorMessage(error) }, 'console: page failed');
    return c.html(page('Error', html`<p class="error">${errorMessage(error)}</p>`, { view: c.get('view') }), 500);
  });
  return app;
}

/** The console as a Node request handler (for the daemon's health server). */
export function consoleListener(deps: ConsoleDeps): RequestListener {
  return getRequestListener(createConsoleApp(deps).fetch);
}

/**
 * Listens on host:port, or fails with one line naming what to change (`what`: the option or
 * setting that chose the port) when the port is taken or not allowed.
 */
export function listen(server: Server, host: string, port: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`;
      if (error.code === 'EADDRINUSE')
        reject(new RunError(`${what}: ${where} is already in use (another invoice-mirror?); choose another port`));
      else if (error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL')
        reject(
          new RunError(
            `${what}: cannot listen on ${where} (${error.code}); choose another address or a port above 1023`,
          ),
        );
      else reject(error);
    });
    server.listen(port, host, () => resolve());
  });
}
