/**
 * Starting `invoice-mirror daemon` as a child process, and waiting for what it does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { sql, type Kysely } from 'kysely';
import { afterEach } from 'vitest';
import type { Database } from '../../src/db/index.js';
import { freePort } from '../../src/db/embedded-server.js';
import { CLI_PATH } from './cli.js';

export { freePort };

export interface Daemon {
  child: ChildProcess;
  /** Base URL of its health and metrics server. */
  url: string;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Registers an afterEach that kills the daemons a test left running; returns the starter. */
export function useDaemons(baseEnv: () => Record<string, string | undefined>) {
  const daemons: ChildProcess[] = [];
  afterEach(() => {
    for (const child of daemons.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });
  return async function startDaemon(extra: Record<string, string | undefined> = {}): Promise<Daemon> {
    const port = await freePort();
    const env: Record<string, string | undefined> = {
      ...process.env,
      HEALTH_PORT: String(port),
      // A poll far longer than the test: a job that runs quickly was woken by NOTIFY.
      JOB_POLL_INTERVAL_MS: '600000',
      SYNC_CRON: '*/15 * * * *',
      LOG_LEVEL: 'info',
      ...baseEnv(),
      ...extra,
    };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const child = spawn(process.execPath, [CLI_PATH, 'daemon'], {
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    daemons.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await waitFor(
      'the daemon to start',
      async () => {
        if (child.exitCode !== null) throw new Error(`daemon exited early: ${stderr}`);
        return stderr.includes('daemon started');
      },
      30_000,
    );
    return { child, url: `http://127.0.0.1:${port}`, exited, stderr: () => stderr };
  };
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
): Promise<T> {
  // Monotonic: tests may step the wall clock (vi.setSystemTime) while they wait.
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Per account: seconds since its newest succeeded scheduled pull finished, by the database's clock
 * (Infinity while it has none): how fresh the fleet keeps it.
 */
export async function freshness(db: Kysely<Database>): Promise<Map<number, number>> {
  const { rows } = await sql<{ account_id: number; age: number | null }>`
    select a.id as account_id, extract(epoch from now() - max(r.finished_at))::float8 as age
      from accounts a left join sync_runs r on r.account_id = a.id and r.kind = 'sync' and r.status = 'succeeded'
     group by a.id`.execute(db);
  return new Map(rows.map((row) => [Number(row.account_id), row.age === null ? Number.POSITIVE_INFINITY : row.age]));
}

/** What a fleet test's daemons share: the sandbox, the master secret, and a freshness target instead of a cron. */
export function fleetEnv(
  databaseEnv: Record<string, string | undefined>,
  sandboxUrl: string,
  secret: string,
  intervalSeconds: number,
): Record<string, string | undefined> {
  return {
    ...databaseEnv,
    INVOICING_API_URL: sandboxUrl,
    ACCOUNTS_SECRET: secret,
    SYNC_CRON: undefined,
    SYNC_INTERVAL: `${intervalSeconds}s`,
  };
}
