/** One queue per account: never two requests in flight, local budget, slow-down, quota pause. */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/api/index.js';
import { AccountGate } from '../../src/api/gate.js';
import { caught, clientFor, sandbox } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('one request in flight', () => {
  it('the sandbox does see parallel requests when a caller makes them (control)', async () => {
    const sb = await sandbox({ latencyMs: 30 });
    const auth = `Basic ${Buffer.from(`${sb.user}:${sb.apiKey}`).toString('base64')}`;
    await Promise.all(
      [1, 2, 3].map((id) =>
        fetch(`${sb.url}/clients/${id}`, { headers: { authorization: auth } }).then((r) => r.text()),
      ),
    );
    expect(sb.maxConcurrency()).toBeGreaterThan(1);
  });

  it('never two in flight while sync, jobs and refreshes share the client (and a second client object)', async () => {
    const sb = await sandbox({ records: 300, latencyMs: 2, sendMsPerInvoice: 3 });
    const api = clientFor(sb, { sendMsPerInvoice: 3 });
    const jobs = api.withoutWaiting();
    const other = clientFor(sb); // e.g. a refresh module that built its own client for the same account
    const drain = async (entity: 'clients' | 'products' | 'quotations' | 'saved_invoices' | 'repeating_invoices') => {
      let n = 0;
      for await (const page of api.list(entity, { pageSize: 7 })) n += page.records.length;
      return n;
    };
    const sendIds = sb.store
      .list('saved_invoices')
      .slice(0, 12)
      .map((r) => Number(r.id));
    const [clients, products, quotations, , ...rest] = await Promise.all([
      drain('clients'),
      drain('products'),
      drain('quotations'),
      jobs.sendSavedInvoices(sendIds, { delete: false }),
      jobs.updateProduct(1, { notes: 'job' }),
      other.getClient(1),
      other.getQuotation(2),
      jobs.setProductStock(2, 5),
      drain('repeating_invoices'),
    ]);
    expect([clients, products, quotations]).toEqual([60, 60, 60]);
    expect(rest).toHaveLength(5);
    expect(sb.calls.length).toBeGreaterThan(40);
    expect(sb.maxConcurrency()).toBe(1);
    expect(api.requestsMade + other.requestsMade).toBe(sb.calls.length);
  });
});

describe('quota pause', () => {
  it('pauses the whole queue on 403 with X-RateLimit-Remaining: 0, refuses callers that must not wait, then resumes', async () => {
    const sb = await sandbox({ hourlyQuota: 3 });
    const api = clientFor(sb, { rateLimitPauseMs: 400, slowDownBelow: 0 });
    const jobs = api.withoutWaiting();
    for (const id of [1, 2, 3]) await api.getClient(id);
    expect(api.rateLimitRemaining).toBe(0);

    const waiting = Promise.all([api.getClient(4), api.getProduct(1)]);
    const queuedJob = caught(jobs.getQuotation(1)); // queued behind: refused as soon as the pause starts
    await sleep(50);
    expect(api.pausedUntil).not.toBeNull();
    expect(sb.calls.map((c) => c.status)).toEqual([200, 200, 200, 403]);
    expect(await queuedJob).toBeInstanceOf(RateLimitedError);
    const refused = await caught(jobs.deleteProduct(3));
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAt.getTime()).toBe(api.pausedUntil!.getTime());

    sb.resetQuota(); // the service's hour rolls over while we wait
    const [client, product] = await waiting;
    expect([client.clientnr, product.id]).toEqual([4, 1]);
    expect(api.pausedUntil).toBeNull();
    const calls = sb.calls;
    expect(calls.map((c) => `${c.status} ${c.path.slice(7)}`)).toEqual([
      '200 /clients/1',
      '200 /clients/2',
      '200 /clients/3',
      '403 /clients/4',
      '200 /clients/4',
      '200 /products/1',
    ]);
    // Nothing went out during the pause.
    expect(calls[4]!.startedAt - calls[3]!.endedAt).toBeGreaterThanOrEqual(390);
  });

  it('also pauses sends, and repeats a send refused for quota (the service did nothing), with longer pauses while refused', async () => {
    const sb = await sandbox({ perEntity: { saved_invoices: 3 }, sendMsPerInvoice: 1 });
    const api = clientFor(sb, { rateLimitPauseMs: 100, sendMsPerInvoice: 1 });
    sb.failNext('quota', 2, { method: 'POST' });
    const ids = sb.store.list('saved_invoices').map((r) => Number(r.id));
    const results = await api.sendSavedInvoices(ids, { delete: true });
    expect(results).toHaveLength(1);
    const c = sb.calls;
    expect(c.map((call) => call.status)).toEqual([403, 403, 200]);
    // Refused again right after the pause: the next pause is twice as long.
    expect(c[1]!.startedAt - c[0]!.endedAt).toBeGreaterThanOrEqual(95);
    expect(c[2]!.startedAt - c[1]!.endedAt).toBeGreaterThanOrEqual(195);
    expect(sb.store.list('saved_invoices')).toHaveLength(0);
  });

  it('a later, shorter pause never shortens a longer one', () => {
    const gate = new AccountGate({
      requestsPerHour: 0,
      rateLimitPauseMs: 1000,
      slowDownBelow: 0,
      logger: pino({ level: 'silent' }),
    });
    const long = gate.pause('GET /a', 60_000);
    gate.pause('GET /b', 10);
    expect(gate.pausedUntil!.getTime()).toBe(long.getTime());
    gate.close();
  });
});

describe('local budget and slow-down', () => {
  it('keeps to the requests-per-hour budget; a caller that must not wait is refused', async () => {
    const sb = await sandbox();
    const api = clientFor(sb, { requestsPerHour: 3 });
    const jobs = api.withoutWaiting();
    const started = Date.now();
    for (const id of [1, 2, 3]) await jobs.getClient(id);
    const error = await caught(jobs.getClient(4));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAt.getTime()).toBeGreaterThanOrEqual(started + 3_600_000);
    expect(error.message).toMatch(/local budget of 3 requests per hour/);
    expect(sb.calls).toHaveLength(3);
    expect(api.pausedUntil).toBeNull(); // the budget is not a quota pause
  });

  it('spaces requests out as X-RateLimit-Remaining nears zero', async () => {
    const sb = await sandbox({ hourlyQuota: 10 });
    // spacing = pause × (below − remaining) / below² = 12.5 ms × (8 − remaining)
    const api = clientFor(sb, { slowDownBelow: 8, rateLimitPauseMs: 800 });
    for (let i = 0; i < 9; i++) await api.getClient(1);
    expect(api.rateLimitRemaining).toBe(1);
    const c = sb.calls;
    const gaps = c.slice(1).map((call, i) => call.startedAt - c[i]!.endedAt);
    const remainingBefore = c.slice(1).map((_, i) => 10 - (i + 1)); // header seen after call i
    remainingBefore.forEach((r, i) => {
      const expected = r < 8 ? 12.5 * (8 - r) : 0;
      expect(gaps[i]!).toBeGreaterThanOrEqual(expected - 2);
    });
    expect(gaps.at(-1)!).toBeGreaterThanOrEqual(73); // 2 left → 75 ms
  });
});
