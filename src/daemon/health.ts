/**
 * `/healthz` and `/metrics` on a small HTTP server (loopback by default).
 *
 * Healthy means: the database answers, and the last scheduled pull neither failed nor is older
 * than three schedule periods (a daemon that just started gets that long to do its first).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { sql, type Kysely } from 'kysely';
import { countJobsByStatus, heldDeletes, lastFinishedPull, lastSucceededPullAt, type Database } from '../db/index.js';
import { errorMessage } from '../errors.js';
import type { DaemonMetrics } from './metrics.js';
import { listen } from '../console/index.js';

export interface HealthReport {
  status: 'ok' | 'unhealthy';
  problems: string[];
  /** What a person should look at, though the mirror works: held deletes, values not stored as sent. */
  warnings: string[];
  heldDeletes: Record<string, number>;
  rejectedValues: number;
  database: 'ok' | string;
  lastSync: { id: number; kind: string; status: string; finishedAt: string | null; ageSeconds: number | null } | null;
  queue: Record<string, number>;
}

/** How long a health check waits for the database: a probe must get its answer within a second. */
const DATABASE_DEADLINE_MS = 800;

/** A database read, or an error once DATABASE_DEADLINE_MS have passed (the read then settles unheard). */
async function withinDeadline<T>(reading: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_DEADLINE_MS} ms`)), DATABASE_DEADLINE_MS);
  });
  reading.catch(() => undefined);
  try {
    return await Promise.race([reading, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

type DatabaseState = Pick<HealthReport, 'lastSync' | 'queue' | 'heldDeletes' | 'rejectedValues' | 'warnings'>;

async function readDatabaseState(db: Kysely<Database>): Promise<DatabaseState> {
  const state: DatabaseState = { lastSync: null, queue: {}, heldDeletes: {}, rejectedValues: 0, warnings: [] };
  state.lastSync = await lastFinishedPull(db);
  state.queue = await countJobsByStatus(db);
  for (const held of await heldDeletes(db)) {
    state.heldDeletes[held.entity] = held.held;
    state.warnings.push(
      `${held.held} deletes of ${held.entity} held (too many at once); release with: invoice-mirror sync --allow-deletes ${held.entity}`,
    );
  }
  const { rows: rejected } = await sql<{ n: number }>`select count(*)::int as n from rejected_values`.execute(db);
  state.rejectedValues = Number(rejected[0]?.n ?? 0);
  if (state.rejectedValues > 0)
    state.warnings.push(
      `${state.rejectedValues} values not stored as sent; see invoice-mirror status or table rejected_values`,
    );
  return state;
}

export async function checkHealth(
  db: Kysely<Database>,
  options: { periodMs: number; startedAt: number; runnerTrouble?: () => { since: Date; error: string } | null },
): Promise<HealthReport> {
  const report: HealthReport = {
    status: 'ok',
    problems: [],
    warnings: [],
    heldDeletes: {},
    rejectedValues: 0,
    database: 'ok',
    lastSync: null,
    queue: {},
  };
  try {
    Object.assign(report, await withinDeadline(readDatabaseState(db)));
  } catch (error) {
    report.database = `error: ${errorMessage(error)}`;
    report.problems.push('the database does not answer');
  }
  const trouble = options.runnerTrouble?.();
  if (trouble)
    report.problems.push(
      `the job runner cannot reach the database since ${trouble.since.toISOString()}: ${trouble.error}`,
    );
  const staleAfterSeconds = (3 * options.periodMs) / 1000;
  if (report.lastSync?.status === 'failed') report.problems.push(`the last sync (run ${report.lastSync.id}) failed`);
  if (report.lastSync && report.lastSync.ageSeconds !== null && report.lastSync.ageSeconds > staleAfterSeconds) {
    report.problems.push(
      `the last sync finished ${report.lastSync.ageSeconds} s ago (more than three schedule periods)`,
    );
  }
  if (!report.lastSync && Date.now() - options.startedAt > 3 * options.periodMs)
    report.problems.push('no sync has finished yet');
  if (report.problems.length > 0) report.status = 'unhealthy';
  return report;
}

export interface Readiness {
  ready: boolean;
  problems: string[];
  /** When the mirror was last complete and exact (a sync or backfill that succeeded). */
  lastSuccessAt: string | null;
}

/**
 * Ready unless the database does not answer or the mirror is stale: its last successful pull is
 * older than three schedule periods (one failed sync is not enough; a daemon that just started
 * gets three periods for its first).
 */
export async function checkReadiness(
  db: Kysely<Database>,
  options: { periodMs: number; startedAt: number },
): Promise<Readiness> {
  const readiness: Readiness = { ready: true, problems: [], lastSuccessAt: null };
  try {
    const at = await withinDeadline(lastSucceededPullAt(db));
    readiness.lastSuccessAt = at?.toISOString() ?? null;
    const since = at ? at.getTime() : options.startedAt;
    if (Date.now() - since > 3 * options.periodMs)
      readiness.problems.push(
        at
          ? `the mirror is stale: the last successful sync finished ${Math.round((Date.now() - since) / 1000)} s ago (more than three schedule periods)`
          : 'no sync has succeeded in three schedule periods',
      );
  } catch (error) {
    readiness.problems.push(`the database does not answer: ${errorMessage(error)}`);
  }
  readiness.ready = readiness.problems.length === 0;
  return readiness;
}

const OWN_PATHS = new Set(['/healthz', '/livez', '/readyz', '/metrics']);

export function startHealthServer(options: {
  host: string;
  port: number;
  db: Kysely<Database>;
  metrics: DaemonMetrics;
  periodMs: number;
  startedAt: number;
  runnerTrouble?: () => { since: Date; error: string } | null;
  /** Every other path: the web console, when the daemon serves it. */
  console?: RequestListener;
}): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (options.console && !OWN_PATHS.has(path ?? '')) return options.console(request, response);
    const answer = async () => {
      if (request.method !== 'GET') return { status: 405, type: 'text/plain', body: 'method not allowed\n' };
      if (path === '/healthz') {
        const report = await checkHealth(options.db, options);
        return {
          status: report.status === 'ok' ? 200 : 503,
          type: 'application/json',
          body: `${JSON.stringify(report)}\n`,
        };
      }
      // Alive while the process answers at all: a restart would not mend a stale mirror.
      if (path === '/livez') return { status: 200, type: 'application/json', body: '{"status":"ok"}\n' };
      if (path === '/readyz') {
        const readiness = await checkReadiness(options.db, options);
        return {
          status: readiness.ready ? 200 : 503,
          type: 'application/json',
          body: `${JSON.stringify(readiness)}\n`,
        };
      }
      if (path === '/metrics')
        return { status: 200, type: options.metrics.contentType, body: await options.metrics.render() };
      return { status: 404, type: 'text/plain', body: 'not found: try /healthz, /livez, /readyz or /metrics\n' };
    };
    answer()
      .catch((error: unknown) => ({ status: 500, type: 'text/plain', body: `${errorMessage(error)}\n` }))
      .then(({ status, type, body }) => {
        response.writeHead(status, { 'content-type': type });
        response.end(body);
      });
  });
  return listen(server, options.host, options.port, 'HEALTH_PORT').then(() => server);
}
