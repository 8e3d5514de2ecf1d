/**
 * The keeper of the embedded server (src/db/keeper-process.ts): one per data directory, however
 * many start at once; it stops the server once nobody has held it for EMBEDDED_DB_IDLE_STOP; when
 * it is killed, its server does not outlive it and a daemon holding the server carries on under a
 * new keeper; `status` says who holds the server.
 *
 * The processes are found in /proc (Linux, where the tests run in CI). Each test has its own
 * throwaway directory, not the tests' shared server.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { serverUser } from '../../src/db/embedded-postgres.js';
import { runCli } from '../support/cli.js';
import { useDaemons, waitFor } from '../support/daemon.js';
import { useSandbox } from '../support/sandbox.js';
import { embeddedDbParent } from '../support/test-database.js';

const KEEPER_PATH = fileURLToPath(new URL('../../dist/cli/keeper.js', import.meta.url));
const parent = embeddedDbParent('im-embedded-keeper-');
const box = useSandbox({ perEntity: { clients: 10, products: 10, quotations: 5, saved_invoices: 5 } });
let dbDir = join(parent, 'unset');
const env = () => ({
  DATABASE_URL: undefined,
  EMBEDDED_DB_DIR: dbDir,
  INVOICING_API_URL: box.sandbox.url,
  LOG_LEVEL: 'warn',
  EMBEDDED_DB_IDLE_STOP: '1s',
});
const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...env(), ...extra } });
const startDaemon = useDaemons(env);

interface Running {
  pid: number;
  args: string[];
}

/** The processes whose command line is the directory's: its postmasters (`postgres -D dir`) and keepers. */
/** A process's parent (0 when it is gone meanwhile). */
function parentPid(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  } catch {
    return 0;
  }
}

