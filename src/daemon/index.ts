/**
 * The long-running service: one daemon of the fleet (fleet.ts: it claims the accounts whose work is
 * due, runs their queued jobs as NOTIFY announces them and their pulls on SYNC_INTERVAL or
 * SYNC_CRON, and takes its turn as the fleet's leader), the webhook deliveries (duties/webhooks.ts),
 * and `/healthz` + `/metrics` on the health port.
 *
 * Shutdown (SIGINT/SIGTERM): stop taking work, let the current job and the page being written
 * finish (at most SHUTDOWN_TIMEOUT_MS), release locks, close the pool, exit 0. A second signal
 * exits at once; every write is transactional, so nothing is left half-done.
 */
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { App } from '../app.js';
import type { ServerEvents } from '../db/embedded-server.js';
import { errorMessage } from '../errors.js';
import { logger } from '../log.js';
import { FleetDaemon } from './fleet.js';
import { newDaemonIdentity, type DaemonIdentity } from '../fleet/leases.js';
import { attentionOptions, stallProblems, startHealthServer } from './health.js';
import { syncPeriodMs } from './schedule.js';
import { DaemonMetrics } from './metrics.js';
import { packageVersion } from '../version.js';
import { checkConsoleAccess, consoleListener } from '../console/index.js';
import { webhooksDuty } from './duties/webhooks.js';
import type { AttentionOptions } from '../db/index.js';

export interface DaemonHandle {
  /** The health server's address (port 0 in the settings picks a free one). */
  healthUrl: string;
  /** Resolves when the daemon has stopped; the value is the exit code. */
  stopped: Promise<number>;
  stop(reason: string): Promise<number>;
}

/** The console the daemon serves beside /healthz and /metrics (CONSOLE), or none. */
function daemonConsole(app: App, attention: () => AttentionOptions) {
  const { config, database } = app;
  if (!config.console.inDaemon) return undefined;
  return consoleListener({
    db: database.db,
    settings: config.console,
    maxAttempts: config.jobs.maxAttempts,
    attention,
    worker: true,
    sellers: config.exports.sellers,
  });
}

/** On the embedded database its keeper brings a killed server back; the daemon says so in its log. */
function serverNews(log: Logger): ServerEvents {
  return {
    restarting: (reason) => log.warn({ reason }, 'the embedded database does not answer; starting it again'),
    back: () => log.info('the embedded database answers again'),
    failed: (error) =>
      log.error({ error: errorMessage(error) }, 'cannot start the embedded database again; trying again'),
  };
}

export async function startDaemon(app: App, identity: DaemonIdentity = newDaemonIdentity()): Promise<DaemonHandle> {
  const { config, database } = app;
  if (config.console.inDaemon) checkConsoleAccess(config.health.host, config.console, 'HEALTH_HOST (CONSOLE is on)');
  const log = logger.child({ module: 'daemon' });
  database.embedded?.watch(serverNews(log));
  const periodMs = syncPeriodMs(config);
  const startedAt = performance.now();
  const attention = () => attentionOptions({ periodMs, startedAt });
  const { leaseSeconds, metricsAccountLabels } = config.fleet;
  const metrics = new DaemonMetrics(database.db, packageVersion(), attention, leaseSeconds, metricsAccountLabels);
  await metrics.start();
  const fleet = new FleetDaemon(app, identity, metrics, log);

  const server: Server = await startHealthServer({
    host: config.health.host,
    port: config.health.port,
    db: database.db,
    metrics,
    periodMs,
    startedAt,
    stalls: () => fleet.accountClients.flatMap((client) => stallProblems(client.stall)),
    console: daemonConsole(app, attention),
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.health.port;
  const healthUrl = `http://${config.health.host.includes(':') ? `[${config.health.host}]` : config.health.host}:${port}`;

  // An account never pulled is due at once; one pulled before, an interval after its last pull.
  await fleet.start();
  const webhooks = webhooksDuty(app, log);
  await webhooks.start();
  log.info({ schedule: config.syncCron, healthUrl, periodSeconds: periodMs / 1000 }, 'daemon started');

  let resolveStopped!: (code: number) => void;
  const stopped = new Promise<number>((resolve) => (resolveStopped = resolve));
  let stopPromise: Promise<number> | null = null;

  const stop = (reason: string): Promise<number> => {
    stopPromise ??= (async () => {
      log.info({ reason }, 'daemon stopping: finishing the current job and page');
      const finished = Promise.all([fleet.stop(), webhooks.stop()]).then(() => true);
      const timedOut = new Promise<false>((resolve) =>
        setTimeout(() => resolve(false), config.shutdownTimeoutMs).unref(),
      );
      const clean = await Promise.race([finished, timedOut]);
      if (!clean)
        log.warn(
          { timeoutMs: config.shutdownTimeoutMs },
          'work still running at the shutdown deadline; stopping anyway',
        );
      await new Promise<void>((resolve) => server.close(() => resolve()));
      log.info('daemon stopped');
      const code = clean ? 0 : 1;
      resolveStopped(code);
      return code;
    })();
    return stopPromise;
  };

  return { healthUrl, stopped, stop };
}
