/**
 * `/healthz` and `/metrics` on a small HTTP server (loopback by default).
 *
 * Healthy means: the database answers, no account's key was refused by the service, each served
 * account's last scheduled pull neither failed nor is older than three schedule periods (a daemon
 * that just started gets that long to do its first), and neither the API gate nor the job runner
 * is stalled. Every account is read (scope 'all'); the problems name their account when the
 * mirror holds several. Ages come from the database's clock, the
 * daemon's own uptime from the monotonic clock: a stepped wall clock moves neither.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Kysely } from 'kysely';
import type { GateStall } from '../api/gate.js';
import {
  attentionLine,
  countJobsByStatus,
  lastFinishedPull,
  lastSucceededPull,
  needsAttention,
  type AttentionItem,
  type AttentionOptions,
  type Database,
} from '../db/index.js';
import { errorMessage } from '../errors.js';
import type { DaemonMetrics } from './metrics.js';
import { listen } from '../console/index.js';

export interface HealthReport {
  status: 'ok' | 'unhealthy';
  problems: string[];
  /** What a person should look at, though the mirror works: held deletes, values not stored as sent, … with their remedies. */
  warnings: string[];
  /** Held deletes per entity, summed over the accounts (`attention` has them per account). */
  heldDeletes: Record<string, number>;
  /** Values not stored as sent, summed over the accounts. */
  rejectedValues: number;
  database: 'ok' | string;
  /** The last pull of any account that is over. */
  lastSync: { id: number; kind: string; status: string; finishedAt: string | null; ageSeconds: number | null } | null;
  queue: Record<string, number>;
  /** The whole attention list (problems and warnings above are its lines). */
  attention: AttentionItem[];
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

type DatabaseState = Pick<
  HealthReport,
  'lastSync' | 'queue' | 'heldDeletes' | 'rejectedValues' | 'warnings' | 'problems' | 'attention'
>;

/**
 * The attention list of every account rendered as health: its health problems, its warnings (each
 * naming its account when the mirror holds several), and the counts in the report, summed over
 * the accounts (the attention list has them per account).
 */
async function readDatabaseState(db: Kysely<Database>, attention: AttentionOptions): Promise<DatabaseState> {
  const [lastSync, queue, items] = await Promise.all([
    lastFinishedPull(db, 'all'),
    countJobsByStatus(db, 'all'),
    needsAttention(db, 'all', attention),
  ]);
  const of = (kind: AttentionItem['kind']) => items.filter((item) => item.kind === kind);
  const heldDeletes: Record<string, number> = {};
  for (const held of of('held_deletes')) heldDeletes[held.entity!] = (heldDeletes[held.entity!] ?? 0) + held.count;
  return {
    lastSync,
    queue,
    heldDeletes,
    rejectedValues: of('rejected_values').reduce((sum, item) => sum + item.count, 0),
    problems: items.filter((item) => item.fails === 'health').map((item) => item.text),
    warnings: items.filter((item) => item.fails === null).map(attentionLine),
    attention: items,
  };
}

export interface HealthOptions {
  periodMs: number;
  /** When the daemon started, by the monotonic clock (`performance.now()`). */
  startedAt: number;
  /** One line per part of the daemon that has made no progress for longer than it should (see stallProblems). */
  stalls?: () => string[];
}

/** How the attention list judges pulls for a daemon: against its schedule, and its uptime by the monotonic clock. */
export function attentionOptions(options: Pick<HealthOptions, 'periodMs' | 'startedAt'>): AttentionOptions {
  return { periodMs: options.periodMs, upForMs: performance.now() - options.startedAt };
}

/** One line for a stalled gate: its slot held too long in one step. */
export function stallProblems(gate: GateStall | null): string[] {
  const seconds = (ms: number) => Math.round(ms / 1000);
  const problems: string[] = [];
  if (gate)
    problems.push(
      `the API gate is stalled: ${gate.operation} has been ${gate.step} for ${seconds(gate.forMs)} s (expected at most ${seconds(gate.expectedMs)} s)`,
    );
  return problems;
}

export async function checkHealth(db: Kysely<Database>, options: HealthOptions): Promise<HealthReport> {
  const report: HealthReport = {
    status: 'ok',
    problems: [],
    warnings: [],
    heldDeletes: {},
    rejectedValues: 0,
    database: 'ok',
    lastSync: null,
    queue: {},
    attention: [],
  };
  let state: DatabaseState | null = null;
  try {
    state = await withinDeadline(readDatabaseState(db, attentionOptions(options)));
  } catch (error) {
    report.database = `error: ${errorMessage(error)}`;
    report.problems.push('the database does not answer');
  }
  report.problems.push(...(options.stalls?.() ?? []));
  if (state) Object.assign(report, { ...state, problems: [...report.problems, ...state.problems] });
  if (report.problems.length > 0) report.status = 'unhealthy';
  return report;
}

export interface Readiness {
  ready: boolean;
  problems: string[];
  /** When a pull of any account last ended complete and exact (a sync or backfill that succeeded). */
  lastSuccessAt: string | null;
}

/**
 * Ready unless the database does not answer, the mirror is stale (its last successful pull is
 * older than three schedule periods; one failed sync is not enough; a daemon that just started
 * gets three periods for its first), or the gate or the job runner is stalled.
 */
export async function checkReadiness(
  db: Kysely<Database>,
  options: Pick<HealthOptions, 'periodMs' | 'startedAt' | 'stalls'>,
): Promise<Readiness> {
  const readiness: Readiness = { ready: true, problems: [], lastSuccessAt: null };
  try {
    const [last, items] = await withinDeadline(
      Promise.all([lastSucceededPull(db, 'all'), needsAttention(db, 'all', attentionOptions(options))]),
    );
    readiness.lastSuccessAt = last?.at.toISOString() ?? null;
    readiness.problems.push(...items.filter((item) => item.fails === 'readiness').map((item) => item.text));
  } catch (error) {
    readiness.problems.push(`the database does not answer: ${errorMessage(error)}`);
  }
  readiness.problems.push(...(options.stalls?.() ?? []));
  readiness.ready = readiness.problems.length === 0;
  return readiness;
}

const OWN_PATHS = new Set(['/healthz', '/livez', '/readyz', '/metrics']);

export function startHealthServer(
  options: HealthOptions & {
    host: string;
    port: number;
    db: Kysely<Database>;
    metrics: DaemonMetrics;
    /** Every other path: the web console, when the daemon serves it. */
    console?: RequestListener;
  },
): Promise<Server> {
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
