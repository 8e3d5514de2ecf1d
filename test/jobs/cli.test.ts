/**
 * The `jobs` commands as a user runs them, including a worker killed during a send and two
 * `jobs run` processes on one database.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../support/cli.js';
import { insertJob, jobRow, useJobsEnv, writeCalls } from './helpers.js';

const env = useJobsEnv();
const cliEnv = () => ({
  ...env.database.current.env,
  INVOICING_API_URL: env.box.sandbox.url,
  JOB_POLL_INTERVAL_MS: '200',
});
const cli = (...args: string[]) => runCli(['jobs', ...args], { env: cliEnv() });

describe('jobs add, list, show, cancel, retry', () => {
  it('add validates before queuing and prints the id', async () => {
    const added = await cli('add', 'set_product_stock', '{"id": 2, "stock": 4}');
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const id = Number(added.stdout.trim());
    expect((await jobRow(env.database.current.handle, id)).payload).toEqual({ id: 2, stock: 4 });

    expect(await cli('add', 'set_product_stock', '{"id": 2, "stock": "four"}')).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'invoice-mirror: payload.stock: must be a number\n',
    });
    expect(await cli('add', 'set_product_stock', '{id: 2}')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^invoice-mirror: JSON: not valid JSON \(/),
    });

    const first = await cli('add', 'delete_product', '{"id": 10}', '--key', 'once');
    const again = await cli('add', 'delete_product', '{"id": 10}', '--key', 'once');
    expect(again.stdout).toBe(first.stdout);
    expect(again.stderr).toBe(`invoice-mirror: already queued as job ${first.stdout.trim()} (same idempotency key)\n`);
    expect(await cli('add', 'delete_product', '{"id": 9}', '--key', 'once')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("idempotency key 'once' is already used by job"),
    });

    const cancelled = await cli('cancel', first.stdout.trim());
    expect(cancelled).toMatchObject({ code: 0, stdout: `job ${first.stdout.trim()} cancelled\n` });
    expect(await cli('cancel', first.stdout.trim())).toMatchObject({
      code: 1,
      stderr: `invoice-mirror: job ${first.stdout.trim()} was cancelled; only a queued or interrupted job can be cancelled\n`,
    });
    expect(await cli('show', '999999')).toMatchObject({ code: 1, stderr: 'invoice-mirror: no job 999999\n' });

    const list = await cli('list', '--status', 'queued', '--format', 'json');
    expect((JSON.parse(list.stdout) as Array<{ id: number; kind: string }>).map((j) => [j.id, j.kind])).toEqual([
      [id, 'set_product_stock'],
    ]);
    const show = await cli('show', String(id));
    expect(show.stdout).toContain(
      `id: ${id}\nkind: set_product_stock\npayload:\n  {\n    "id": 2,\n    "stock": 4\n  }\nstatus: queued\n`,
    );
  });

  it('run drains the queue; exit code 1 when a job failed', async () => {
    const ok = await cli('run');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^job \d+ set_product_stock: succeeded\nran 1 job: 1 succeeded, 0 failed, 0 interrupted\n$/,
    );

    const bad = await insertJob(env.database.current.handle, 'approve_quotation', {
      id: 9,
      name: 'X',
      date: '2026-01-01',
    });
    const failed = await cli('run');
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(`job ${bad} approve_quotation: failed (quotation 9 is a draft (not sent)`);
    expect(await cli('retry', String(bad))).toMatchObject({ code: 0, stdout: `job ${bad} queued\n` });
    expect((await jobRow(env.database.current.handle, bad)).status).toBe('queued');
    expect((await cli('cancel', String(bad))).code).toBe(0);
  });
});

describe('a worker killed during a send', () => {
  it('leaves the job interrupted; a retry never sends again what may have been sent, and the person decides', async () => {
    const { handle } = env.database.current;
    const id = await insertJob(handle, 'send_saved_invoices', { ids: [33, 34], delete: false });
    const sentBefore = env.box.sandbox.store.sentSavedIds().length;
    env.box.sandbox.knobs.sendMsPerInvoice = 300;
    env.box.sandbox.clearCalls();
    const child = spawn(process.execPath, [CLI_PATH, 'jobs', 'run'], {
      env: { ...process.env, ...cliEnv(), LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    while (!env.box.sandbox.calls.some((c) => c.method === 'POST')) await sleep(10);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('close', resolve));
    expect((await jobRow(handle, id)).status).toBe('running');
    // The service finishes the call the worker no longer waits for.
    while (env.box.sandbox.store.sentSavedIds().length < sentBefore + 2) await sleep(20);
    env.box.sandbox.knobs.sendMsPerInvoice = 20;

    // The next runner recovers it as interrupted, and sends nothing.
    env.box.sandbox.clearCalls();
    const next = await cli('run');
    const commands = `check the service; if it happened, run 'invoice-mirror jobs retry ${id} --mark-sent 33,34'; if it did not, run 'invoice-mirror jobs retry ${id} --resend 33,34'`;
    const message = `interrupted: the worker stopped during attempt 1: ids 33, 34 may have been sent (their call was in flight); 0 of 2 confirmed sent. A retry first checks the service for them where it can, and sends only the ids certainly not sent; ${commands}`;
    expect(next.stdout).toBe(
      `job ${id} send_saved_invoices: left running by a worker that stopped; now interrupted (${message})\nran 0 jobs: 0 succeeded, 0 failed, 0 interrupted\n`,
    );
    expect(next.code).toBe(1);
    let job = await jobRow(handle, id);
    expect(job.status).toBe('interrupted');
    expect(job.last_error).toBe(message);
    expect((job.result as { batches: Array<{ outcome: string }> }).batches.map((b) => b.outcome)).toEqual(['unknown']);
    expect((await cli('show', String(id))).stdout).toContain('ids by state:\n  may have been sent (unknown): 33, 34\n');
    expect((await cli('run')).stdout).toBe('ran 0 jobs: 0 succeeded, 0 failed, 0 interrupted\n');
    expect(writeCalls(env.box.sandbox)).toEqual([]);

    // A plain retry: the call has not settled (the service may still be sending), so nothing is
    // sent, and the message says when a retry can tell and gives the commands.
    expect(await cli('retry', String(id))).toMatchObject({ code: 0, stdout: `job ${id} queued\n` });
    const retried = await cli('run');
    expect(retried.code).toBe(1);
    expect(retried.stdout).toContain(
      `2 of 2 invoices may have been sent: ids 33, 34: the service may still be carrying it out until `,
    );
    expect(retried.stdout).toContain(commands);
    expect(writeCalls(env.box.sandbox)).toEqual([]);

    // Wrong ids are refused; the person checked and saw them sent.
    expect(await cli('retry', String(id), '--resend', '35')).toMatchObject({
      code: 1,
      stderr: `invoice-mirror: --resend: 35 is not an id of unknown outcome in job ${id} (those are: 33, 34)\n`,
    });
    expect(await cli('retry', String(id), '--mark-sent', '33,34')).toMatchObject({
      code: 0,
      stdout: `job ${id} queued\n`,
    });
    expect((await cli('run')).code).toBe(0);
    job = await jobRow(handle, id);
    expect(job.status).toBe('succeeded');
    expect(writeCalls(env.box.sandbox)).toEqual([]);
    // Each went out exactly once.
    expect(env.box.sandbox.store.sentSavedIds().slice(sentBefore)).toEqual([33, 34]);
  }, 60_000);
});

describe('two jobs run processes on one database', () => {
  it('never have two calls in flight', async () => {
    const { handle } = env.database.current;
    const ids: number[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(await insertJob(handle, 'send_saved_invoices', { ids: [1 + i, 7 + i], delete: false }));
    env.box.sandbox.knobs.sendMsPerInvoice = 60;
    env.box.sandbox.clearCalls();
    const [a, b] = await Promise.all([cli('run'), cli('run')]);
    env.box.sandbox.knobs.sendMsPerInvoice = 20;
    expect([a.code, b.code]).toEqual([0, 0]);
    for (const id of ids) expect((await jobRow(handle, id)).status).toBe('succeeded');
    expect(writeCalls(env.box.sandbox)).toHaveLength(6);
    expect(env.box.sandbox.maxConcurrency()).toBe(1);
  }, 60_000);
});
