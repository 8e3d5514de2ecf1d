/**
 * Fleet daemons in the test's own process (src/daemon/fleet.ts), on the test's database: fast to
 * start, and what they do is heard as their events (`claimed`, `gave way`, `leader taken`, …), so
 * that tests wait on those instead of on sleeps or log lines.
 */
import { once } from 'node:events';
import { afterEach } from 'vitest';
import type { App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { attentionOptions } from '../../src/daemon/health.js';
import { FleetDaemon, type FleetEvents } from '../../src/daemon/fleet.js';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { newDaemonIdentity } from '../../src/fleet/leases.js';
import { logger } from '../../src/log.js';
import type { TestDatabase } from '../support/test-database.js';

export interface InProcessDaemon {
  fleet: FleetDaemon;
  metrics: DaemonMetrics;
  app: App;
}

const quiet = logger.child({}, { level: 'silent' });

/** Registers an afterEach that stops the daemons a test left running; returns the starter. */
export function useFleetDaemons(
  database: () => TestDatabase,
  baseEnv: () => Record<string, string | undefined>,
): (
  extra?: Record<string, string | undefined>,
  /** Called before the daemon starts, to hear what it does from its first moment. */
  listen?: (fleet: FleetDaemon) => void,
) => Promise<InProcessDaemon> {
  const running: FleetDaemon[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((fleet) => fleet.stop()));
  });
  return async (extra = {}, listen = () => {}) => {
    const { handle, schema } = database();
    const env: Record<string, string | undefined> = {
      ...process.env,
      JOB_POLL_INTERVAL_MS: '600000',
      ...baseEnv(),
      ...extra,
      MIRROR_SCHEMA: schema,
    };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const config = loadConfig(env as NodeJS.ProcessEnv);
    const app: App = { config, database: handle, close: async () => {} };
    const attention = () => attentionOptions({ periodMs: config.syncInterval, startedAt: performance.now() });
    const metrics = new DaemonMetrics(handle.db, 'test', attention, config.fleet.leaseSeconds);
    const fleet = new FleetDaemon(app, newDaemonIdentity(), metrics, quiet);
    running.push(fleet);
    listen(fleet);
    const listening = once(fleet, 'listening');
    await fleet.start();
    await listening;
    return { fleet, metrics, app };
  };
}

/** Resolves with the first event `name` of `fleet` whose arguments `match`, or fails after `timeoutMs`. */
export function nextEvent<K extends keyof FleetEvents>(
  fleet: FleetDaemon,
  name: K,
  match: (...args: FleetEvents[K]) => boolean = () => true,
  timeoutMs = 30_000,
): Promise<FleetEvents[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      fleet.off(name, listener as never);
      reject(new Error(`timed out waiting for the daemon's "${String(name)}"`));
    }, timeoutMs);
    const listener = (...args: FleetEvents[K]) => {
      if (!match(...args)) return;
      clearTimeout(timer);
      fleet.off(name, listener as never);
      resolve(args);
    };
    fleet.on(name, listener as never);
  });
}
