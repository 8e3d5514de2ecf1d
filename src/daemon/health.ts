/**
 * `/livez`, `/healthz`, `/readyz` and `/metrics` on a small HTTP server (loopback by default).
 *
 * `/healthz` is liveness: whether this process works. It fails (503) only when the process is
 * stuck (an API gate holds an account's one slot far longer than its step should take), which a
 * restart mends. Nothing about one account fails it (a liveness probe would restart the daemon of
 * every account for it), nor the database (a restart would not mend it; the daemon reconnects,
 * and brings an embedded server back, by itself). Its body is the detailed report: the database,
 * the last pull, the queue, each account's trouble (`accountProblems`) and the warnings.
 *
 * `/readyz` is readiness: whether the daemon does its work. It fails while the database does not
 * answer, the process is stuck, or no served account's mirror is fresh (none has a pull that
 * succeeded within three schedule periods; a daemon that just started gets that long). One
 * account's trouble is in its body (`accountProblems`) and in /metrics, not in its status code.
 *
 * Every account is read (scope 'all'); lines name their account when the mirror holds several.
 * Ages come from the database's clock, the daemon's own uptime from the monotonic clock: a
 * stepped wall clock moves neither.
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
  /** Liveness: `unhealthy` only while the process is stuck (see the module comment). */
  status: 'ok' | 'unhealthy';
  /** Why the process is stuck (a stalled gate); empty while it works. */
  problems: string[];
  /**
   * Each account's trouble, naming the account when the mirror holds several: a key the service
   * refused, a pull that failed or is stale, no pull yet, a mirror gone stale. It fails no probe
   * by itself (see /readyz).
   */
  accountProblems: string[];
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
  'lastSync' | 'queue' | 'heldDeletes' | 'rejectedValues' | 'warnings' | 'accountProblems' | 'attention'
>;

/**
 * The attention list of every account rendered as health: the accounts' trouble, the warnings
 * (each naming its account when the mirror holds several), and the counts in the report, summed
 * over the accounts (the attention list has them per account).
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
    accountProblems: items.filter((item) => item.fails !== null).map((item) => item.text),
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

/** Liveness, with the detailed report (see the module comment). */
export async function checkHealth(db: Kysely<Database>, options: HealthOptions): Promise<HealthReport> {
  const report: HealthReport = {
    status: 'ok',
    problems: [],
    accountProblems: [],
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
    // Readiness says so (503); the process itself works, and reconnects by itself.
    report.database = `error: ${errorMessage(error)}`;
  }
  if (state) Object.assign(report, state);
  report.problems.push(...(options.stalls?.() ?? []));
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
 * Ready unless the database does not answer, the process is stuck (a stalled gate), or the mirror
 * is stale as a whole: every served account's last successful pull is older than three schedule
 * periods (one failed sync is not enough; a daemon, or an account, that just started gets three
 * periods for its first). An account stale beside fresh ones is the account's trouble
 * (`accountProblems` in the body), not the daemon's.
 */
export async function checkReadiness(
  db: Kysely<Database>,
  options: Pick<HealthOptions, 'periodMs' | 'startedAt' | 'stalls'>,
): Promise<Readiness> {
  return (await assessReadiness(db, options)).readiness;
}

/** Readiness, and each account's trouble for the body of /readyz. */
async function assessReadiness(
  db: Kysely<Database>,
  options: Pick<HealthOptions, 'periodMs' | 'startedAt' | 'stalls'>,
): Promise<{ readiness: Readiness; accountProblems: string[] }> {
  const readiness: Readiness = { ready: true, problems: [], lastSuccessAt: null };
  let accountProblems: string[] = [];
  try {
    const [last, items, served] = await withinDeadline(
      Promise.all([
        lastSucceededPull(db, 'all'),
        needsAttention(db, 'all', attentionOptions(options)),
        countServedAccounts(db),
      ]),
    );
    readiness.lastSuccessAt = last?.at.toISOString() ?? null;
    accountProblems = items.filter((item) => item.fails !== null).map((item) => item.text);
    const stale = items.filter((item) => item.fails === 'readiness');
    // A mirror with no account yet is judged as one (its item names none).
    if (stale.length > 0 && new Set(stale.map((item) => item.account)).size >= Math.max(1, served))
      readiness.problems.push(...stale.map((item) => item.text));
  } catch (error) {
    readiness.problems.push(`the database does not answer: ${errorMessage(error)}`);
  }
  readiness.problems.push(...(options.stalls?.() ?? []));
  readiness.ready = readiness.problems.length === 0;
  return { readiness, accountProblems };
}

/** The accounts the daemon serves (active ones). */
async function countServedAccounts(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('state', '=', 'active')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
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
        const { readiness, accountProblems } = await assessReadiness(options.db, options);
        return {
          status: readiness.ready ? 200 : 503,
          type: 'application/json',
          body: `${JSON.stringify({ ...readiness, accountProblems })}\n`,
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
