/**
 * Losing a pinned connection: the backend holding the job lock, the service lock or the sync lock
 * is ended while a send or a pull is under way. No crash; the job is interrupted or completes and
 * no invoice goes out twice; the pull stops and its run is marked. `FAULT_REPEATS=10` repeats each
 * case (the closing note's figures).
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { lockHolder as accountLockHolder } from '../../src/db/index.js';
import { CLI_PATH, runCli } from '../support/cli.js';
import { lastSyncRun } from '../support/test-database.js';
import { insertJob, jobRow, useJobsEnv } from './helpers.js';

const REPEATS = Number(process.env.FAULT_REPEATS ?? 1);
const env = useJobsEnv({ sendMsPerInvoice: 60 });
const cliEnv = () => ({
  ...env.database.current.env,
  INVOICING_API_URL: env.box.sandbox.url,
  JOB_POLL_INTERVAL_MS: '200',
  PAGE_SIZE: '5',
  LOG_LEVEL: process.env.FAULT_LOG_LEVEL ?? 'silent',
});

/** The backend holding the account's lock for `purpose` (jobs, service, sync), if any. */
async function lockHolder(purpose: 'jobs' | 'service' | 'sync'): Promise<number | null> {
  return accountLockHolder(env.database.current.handle.db, env.account().id, purpose);
}

async function terminate(pid: number): Promise<void> {
  const admin = postgres(env.database.current.url, { max: 1, onnotice: () => undefined });
  try {
    await admin`select pg_terminate_backend(${pid})`;
  } finally {
    await admin.end();
  }
}

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  // A child a failed test left behind would hold its locks and block the next case.
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts `invoice-mirror ARGS` in the background; resolves with its exit code and stderr. */
function background(args: string[]) {
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    env: { ...process.env, ...cliEnv() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  // A child that hangs fails the case with what it printed, instead of a bare test timeout.
  const done = new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `invoice-mirror ${args.join(' ')} hung for 45 s; stdout: ${stdout.slice(-2000)} stderr: ${stderr.slice(-6000)}`,
        ),
      );
    }, 45_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
  return { child, done };
}

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const noCrash = (stderr: string) => {
  expect(stderr).not.toMatch(/TypeError|Cannot read properties|unexpected error|\n\s+at /);
};

/**
 * Saved invoice ids not sent yet (each case sends its own). When rounds use them up, new ones are
 * made and pulled, since a send job refuses ids the mirror does not hold.
 */
async function unsentSavedIds(count: number): Promise<number[]> {
  const { store } = env.box.sandbox;
  const sent = new Set(store.sentSavedIds());
  const unsent = store
    .list('saved_invoices')
    .map((r) => Number(r.id))
    .filter((id) => !sent.has(id))
    .slice(0, count);
  if (unsent.length === count) return unsent;
  while (unsent.length < count) unsent.push(store.insert('saved_invoices'));
  expect((await runCli(['sync'], { env: cliEnv() })).code).toBe(0);
  return unsent;
}

describe.each(Array.from({ length: REPEATS }, (_, i) => i + 1))('a lost pinned connection (round %i)', () => {
  it('the job lock, during a send: the job stops before its next call and nothing goes out twice', async () => {
    const { handle } = env.database.current;
    const ids = await unsentSavedIds(12);
    const sentBefore = env.box.sandbox.store.sentSavedIds().length;
    const id = await insertJob(handle, 'send_saved_invoices', { ids, delete: false });
    env.box.sandbox.clearCalls();
    const run = background(['jobs', 'run']);
    await until(() => env.box.sandbox.calls.some((c) => c.method === 'POST'), 'the first send call');
    const pid = await lockHolder('jobs');
    expect(pid).not.toBeNull();
    await terminate(pid!);
    const { code, stderr } = await run.done;
    noCrash(stderr);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^invoice-mirror: lost the database connection \(.*\); run the command again/);
    // The first call completed at the service; the second was never made.
    await until(() => env.box.sandbox.store.sentSavedIds().length >= sentBefore + 10, 'the first call to finish');
    await sleep(200);
    expect(env.box.sandbox.store.sentSavedIds().slice(sentBefore)).toEqual(ids.slice(0, 10));

    // The next run recovers it; its ten may have been sent, the other two go out; nothing twice.
    expect((await runCli(['jobs', 'run'], { env: cliEnv() })).code).toBe(1);
    expect((await jobRow(handle, id)).status).toBe('interrupted');
    await runCli(['jobs', 'retry', String(id)], { env: cliEnv() });
    await runCli(['jobs', 'run'], { env: cliEnv() });
    const job = await jobRow(handle, id);
    expect(job.status).toBe('interrupted');
    expect(job.last_error).toMatch(/^10 of 12 invoices may have been sent/);
    expect(env.box.sandbox.store.sentSavedIds().slice(sentBefore)).toEqual(ids);
    await runCli(['jobs', 'cancel', String(id)], { env: cliEnv() });
  }, 60_000);

  it('the service lock, during a send: the answer still counts and the job completes', async () => {
    const { handle } = env.database.current;
    const ids = await unsentSavedIds(4);
    const sentBefore = env.box.sandbox.store.sentSavedIds().length;
    const id = await insertJob(handle, 'send_saved_invoices', { ids, delete: false });
    env.box.sandbox.clearCalls();
    const run = background(['jobs', 'run']);
    await until(() => env.box.sandbox.calls.some((c) => c.method === 'POST'), 'the send call');
    const pid = await lockHolder('service');
    expect(pid).not.toBeNull();
    await terminate(pid!);
    const { code, stderr } = await run.done;
    noCrash(stderr);
    expect(code).toBe(0);
    expect((await jobRow(handle, id)).status).toBe('succeeded');
    expect(env.box.sandbox.store.sentSavedIds().slice(sentBefore)).toEqual(ids);
  }, 60_000);

  it('the sync lock, during a pull: the pull stops, its run is marked failed, and the next one completes', async () => {
    const { db } = env.database.current.handle;
    env.box.sandbox.knobs.latencyMs = 20;
    env.box.sandbox.clearCalls();
    try {
      const run = background(['sync']);
      await until(() => env.box.sandbox.calls.length >= 4, 'the pull to be under way');
      const pid = await lockHolder('sync');
      expect(pid).not.toBeNull();
      await terminate(pid!);
      const { code, stderr } = await run.done;
      noCrash(stderr);
      expect(code).toBe(1);
      const last = await lastSyncRun(db);
      expect(last.status).toBe('failed');
      expect(last.error).toMatch(/^the database connection was lost: /);
    } finally {
      env.box.sandbox.knobs.latencyMs = 0;
    }
    const again = await runCli(['sync'], { env: cliEnv() });
    expect(again.stdout).toMatch(/run \d+: succeeded/);
  }, 60_000);

  it('the service lock, during a pull: the pull goes on', async () => {
    env.box.sandbox.knobs.latencyMs = 20;
    env.box.sandbox.clearCalls();
    try {
      const run = background(['sync']);
      await until(() => env.box.sandbox.calls.length >= 4, 'the pull to be under way');
      let pid: number | null = null;
      await until(async () => (pid = await lockHolder('service')) !== null, 'a request holding the service lock');
      await terminate(pid!);
      const { code, stderr, stdout } = await run.done;
      noCrash(stderr);
      expect(stdout).toMatch(/run \d+: succeeded/);
      expect(code).toBe(0);
    } finally {
      env.box.sandbox.knobs.latencyMs = 0;
    }
  }, 60_000);
});

