/**
 * What happens after an attempt that did not succeed: refusals fail at once, retryable failures
 * go back to the queue with backoff, rate limits wait without spending an attempt, unknown
 * outcomes of sends and creates wait for `jobs retry`, orphans of a dead worker are recovered.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { addJob, cancelJob, JobStateError, retryJob } from '../../src/jobs/index.js';
import { insertJob, jobRow, mirrorRow, useJobsEnv, writeCalls } from './helpers.js';

const env = useJobsEnv();
const handle = () => env.database.current.handle;
const run = () => env.runner().runUntilEmpty();

/** Waits until the job's `run_after` has passed (retry tests use a backoff of tens of ms). */
async function waitUntilDue(id: number) {
  const job = await jobRow(handle(), id);
  await sleep(Math.max(0, new Date(job.run_after).getTime() - Date.now()) + 20);
}

describe('refusals fail at once and are not retried', () => {
  it("deleting a client that has documents fails with the service's message", async () => {
    const clientnr = Number(env.box.sandbox.store.list('quotations').find((q) => Number(q.clientnr) > 0)!.clientnr);
    const id = await insertJob(handle(), 'delete_client', { clientnr });
    env.box.sandbox.clearCalls();
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    const job = await jobRow(handle(), id);
    expect(job.status).toBe('failed');
    expect(job.last_error).toBe(
      `DELETE /clients/${clientnr}: 403 Refused: Client ${clientnr} has documents (invoices or quotations) and cannot be deleted`,
    );
    expect(job.attempts).toBe(1);
    expect(writeCalls(env.box.sandbox)).toHaveLength(1);
    // Not retried: another pass makes no call, and the client is still there.
    env.box.sandbox.clearCalls();
    expect(await run()).toEqual({ ran: 0, failed: 0 });
    expect(env.box.sandbox.calls).toEqual([]);
    expect((await jobRow(handle(), id)).errors).toHaveLength(1);
    expect((await mirrorRow(handle(), 'clients', clientnr))!.deleted_at).toBeNull();
  });

  it('a 400 from the service fails with its text', async () => {
    const id = await insertJob(handle(), 'create_quotation', {
      quotation: { action: 'save', clientnr: 2, savename: 'dupe' },
    });
    const id2 = await insertJob(handle(), 'create_quotation', {
      quotation: { action: 'save', clientnr: 2, savename: 'dupe' },
    });
    expect(await run()).toEqual({ ran: 2, failed: 1 });
    expect((await jobRow(handle(), id)).status).toBe('succeeded');
    expect((await jobRow(handle(), id2)).last_error).toBe(
      'POST /quotations: 400 Invalid request: savename: a quotation named "dupe" already exists (set overwrite_if_exist to overwrite it)',
    );
  });
});

describe('retryable failures', () => {
  it("a 5xx (after the client's own retries) goes back to the queue with backoff, then succeeds", async () => {
    const id = await insertJob(handle(), 'set_product_stock', { id: 4, stock: 7 });
    env.box.sandbox.failNext('500', 3, { method: 'PUT' }); // the client tries 3 times
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    let job = await jobRow(handle(), id);
    expect(job.status).toBe('queued');
    expect(job.attempts).toBe(1);
    expect(new Date(job.run_after).getTime()).toBeGreaterThan(new Date(job.started_at!).getTime());
    expect(job.last_error).toBe('PUT /products/4: 500 Server error: Internal Server Error');
    expect(job.errors).toEqual([expect.objectContaining({ attempt: 1, outcome: 'retry', error: job.last_error })]);

    await waitUntilDue(id);
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    job = await jobRow(handle(), id);
    expect(job.status).toBe('succeeded');
    expect(job.attempts).toBe(2);
    expect(job.errors).toHaveLength(1);
    expect((await mirrorRow(handle(), 'products', 4))!.stock).toBe('7');
  });

  it('after max_attempts the job fails', async () => {
    const id = await insertJob(handle(), 'update_product', { id: 5, changes: { notes: 'x' } }, { max_attempts: 2 });
    env.box.sandbox.failNext('500', 6, { method: 'PUT' });
    await run();
    await waitUntilDue(id);
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    const job = await jobRow(handle(), id);
    expect(job.status).toBe('failed');
    expect(job.last_error).toBe('gave up after 2 attempts: PUT /products/5: 500 Server error: Internal Server Error');
    expect((job.errors as unknown[]).length).toBe(2);
  });

  it('a rate limit waits until the pause ends and does not spend an attempt', async () => {
    const id = await insertJob(handle(), 'send_saved_invoices', { ids: [20], delete: false });
    env.box.sandbox.failNext('quota', 1);
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    let job = await jobRow(handle(), id);
    expect(job.status).toBe('queued');
    expect(job.attempts).toBe(0);
    expect(job.last_error).toMatch(/hourly quota spent .*retry at .* \(waiting, not counted as an attempt\)$/);
    expect(new Date(job.run_after).getTime()).toBeGreaterThan(Date.now());
    expect((job.result as { batches: Array<{ outcome: string }> }).batches.map((b) => b.outcome)).toEqual(['failed']);

    await waitUntilDue(id);
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    job = await jobRow(handle(), id);
    expect(job.status).toBe('succeeded');
    expect(job.attempts).toBe(1);
    expect((job.result as { sent: number[] }).sent).toEqual([20]);
  });
});

