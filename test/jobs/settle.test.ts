/**
 * Money once, whatever the service's speed: a call whose outcome is unknown is judged only by
 * proof (a saved invoice gone after a send with delete, a lower open amount after a payment) or,
 * once it has settled, by positive evidence that it did not happen; until then a retry makes no
 * call for it. The sandbox's own logs of what it performed are the judge. `FAULT_REPEATS=10`
 * repeats each case (the closing note's figures).
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvoicingClient } from '../../src/api/index.js';
import { JobRunner, retryJob } from '../../src/jobs/index.js';
import { CLI_PATH } from '../support/cli.js';
import { clientFor } from '../support/sandbox.js';
import { insertJob, jobRow, TEST_BACKOFF, useJobsEnv, writeCalls } from './helpers.js';

const REPEATS = Number(process.env.FAULT_REPEATS ?? 1);
/** The settle period of these tests: longer than the sandbox's slowest send here (3 × 400 ms). */
const SETTLE_MS = 2500;
const env = useJobsEnv({ sendMsPerInvoice: 20 });
const handle = () => env.database.current.handle;

/** A client whose deadlines are far shorter than the sandbox's sends: 3 ids → 3 × 10 × 2 + 300 ms. */
let impatient: InvoicingClient;
beforeAll(() => {
  impatient = clientFor(env.box.sandbox, { timeoutMs: 300, sendMsPerInvoice: 10, maxRetries: 0 });
});
afterAll(async () => {
  await impatient?.close();
});

function runner(): JobRunner {
  const base = env.config();
  return new JobRunner({
    database: handle(),
    account: env.account(),
    client: impatient,
    config: { ...base, jobs: { ...base.jobs, pollIntervalMs: 200, settleMs: SETTLE_MS } },
    backoff: TEST_BACKOFF,
  });
}

const run = () => runner().runUntilEmpty();

/** New saved invoices for one case, pulled into the mirror (a send job refuses ids it does not hold). */
async function freshSavedIds(count: number): Promise<number[]> {
  const ids = Array.from({ length: count }, () => env.box.sandbox.store.insert('saved_invoices'));
  await env.sync();
  env.box.sandbox.clearCalls();
  return ids;
}

/** How many times the sandbox performed each of these sends. */
function timesSent(ids: number[]): number[] {
  const log = env.box.sandbox.store.sentSavedIds();
  return ids.map((id) => log.filter((sent) => sent === id).length);
}

/** How many payments the sandbox registered for an invoice. */
const paymentsOf = (invoiceId: number) =>
  env.box.sandbox.store.paymentLog().filter((p) => p.invoiceId === invoiceId).length;