function processesOf(dir = dbDir): { postmasters: number[]; keepers: number[] } {
  const found: Running[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      found.push({ pid: Number(name), args: readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0') });
    } catch {
      // gone meanwhile
    }
  }
  const servers = found.filter(({ args }) => args[0]?.endsWith('/postgres') && args[args.indexOf('-D') + 1] === dir);
  // A backend just forked still shows its postmaster's command line until it sets its own title:
  // a server whose parent is one of them is such a child, not a second postmaster.
  const serverPids = new Set(servers.map(({ pid }) => pid));
  const postmasters = servers.filter(({ pid }) => !serverPids.has(parentPid(pid)));
  const keepers = found.filter(
    ({ args }) => args[1]?.endsWith('keeper.js') && JSON.parse(args[2] ?? '{}').dataDir === dir,
  );
  return { postmasters: postmasters.map((p) => p.pid), keepers: keepers.map((p) => p.pid) };
}

const used: string[] = [];
async function freshDatabase(name: string): Promise<void> {
  dbDir = join(parent, name);
  used.push(dbDir);
  const migrated = await cli(['migrate']);
  expect(migrated.stderr).toBe('');
}

afterAll(async () => {
  // Whatever a failed test left running: its keepers stop their servers (SIGTERM).
  for (const dir of used) {
    for (const pid of processesOf(dir).keepers) process.kill(pid, 'SIGTERM');
    await waitFor('the servers to stop', async () => processesOf(dir).postmasters.length === 0, 30_000).catch(
      () => undefined,
    );
  }
  rmSync(parent, { recursive: true, force: true });
});

async function readyz(url: string): Promise<number> {
  return fetch(`${url}/readyz`).then(
    (response) => response.status,
    () => 0,
  );
}

/** `status --json`'s report of the keeper. */
async function keeperReport(): Promise<{
  keeper: { pid: number; since: string };
  server: { pid: number } | null;
  holders: { pid: number; command: string }[];
}> {
  const status = await cli(['status', '--json']);
  expect(status.stderr).toBe('');
  return JSON.parse(status.stdout).embeddedServer;
}

/** Queues a job and waits for the daemon to run it; resolves to the milliseconds that took. */
async function jobRuns(stock: number): Promise<number> {
  const began = performance.now();
  const added = await cli(['jobs', 'add', 'set_product_stock', JSON.stringify({ id: 1, stock })]);
  expect(added.stderr).toBe('');
  const id = Number(added.stdout.trim());
  await waitFor(
    `the daemon to run job ${id}`,
    async () => JSON.parse((await cli(['jobs', 'show', String(id), '--format', 'json'])).stdout).status === 'succeeded',
    30_000,
  );
  return performance.now() - began;
}

describe.skipIf(process.platform !== 'linux')('the keeper of the embedded server', () => {
  it('status names the holders (the daemon and itself) and the keeper, which is the server’s parent', async () => {
    await freshDatabase('status');
    const daemon = await startDaemon({ LOG_LEVEL: 'info' });
    const report = await keeperReport();
    const { postmasters, keepers } = processesOf();
    expect(keepers).toEqual([report.keeper.pid]);
    expect(postmasters).toEqual([report.server!.pid]);
    const parentOf = readFileSync(`/proc/${report.server!.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1];
    expect(Number(parentOf)).toBe(report.keeper.pid);
    expect(report.holders.map((h) => h.command).sort()).toEqual(['invoice-mirror daemon', 'invoice-mirror status']);
    expect(report.holders.find((h) => h.command === 'invoice-mirror daemon')!.pid).toBe(daemon.child.pid);

    const text = await cli(['status']);
    expect(text.stdout).toContain(`\nEmbedded server: kept by process ${report.keeper.pid}, started `);
    expect(text.stdout).toContain(`; PostgreSQL process ${report.server!.pid}, started `);
    expect(text.stdout).toMatch(
      new RegExp(`\\nHeld by 2 processes\\n[^]*\\b${daemon.child.pid}\\s+invoice-mirror daemon\\b`),
    );
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  }, 90_000);

  it('several keepers started at once on one directory: one stays, the others leave at once', async () => {
    await freshDatabase('race');
    await waitFor('the server to stop after migrate', async () => processesOf().keepers.length === 0, 20_000);
    const options = JSON.stringify({ dataDir: dbDir, idleStopMs: 3000, settings: [], runAs: serverUser() });
    const started = Array.from({ length: 4 }, () =>
      spawn(process.execPath, [KEEPER_PATH, options], { stdio: 'ignore' }),
    );
    const codes = started.map((child) => new Promise<number | null>((resolve) => child.on('exit', resolve)));
    // Three leave (exit 0) while the fourth keeps the server until its idle time is up.
    const first = await Promise.race(codes);
    expect(first).toBe(0);
    await waitFor(
      'three keepers to leave',
      async () => started.filter((c) => c.exitCode !== null).length === 3,
      10_000,
    );
    expect(started.filter((c) => c.exitCode === 0)).toHaveLength(3);
    const { keepers, postmasters } = processesOf();
    expect(keepers).toHaveLength(1);
    expect(postmasters.length).toBeLessThanOrEqual(1);
    expect(await Promise.all(codes)).toEqual([0, 0, 0, 0]);
    expect(processesOf()).toEqual({ postmasters: [], keepers: [] });
  }, 60_000);

  it('the server stops EMBEDDED_DB_IDLE_STOP after the last command, not before', async () => {
    await freshDatabase('idle');
    await waitFor('the server to stop after migrate', async () => processesOf().keepers.length === 0, 20_000);
    const done = await cli(['status'], { EMBEDDED_DB_IDLE_STOP: '4s' });
    expect(done.code).toBe(0);
    const left = performance.now();
    expect(processesOf().postmasters).toHaveLength(1);
    await waitFor('the server to stop', async () => processesOf().postmasters.length === 0, 20_000);
    expect(performance.now() - left).toBeGreaterThan(3000);
    await waitFor('its keeper to leave', async () => processesOf().keepers.length === 0, 5000);
  }, 60_000);

  it('a keeper killed while nobody holds the server: its server stops too (the sentinel)', async () => {
    await freshDatabase('sentinel');
    await cli(['status'], { EMBEDDED_DB_IDLE_STOP: '10m' });
    const { keepers, postmasters } = processesOf();
    expect(keepers).toHaveLength(1);
    expect(postmasters).toHaveLength(1);
    const logBefore = readFileSync(join(dbDir, 'server.log'), 'utf8').length;
    process.kill(keepers[0]!, 'SIGKILL');
    await waitFor('the server to stop', async () => processesOf().postmasters.length === 0, 15_000);
    // Asked by the sentinel (the keeper logs its own stops, and it is dead).
    const logged = readFileSync(join(dbDir, 'server.log'), 'utf8').slice(logBefore);
    expect(logged).toContain('received fast shutdown request');
    expect(logged).not.toContain('invoice-mirror keeper');
    const again = await cli(['sql', 'select 1 as one', '--format', 'json']);
    expect(JSON.parse(again.stdout)).toEqual([{ one: 1 }]);
  }, 60_000);

  it('a keeper killed under a running daemon: a new one takes over, /readyz is 200 again and the next job runs', async () => {
    await freshDatabase('killed');
    const daemon = await startDaemon({ LOG_LEVEL: 'info' });
    await waitFor('/readyz to answer 200', async () => (await readyz(daemon.url)) === 200, 30_000);
    await jobRuns(3);
    const before = processesOf();
    expect(before.keepers).toHaveLength(1);
    expect(before.postmasters).toHaveLength(1);

    process.kill(before.keepers[0]!, 'SIGKILL');
    const killedAt = performance.now();
    // Queued at once: the command waits for the new keeper's server, the daemon's runner for its
    // LISTEN to come back.
    await jobRuns(4);
    const jobAfter = performance.now() - killedAt;
    await waitFor('/readyz to answer 200 again', async () => (await readyz(daemon.url)) === 200, 30_000);
    const readyAfter = performance.now() - killedAt;
    console.info(
      `keeper killed: the next job ran after ${Math.round(jobAfter)} ms, /readyz 200 after ${Math.round(readyAfter)} ms`,
    );
    expect(jobAfter).toBeLessThan(30_000);
    expect(readyAfter).toBeLessThan(30_000);
    expect(daemon.stderr()).toContain('the embedded database does not answer; starting it again');
    expect(daemon.stderr()).toContain('"reason":"its keeper is gone"');
    expect(daemon.stderr()).toContain('the embedded database answers again');
    // One new keeper and one new server, its child.
    const after = processesOf();
    expect(after.keepers).toHaveLength(1);
    expect(after.postmasters).toHaveLength(1);
    expect(after.keepers[0]).not.toBe(before.keepers[0]);
    expect(after.postmasters[0]).not.toBe(before.postmasters[0]);

    // A killed daemon is a hold the kernel ends: the server stops after the idle time.
    daemon.child.kill('SIGKILL');
    await waitFor('the server to stop after the daemon', async () => processesOf().postmasters.length === 0, 20_000);
  }, 150_000);
});
