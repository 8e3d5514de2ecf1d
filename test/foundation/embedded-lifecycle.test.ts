/**
 * Who keeps the embedded server up, and who stops it: its keeper brings back a server that was
 * killed under a daemon (as the OOM killer would), no command's exit stops a server a daemon
 * holds, and short commands that overlap never fail because the server was stopping as the last
 * one left (the keeper killed, `status`, a second keeper: embedded-keeper.test.ts).
 *
 * Each test has its own throwaway directory, not the tests' shared server.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { useDaemons, waitFor } from '../support/daemon.js';
import { useSandbox } from '../support/sandbox.js';
import { embeddedDbParent } from '../support/test-database.js';

/** Rounds of six overlapping commands; CI runs a few, a hunt for a rare race runs many. */
const ROUNDS = Number(process.env.EMBEDDED_STRESS_ROUNDS ?? 8);

const parent = embeddedDbParent('im-embedded-life-');
const box = useSandbox({ perEntity: { clients: 20, products: 10, quotations: 5, saved_invoices: 5 } });
let dbDir = join(parent, 'unset');
const env = () => ({
  DATABASE_URL: undefined,
  EMBEDDED_DB_DIR: dbDir,
  INVOICING_API_URL: box.sandbox.url,
  LOG_LEVEL: 'warn',
});
const cli = (args: string[]) => runCli(args, { env: env() });
const startDaemon = useDaemons(env);

/** The postmaster's pid while one runs on the directory, else undefined. */
function postmasterPid(dir = dbDir): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? Number.NaN : undefined;
  }
}

const used: string[] = [];
/** A fresh directory for the test's database (created by `migrate`). */
async function freshDatabase(name: string): Promise<void> {
  dbDir = join(parent, name);
  used.push(dbDir);
  const migrated = await cli(['migrate']);
  expect(migrated.stderr).toBe('');
}

afterAll(async () => {
  // Whatever a failed test left running: stop it (fast shutdown) before its directory goes.
  for (const dir of used) {
    const pid = postmasterPid(dir);
    if (pid) process.kill(pid, 'SIGINT');
    await waitFor('the server to stop', async () => !postmasterPid(dir), 30_000).catch(() => undefined);
  }
  rmSync(parent, { recursive: true, force: true });
});

async function readyz(url: string): Promise<number> {
  return fetch(`${url}/readyz`).then(
    (response) => response.status,
    () => 0,
  );
}

describe('the embedded server and a daemon', () => {
  it('a daemon brings a killed server back: /readyz answers 200 again and a job queued afterwards runs', async () => {
    await freshDatabase('daemon');
    const daemon = await startDaemon({ LOG_LEVEL: 'info' });
    await waitFor('/readyz to answer 200', async () => (await readyz(daemon.url)) === 200, 30_000);
    const killed = postmasterPid();
    expect(killed).toBeGreaterThan(0);
    process.kill(killed!, 'SIGKILL');
    const killedAt = performance.now();

    // No command runs meanwhile: the keeper starts the server again, the daemon reconnects.
    const restarted = await waitFor(
      'a new server on the directory',
      async () => {
        const pid = postmasterPid();
        return pid && pid !== killed ? pid : undefined;
      },
      30_000,
    );
    await waitFor('/readyz to answer 200 again', async () => (await readyz(daemon.url)) === 200, 30_000);
    const readyAfter = performance.now() - killedAt;
    expect(daemon.stderr()).toContain('the embedded database does not answer; starting it again');
    expect(daemon.stderr()).toContain('the embedded database answers again');

    const added = await cli(['jobs', 'add', 'set_product_stock', '{"id": 1, "stock": 11}']);
    expect(added.stderr).toBe('');
    const id = Number(added.stdout.trim());
    await waitFor(
      'the daemon to run the job',
      async () => {
        const shown = await cli(['jobs', 'show', String(id), '--format', 'json']);
        return JSON.parse(shown.stdout).status === 'succeeded';
      },
      30_000,
    );
    console.info(
      `server killed: /readyz 200 after ${Math.round(readyAfter)} ms, the next job ran after ${Math.round(performance.now() - killedAt)} ms`,
    );
    // The commands' exits left the server the daemon uses running.
    expect(postmasterPid()).toBe(restarted);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    await waitFor('the server to stop after the daemon', async () => !postmasterPid(), 20_000);
  }, 120_000);
});

describe('short commands that overlap on the embedded server', () => {
  it(
    `never fail because another one's exit shuts the server down (${ROUNDS} rounds of six)`,
    async () => {
      await freshDatabase('overlap');
      // An account: `accounts list` lists it instead of hinting at an empty mirror (products are
      // not pulled, so `jobs add` queues for any product id).
      expect((await cli(['backfill', '--only', 'quotations'])).code).toBe(0);
      const failures: string[] = [];
      const queued: number[] = [];
      let slowest = { ms: 0, command: '' };
      for (let round = 1; round <= ROUNDS; round++) {
        const commands = [
          ['jobs', 'add', 'set_product_stock', JSON.stringify({ id: round, stock: 1 })],
          ['status'],
          ['sql', 'select 1'],
          ['jobs', 'list'],
          ['report', 'open_quotations'],
          ['accounts', 'list'],
          ['jobs', 'add', 'set_product_stock', JSON.stringify({ id: round, stock: 2 })],
        ];
        // Started a little apart, so that some exit while others are starting up; the server
        // stops as soon as the last one has left (EMBEDDED_DB_IDLE_STOP=0), the hardest case.
        const results = await Promise.all(
          commands.map(async (args): Promise<[string[], CliResult]> => {
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 400));
            const began = performance.now();
            const result = await runCli(args, { env: { ...env(), EMBEDDED_DB_IDLE_STOP: '0' } });
            const ms = performance.now() - began;
            if (ms > slowest.ms) slowest = { ms, command: `round ${round}: ${args.slice(0, 2).join(' ')}` };
            return [args, result];
          }),
        );
        for (const [args, result] of results) {
          if (result.code !== 0 || result.stderr !== '') {
            failures.push(`round ${round}, ${args.join(' ')}: ${result.code} ${result.stderr.trim()}`);
          } else if (args[1] === 'add') queued.push(Number(result.stdout.trim()));
        }
      }
      console.info(`${ROUNDS} rounds; slowest command ${Math.round(slowest.ms)} ms (${slowest.command})`);
      expect(failures).toEqual([]);
      const listed = await cli(['sql', 'select id from jobs order by id', '--format', 'json']);
      expect(listed.stderr).toBe('');
      const ids = (JSON.parse(listed.stdout) as { id: number }[]).map((row) => row.id);
      expect(ids).toEqual(queued.sort((a, b) => a - b));
      expect(ids).toHaveLength(2 * ROUNDS);
    },
    60_000 + ROUNDS * 20_000,
  );
});