describe('pool sizes', () => {
  it('a pool too small for what a command holds is refused at start-up; the smallest that is not works', async () => {
    const daemon = await runCli(['daemon'], { env: { ...cliEnv(), DB_POOL_SIZE: '3', HEALTH_PORT: '0' } });
    expect(daemon.code).toBe(2);
    expect(daemon.stderr).toBe(
      "invoice-mirror: DB_POOL_SIZE: 3 is too small for the daemon, which holds a sync lock, a job lock and one request's service lock, plus one connection for its other queries at once; set it to at least 4\n",
    );
    const sync1 = await runCli(['sync'], { env: { ...cliEnv(), DB_POOL_SIZE: '1' } });
    expect(sync1.code).toBe(2);
    expect(sync1.stderr).toMatch(
      /^invoice-mirror: DB_POOL_SIZE: 1 is too small for a sync, .* set it to at least 2\n$/,
    );

    const sync2 = await runCli(['sync'], { env: { ...cliEnv(), DB_POOL_SIZE: '2' }, timeoutMs: 60_000 });
    expect(sync2.stdout).toMatch(/run \d+: succeeded/);
    const id = await insertJob(env.database.current.handle, 'set_product_stock', { id: 3, stock: 11 });
    const jobs2 = await runCli(['jobs', 'run'], { env: { ...cliEnv(), DB_POOL_SIZE: '2' }, timeoutMs: 60_000 });
    expect(jobs2.code).toBe(0);
    expect((await jobRow(env.database.current.handle, id)).status).toBe('succeeded');
  }, 120_000);
});

describe('jobs add refuses what Postgres cannot store', () => {
  it('a NUL or half a surrogate pair in the payload, an attempt count beyond an integer: exit 2, one line', async () => {
    const nul = await runCli(['jobs', 'add', 'create_product', '{"product": {"name": "a\\u0000b"}}'], {
      env: cliEnv(),
    });
    expect(nul).toMatchObject({
      code: 2,
      stderr:
        'invoice-mirror: payload.product.name: a NUL character (\\u0000), which Postgres cannot store; remove it from the value\n',
    });
    const surrogate = await runCli(['jobs', 'add', 'create_product', '{"product": {"name": "\\ud800"}}'], {
      env: cliEnv(),
    });
    expect(surrogate.code).toBe(2);
    expect(surrogate.stderr).toMatch(/^invoice-mirror: payload\.product\.name: half of a UTF-16 surrogate pair/);
    const attempts = await runCli(
      ['jobs', 'add', 'set_product_stock', '{"id": 1, "stock": 1}', '--max-attempts', '99999999999'],
      { env: cliEnv() },
    );
    expect(attempts).toMatchObject({
      code: 2,
      stderr: "invoice-mirror: --max-attempts: must be a whole number from 1 to 1000, got '99999999999'\n",
    });
    const bigId = await runCli(['jobs', 'add', 'delete_product', '{"id": 99999999999}'], { env: cliEnv() });
    expect(bigId).toMatchObject({ code: 2, stderr: 'invoice-mirror: payload.id: must be at most 2147483647\n' });
  });
});
