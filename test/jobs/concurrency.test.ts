/**
 * One job at a time across runners: two runners on one database (separate connections, separate
 * API clients that do not share a request queue) never have two calls in flight. NOTIFY wakes a
 * waiting runner at once; stop() lets the job in progress finish.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvoicingClient } from '../../src/api/index.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/index.js';
import type { JobFinished } from '../../src/jobs/index.js';
import { clientFor } from '../support/sandbox.js';
import { insertJob, jobRow, useJobsEnv } from './helpers.js';

const env = useJobsEnv();
let second: { handle: DatabaseHandle; client: InvoicingClient };

beforeAll(async () => {
  const { url, schema } = env.database.current;
  // Another host name for the same sandbox, so this client gets a request queue of its own
  // (clients of one account in one process share a queue, which would hide any overlap).
  const otherUrl = env.box.sandbox.url.replace('127.0.0.1', '[::ffff:127.0.0.1]');
  second = {
    handle: await openDatabase({ databaseUrl: url, embeddedDbDir: '', schema }),
    client: clientFor(env.box.sandbox, { baseUrl: otherUrl }),
  };
});
afterAll(async () => {
  await second?.client.close();
  await second?.handle.close();
});

describe('two runners on one database', () => {
  it('the two API clients can overlap on their own (so the test below means something)', async () => {
    env.box.sandbox.clearCalls();
    await Promise.all([
      env.box.client.get('clients', 1),
      second.client.get('clients', 2),
      env.box.client.get('clients', 3),
      second.client.get('clients', 4),
    ]);
    env.box.sandbox.knobs.latencyMs = 50;
    env.box.sandbox.clearCalls();
    await Promise.all([env.box.client.get('clients', 1), second.client.get('clients', 2)]);
    env.box.sandbox.knobs.latencyMs = 0;
    expect(env.box.sandbox.maxConcurrency()).toBe(2);
  });

  it('never have two calls in flight, and run every job exactly once', async () => {
    const handle = env.database.current.handle;
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(
        await insertJob(handle, 'send_saved_invoices', { ids: [1 + i * 3, 2 + i * 3, 3 + i * 3], delete: false }),
      );
      ids.push(await insertJob(handle, 'set_product_stock', { id: 1 + i, stock: 10 + i }));
      ids.push(await insertJob(handle, 'update_client', { clientnr: 1 + i, changes: { notes: `run ${i}` } }));
    }
    env.box.sandbox.clearCalls();
    const a = env.runner({ pollMs: 50 });
    const b = env.runner({ handle: second.handle, client: second.client, pollMs: 50 });
    const finished: Array<JobFinished & { runner: string }> = [];
    a.on('finished', (job) => finished.push({ ...job, runner: 'a' }));
    b.on('finished', (job) => finished.push({ ...job, runner: 'b' }));
    // One drains with runUntilEmpty, the other runs as a daemon would.
    b.start();
    const drained = await a.runUntilEmpty();
    while (finished.length < ids.length) await sleep(20);
    await b.stop();

    expect(finished.map((f) => f.id).sort((x, y) => x - y)).toEqual(ids);
    expect(finished.every((f) => f.status === 'succeeded')).toBe(true);
    expect(drained.ran).toBe(finished.filter((f) => f.runner === 'a').length);
    // Both took turns (waiters get the lock in order).
    expect(drained.ran).toBeGreaterThan(0);
    expect(finished.some((f) => f.runner === 'b')).toBe(true);
    expect(env.box.sandbox.calls.length).toBeGreaterThan(ids.length);
    expect(env.box.sandbox.maxConcurrency()).toBe(1);
    // The jobs themselves never overlapped either.
    const rows = await Promise.all(ids.map((id) => jobRow(handle, id)));
    const spans = rows
      .map((r) => [new Date(r.started_at!).getTime(), new Date(r.finished_at!).getTime()] as const)
      .sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
  });
});

describe('a started runner', () => {
  it('is woken by NOTIFY at once, long before its polling interval', async () => {
    const runner = env.runner({ pollMs: 60_000 });
    runner.start();
    await sleep(100); // let it finish its first (empty) pass and LISTEN
    const done = new Promise<JobFinished>((resolve) => runner.on('finished', resolve));
    const queuedAt = Date.now();
    const id = await insertJob(env.database.current.handle, 'set_product_stock', { id: 9, stock: 1 });
    const job = await done;
    expect(job).toMatchObject({ id, status: 'succeeded' });
    expect(Date.now() - queuedAt).toBeLessThan(1000);
    await runner.stop();
  });

  it('runs a job that waited out a backoff without being woken', async () => {
    const runner = env.runner({ pollMs: 60_000 });
    const handle = env.database.current.handle;
    env.box.sandbox.failNext('500', 3, { method: 'PUT' });
    const id = await insertJob(handle, 'set_product_stock', { id: 10, stock: 2 });
    const outcomes: string[] = [];
    const succeeded = new Promise<void>((resolve) =>
      runner.on('finished', (job) => {
        outcomes.push(job.status);
        if (job.status === 'succeeded') resolve();
      }),
    );
    runner.start();
    await succeeded;
    await runner.stop();
    expect(outcomes).toEqual(['queued', 'succeeded']);
    expect((await jobRow(handle, id)).attempts).toBe(2);
  });

  it('stop() lets the job in progress finish, and takes no more', async () => {
    const handle = env.database.current.handle;
    env.box.sandbox.knobs.sendMsPerInvoice = 150;
    const slow = await insertJob(handle, 'send_saved_invoices', { ids: [20, 21, 22], delete: false });
    const next = await insertJob(handle, 'set_product_stock', { id: 3, stock: 5 });
    const runner = env.runner({ pollMs: 60_000 });
    runner.start();
    while (runner.current !== slow) await sleep(5);
    await runner.stop();
    env.box.sandbox.knobs.sendMsPerInvoice = 20;
    expect(runner.current).toBeNull();
    expect((await jobRow(handle, slow)).status).toBe('succeeded');
    expect((await jobRow(handle, next)).status).toBe('queued');
    await env.runner().runUntilEmpty();
  });
});