/** A sent invoice with something open, and how many payments the sandbox registered for it so far. */
function openInvoice(): { id: number; open: number; payments: () => number } {
  const found = env.box.sandbox.store.sentInvoices().find((i) => Number(i.open) > 5 && i.paiddate === '');
  if (!found) throw new Error('no open invoice left in the sandbox');
  const id = Number(found.id);
  const before = paymentsOf(id);
  return { id, open: Number(found.open), payments: () => paymentsOf(id) - before };
}

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe.each(Array.from({ length: REPEATS }, (_, i) => i + 1))('unknown outcomes settle (round %i)', () => {
  it('a send slower than its deadline, then retry and run at once and later: each id is sent exactly once', async () => {
    const ids = await freshSavedIds(3);
    env.box.sandbox.knobs.sendMsPerInvoice = 400; // 1.2 s for the call; the client gives up after 360 ms
    try {
      const id = await insertJob(handle(), 'send_saved_invoices', { ids, delete: true });
      expect(await run()).toEqual({ ran: 1, failed: 1 });
      let job = await jobRow(handle(), id);
      expect(job.status).toBe('interrupted');
      expect(job.last_error).toMatch(
        /may have been sent: POST \/invoices_saved: outcome unknown: no complete answer within 360 ms.*; the service may still be carrying it out until \S+ \(settle period 3 s\); a retry after then checks the service/,
      );

      // Retried at once, while the service is still sending them: no call, still unknown, and the
      // message says when a retry can tell.
      env.box.sandbox.clearCalls();
      await retryJob(handle().db, id);
      expect(await run()).toEqual({ ran: 1, failed: 1 });
      job = await jobRow(handle(), id);
      expect(job.status).toBe('interrupted');
      expect(job.last_error).toMatch(/^3 of 3 invoices may have been sent: ids .*: the service may still be carrying/);
      expect(writeCalls(env.box.sandbox)).toEqual([]);

      // Once the call has settled, the saved invoices are gone: sent, and not sent again.
      await until(() => timesSent(ids).every((n) => n === 1), 'the sandbox to finish the send');
      await sleep(SETTLE_MS);
      env.box.sandbox.clearCalls();
      await retryJob(handle().db, id);
      expect(await run()).toEqual({ ran: 1, failed: 0 });
      expect((await jobRow(handle(), id)).status).toBe('succeeded');
      expect(writeCalls(env.box.sandbox)).toEqual([]);
      expect(timesSent(ids)).toEqual([1, 1, 1]);
    } finally {
      env.box.sandbox.knobs.sendMsPerInvoice = 20;
    }
  });

  it('a send that never reached the service is sent again only after it settled, from positive evidence', async () => {
    const ids = await freshSavedIds(2);
    env.box.sandbox.knobs.hangMs = 200;
    env.box.sandbox.failNext('hang', 1, { method: 'POST', pathPrefix: '/invoices_saved' });
    const id = await insertJob(handle(), 'send_saved_invoices', { ids, delete: false });
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    expect((await jobRow(handle(), id)).status).toBe('interrupted');
    expect(timesSent(ids)).toEqual([0, 0]);

    await retryJob(handle().db, id);
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    expect(timesSent(ids)).toEqual([0, 0]);

    // Settled: still saved invoices, and no sent invoice of their client and total since the call.
    await sleep(SETTLE_MS);
    await retryJob(handle().db, id);
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    const job = await jobRow(handle(), id);
    expect(job.status).toBe('succeeded');
    const batches = (job.result as { batches: { outcome: string; source?: string }[] }).batches;
    expect(batches.map((b) => b.outcome)).toEqual(['unknown', 'unsent', 'sent']);
    expect(batches[1]!.source).toMatch(/after the settle period: the saved invoice is still there and no sent invoice/);
    expect(timesSent(ids)).toEqual([1, 1]);
  });

  it('a send with delete false that went through is left to a person, naming the invoice that may be it', async () => {
    const ids = await freshSavedIds(1);
    env.box.sandbox.knobs.sendMsPerInvoice = 800;
    try {
      const id = await insertJob(handle(), 'send_saved_invoices', { ids, delete: false });
      expect(await run()).toEqual({ ran: 1, failed: 1 });
      await until(() => timesSent(ids)[0] === 1, 'the sandbox to finish the send');
      await sleep(SETTLE_MS);
      env.box.sandbox.clearCalls();
      await retryJob(handle().db, id);
      expect(await run()).toEqual({ ran: 1, failed: 1 });
      const job = await jobRow(handle(), id);
      expect(job.status).toBe('interrupted');
      const made = env.box.sandbox.store.sendLog().find((s) => s.savedId === ids[0])!;
      const invoice = env.box.sandbox.store.sentInvoices().find((i) => Number(i.id) === made.invoiceId)!;
      expect(job.last_error).toContain(`sent invoice ${String(invoice.invoicenr_full ?? invoice.invoicenr)}`);
      expect(job.last_error).toMatch(/has its client and total and was sent since the call; it may be this one/);
      expect(writeCalls(env.box.sandbox)).toEqual([]);

      expect(await retryJob(handle().db, id, { markSent: 'unknown' })).toBe('queued');
      expect(await run()).toEqual({ ran: 1, failed: 0 });
      expect((await jobRow(handle(), id)).status).toBe('succeeded');
      expect(timesSent(ids)).toEqual([1]);
    } finally {
      env.box.sandbox.knobs.sendMsPerInvoice = 20;
    }
  });

  it('a payment whose answer never arrives is registered once: the open amount proves it happened', async () => {
    const invoice = openInvoice();
    env.box.sandbox.knobs.hangMs = 1000;
    env.box.sandbox.failNext('lost', 1, { method: 'POST', pathPrefix: '/invoices_payment' });
    const id = await insertJob(handle(), 'register_payment', { id: invoice.id, amount: 1.25, date: '2026-11-20' });
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    let job = await jobRow(handle(), id);
    expect(job.status).toBe('interrupted');
    expect(invoice.payments()).toBe(1);

    env.box.sandbox.clearCalls();
    await retryJob(handle().db, id);
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    job = await jobRow(handle(), id);
    expect(job.status).toBe('succeeded');
    expect((job.result as { call: { checked: string } }).call.checked).toBe(
      `invoice ${invoice.id}'s open amount went from ${invoice.open.toFixed(2)} to ${(invoice.open - 1.25).toFixed(2)}`,
    );
    expect(writeCalls(env.box.sandbox)).toEqual([]);
    expect(invoice.payments()).toBe(1);
  });

  it('a payment that never reached the service is made again only after it settled, and then once', async () => {
    const invoice = openInvoice();
    env.box.sandbox.knobs.hangMs = 200;
    env.box.sandbox.failNext('hang', 1, { method: 'POST', pathPrefix: '/invoices_payment' });
    const id = await insertJob(handle(), 'register_payment', { id: invoice.id, amount: 2, date: '2026-11-20' });
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    expect(invoice.payments()).toBe(0);

    await retryJob(handle().db, id);
    expect(await run()).toEqual({ ran: 1, failed: 1 });
    let job = await jobRow(handle(), id);
    expect(job.status).toBe('interrupted');
    expect(job.last_error).toMatch(
      /open amount is unchanged; the service may still be carrying it out until \S+ \(settle period 3 s\); a retry after then checks the service\); check the service/,
    );
    expect(invoice.payments()).toBe(0);

    await sleep(SETTLE_MS);
    await retryJob(handle().db, id);
    expect(await run()).toEqual({ ran: 1, failed: 0 });
    job = await jobRow(handle(), id);
    expect(job.status).toBe('succeeded');
    expect(invoice.payments()).toBe(1);
  });

  it('a worker paused while its send is answered records the send as done', async () => {
    const ids = await freshSavedIds(1);
    env.box.sandbox.knobs.sendMsPerInvoice = 300;
    try {
      const id = await insertJob(handle(), 'send_saved_invoices', { ids, delete: true });
      env.box.sandbox.clearCalls();
      // Deadline of the call: 1 × 10 × 2 + 800 = 820 ms; the worker sleeps through it.
      const child = spawn(process.execPath, [CLI_PATH, 'jobs', 'run'], {
        env: {
          ...process.env,
          ...env.database.current.env,
          INVOICING_API_URL: env.box.sandbox.url,
          SEND_MS_PER_INVOICE: '10',
          REQUEST_TIMEOUT_MS: '800',
          LOG_LEVEL: 'silent',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      try {
        await until(() => env.box.sandbox.calls.some((c) => c.method === 'POST'), 'the send call');
        child.kill('SIGSTOP');
        const call = env.box.sandbox.calls.find((c) => c.method === 'POST')!;
        await until(() => call.endedAt !== Number.POSITIVE_INFINITY, 'the sandbox to answer');
        await sleep(1500);
        child.kill('SIGCONT');
        expect(await exited, stderr).toBe(0);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      const job = await jobRow(handle(), id);
      expect(job.status).toBe('succeeded');
      expect((job.result as { batches: { outcome: string }[] }).batches.map((b) => b.outcome)).toEqual(['sent']);
      expect(timesSent(ids)).toEqual([1]);
    } finally {
      env.box.sandbox.knobs.sendMsPerInvoice = 20;
    }
  }, 60_000);
});