describe('unknown outcomes of actions that are not safe to repeat', () => {
  it('a create whose answer is lost becomes interrupted, and is made again only when a person says so', async () => {
    const id = await insertJob(handle(), 'create_client', { client: { company: 'Lost Answer BV' } });
    env.box.sandbox.failNext('drop', 1, { method: 'POST' });
    env.box.sandbox.clearCalls();
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    let job = await jobRow(handle(), id);
    expect(job.status).toBe('interrupted');
    expect(job.last_error).toMatch(
      new RegExp(
        `^POST /clients: outcome unknown: connection dropped .*; a retry first checks the service where it can; check the service; if it happened, run 'invoice-mirror jobs retry ${id} --mark-sent'; if it did not, run 'invoice-mirror jobs retry ${id} --resend'$`,
      ),
    );
    expect((job.result as { call: { outcome: string } }).call.outcome).toBe('unknown');
    expect(writeCalls(env.box.sandbox)).toHaveLength(1);

    env.box.sandbox.clearCalls();
    expect(await run()).toEqual({ ran: 0, failed: 0 });
    expect(env.box.sandbox.calls).toEqual([]);

    // A plain retry cannot tell whether the client was created: it makes no call and asks again.
    await retryJob(handle().db, id);
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    job = await jobRow(handle(), id);
    expect(job.status).toBe('interrupted');
    expect(job.last_error).toMatch(
      /^the call of attempt 1 may have taken effect \(the service gives no way to tell\); check the service/,
    );
    expect(env.box.sandbox.calls).toEqual([]);

    await retryJob(handle().db, id, { resend: true });
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    job = await jobRow(handle(), id);
    expect(job.status).toBe('succeeded');
    expect(job.errors).toHaveLength(2);
    expect(writeCalls(env.box.sandbox)).toHaveLength(1);
  });

  it('a single call marked sent by a person succeeds without a call', async () => {
    const id = await insertJob(handle(), 'create_product', { product: { name: 'made by hand meanwhile' } });
    env.box.sandbox.failNext('drop', 1, { method: 'POST' });
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    env.box.sandbox.clearCalls();
    expect(await retryJob(handle().db, id, { markSent: true })).toBe('succeeded');
    expect(await run()).toEqual({ ran: 0, failed: 0 });
    expect(env.box.sandbox.calls).toEqual([]);
    const job = await jobRow(handle(), id);
    expect((job.result as { call: { outcome: string; checked: string } }).call).toMatchObject({
      outcome: 'done',
      checked: 'marked done by a person (jobs retry --mark-sent)',
    });
    await expect(retryJob(handle().db, id, { resend: true })).rejects.toThrow(/has succeeded; only a failed/);
  });

  it('a send that fails part-way records the batches sent, and jobs retry sends only the rest', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => i + 6); // 6..30
    const sentBefore = env.box.sandbox.store.sentSavedIds().length;
    const id = await insertJob(handle(), 'send_saved_invoices', { ids, delete: true });
    env.box.sandbox.clearCalls();
    env.box.sandbox.knobs.sendMsPerInvoice = 20;
    const running = run();
    // Break the second call: plan the fault once the first one is well under way.
    while (!env.box.sandbox.calls.some((c) => c.method === 'POST')) await sleep(5);
    await sleep(60);
    env.box.sandbox.failNext('500', 1, { method: 'POST' });
    expect(await running).toEqual({ ran: 1, failed: 1 });

    let job = await jobRow(handle(), id);
    expect(job.status).toBe('interrupted');
    expect(job.last_error).toMatch(
      /^10 of 25 invoices confirmed sent; the call with ids 16, 17, .*, 25 may have been sent: POST \/invoices_saved: outcome unknown: 500 server error.*; the service may still be carrying it out until \S+ \(settle period \d+ min\); a retry after then checks the service for them and sends only the ids certainly not sent; or decide now: check the service; if it happened, run 'invoice-mirror jobs retry \d+ --mark-sent 16,17,18,19,20,21,22,23,24,25'; if it did not, run 'invoice-mirror jobs retry \d+ --resend 16,17,18,19,20,21,22,23,24,25'$/,
    );
    let result = job.result as {
      sent: number[];
      batches: Array<{ ids: number[]; outcome: string }>;
      refresh: { deleted: number };
    };
    expect(result.sent).toEqual(ids.slice(0, 10));
    expect(result.batches.map((b) => [b.ids.length, b.outcome])).toEqual([
      [10, 'sent'],
      [10, 'unknown'],
    ]);
    // The batch that went through is already in the mirror.
    expect(result.refresh.deleted).toBe(10);
    expect((await mirrorRow(handle(), 'saved_invoices', 6))!.deleted_at).not.toBeNull();
    expect((await mirrorRow(handle(), 'saved_invoices', 16))!.deleted_at).toBeNull();

    // A plain retry checks the ten with the service: still saved invoices, but their call has not
    // settled (the service may still be sending them); so only the five never sent go out, and the ten wait.
    env.box.sandbox.clearCalls();
    await retryJob(handle().db, id);
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    expect(writeCalls(env.box.sandbox).map((c) => (JSON.parse(c.body!) as { id: number[] }).id)).toEqual([
      ids.slice(20),
    ]);
    job = await jobRow(handle(), id);
    expect(job.status).toBe('interrupted');
    expect(job.last_error).toMatch(
      /^10 of 25 invoices may have been sent: ids 16, .*, 25: the service may still be carrying it out until .*; 15 confirmed sent, 5 of them now; or decide now: check the service; .*--resend 16,17,18,19,20,21,22,23,24,25'$/,
    );

    // The person checked: not sent. Now they go.
    env.box.sandbox.clearCalls();
    expect(await retryJob(handle().db, id, { resend: 'unknown' })).toBe('queued');
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    expect(writeCalls(env.box.sandbox).map((c) => (JSON.parse(c.body!) as { id: number[] }).id)).toEqual([
      ids.slice(10, 20),
    ]);
    job = await jobRow(handle(), id);
    expect(job.status).toBe('succeeded');
    result = job.result as typeof result;
    expect([...result.sent].sort((a, b) => a - b)).toEqual(ids);
    expect(result.batches.map((b) => b.outcome)).toEqual(['sent', 'unknown', 'sent', 'unsent', 'sent']);
    for (const invoice of ids) expect(env.box.sandbox.store.get('saved_invoices', invoice)).toBeUndefined();
    // Every id went out exactly once.
    const sentTimes = env.box.sandbox.store.sentSavedIds().slice(sentBefore);
    expect([...sentTimes].sort((a, b) => a - b)).toEqual(ids);
  });
});

describe('jobs left running by a dead worker', () => {
  it('are recovered on start: idempotent kinds run again, sends and creates become interrupted', async () => {
    const { db } = handle();
    const stock = await insertJob(handle(), 'set_product_stock', { id: 6, stock: 99 });
    const create = await insertJob(handle(), 'create_product', { product: { name: 'maybe created' } });
    await sql`update jobs set status = 'running', attempts = 1, started_at = now() where id in (${stock}, ${create})`.execute(
      db,
    );
    env.box.sandbox.clearCalls();
    expect(await run()).toEqual({ ran: 1, failed: 0 });

    const again = await jobRow(handle(), stock);
    expect(again).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(again.errors).toEqual([
      expect.objectContaining({
        attempt: 1,
        outcome: 'retry',
        error: 'the worker stopped during attempt 1; running it again',
      }),
    ]);
    const interrupted = await jobRow(handle(), create);
    expect(interrupted.status).toBe('interrupted');
    expect(interrupted.last_error).toMatch(
      /^interrupted: the worker stopped during attempt 1 during its call, which may have taken effect; a retry first checks the service where it can; check the service/,
    );
    expect(writeCalls(env.box.sandbox).map((c) => c.path)).toEqual(['/api/v1/products/6']);
  });
});

describe('queue rules', () => {
  it('an idempotency key makes queuing the same action twice a no-op', async () => {
    const { db } = handle();
    const first = await addJob(db, env.account().id, {
      kind: 'delete_product',
      payload: { id: 7 },
      idempotencyKey: 'remove-7',
    });
    const second = await addJob(db, env.account().id, {
      kind: 'delete_product',
      payload: { id: 7 },
      idempotencyKey: 'remove-7',
    });
    expect(first.created).toBe(true);
    expect(second).toEqual({ id: first.id, created: false });
    await expect(
      addJob(db, env.account().id, { kind: 'delete_product', payload: { id: 8 }, idempotencyKey: 'remove-7' }),
    ).rejects.toThrow(
      new JobStateError(
        `idempotency key 'remove-7' is already used by job ${first.id} (delete_product) for a different action`,
      ),
    );
    env.box.sandbox.clearCalls();
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    expect(writeCalls(env.box.sandbox)).toHaveLength(1);
  });

  it('cancel and retry check the status', async () => {
    const { db } = handle();
    const id = await insertJob(handle(), 'delete_product', { id: 8 });
    await cancelJob(db, id);
    expect(await run()).toEqual({ ran: 0, failed: 0 });
    expect((await jobRow(handle(), id)).status).toBe('cancelled');
    await expect(cancelJob(db, id)).rejects.toThrow(
      `job ${id} was cancelled; only a queued or interrupted job can be cancelled`,
    );
    await retryJob(db, id);
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    await expect(retryJob(db, id)).rejects.toThrow(
      `job ${id} has succeeded; only a failed, interrupted, cancelled or queued job can be retried`,
    );
    await expect(retryJob(db, 987654)).rejects.toThrow('no job 987654');
  });
});
