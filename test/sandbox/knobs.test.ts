/** Knobs for tests and demos: latency, faults, quota, call log, clock, store changes, admin surface. */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, del, get, post, put, sandbox } from './helpers.js';

/** A raw request that reports a dropped connection or a timeout instead of throwing. */
async function attempt(
  url: string,
  auth: string,
  timeoutMs = 2000,
): Promise<{ status?: number; text?: string; error?: string }> {
  try {
    const res = await request(url, {
      headers: { authorization: auth },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return { status: res.statusCode, text: await res.body.text() };
  } catch (e) {
    return { error: (e as Error & { code?: string }).code ?? (e as Error).message };
  }
}
const auth = `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}`;

describe('latency and faults', () => {
  it('latencyMs is added to every response (also errors), and can change at run time', async () => {
    const sb = await sandbox({ latencyMs: 80 });
    let t0 = performance.now();
    expect((await get(sb, '/clients/1')).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(75);
    t0 = performance.now();
    expect((await get(sb, '/clients/9999')).status).toBe(404);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(75);
    sb.knobs.latencyMs = 0;
    t0 = performance.now();
    await get(sb, '/clients/1');
    expect(performance.now() - t0).toBeLessThan(70);
    expect(() => (sb.knobs.latencyMs = -1)).toThrow(/latencyMs/);
  });

  it('failNext: 500 (plain text, with rate-limit header), drop, hang, malformed; then normal again', async () => {
    const sb = await sandbox({ hangMs: 300 });
    sb.failNext('500');
    const r500 = await get(sb, '/clients/1');
    expect(r500.status).toBe(500);
    expect(r500.type).toMatch(/^text\/plain/);
    expect(r500.headers['x-ratelimit-remaining']).toBeDefined();
    sb.failNext('drop');
    expect((await attempt(`${sb.url}/clients/1`, auth)).error).toBeDefined();
    sb.failNext('hang');
    const t0 = performance.now();
    const hung = await attempt(`${sb.url}/clients/1`, auth, 5000);
    expect(hung.error).toBeDefined();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(280); // held until hangMs, then dropped
    sb.failNext('malformed');
    const bad = await get(sb, '/clients?count=5');
    expect(bad.status).toBe(200);
    expect(bad.type).toMatch(/^application\/json/);
    expect(() => JSON.parse(bad.text)).toThrow();
    expect((await get(sb, '/clients/1')).status).toBe(200);
    expect(sb.calls.map((c) => [c.fault ?? null, c.status])).toEqual([
      ['500', 500],
      ['drop', null],
      ['hang', null],
      ['malformed', 200],
      [null, 200],
    ]);
  });

  it('failNext matches method and path prefix, counts down, and a hang ends at once when the sandbox closes', async () => {
    const sb = await startSandbox({ records: 20 });
    sb.failNext('500', 2, { method: 'put', pathPrefix: '/products' });
    expect((await get(sb, '/products/1')).status).toBe(200);
    expect((await put(sb, '/clients/1', { city: 'A' })).status).toBe(200);
    expect((await put(sb, '/products/1', { notes: 'a' })).status).toBe(500);
    expect(sb.store.get('products', 1)!.notes).not.toBe('a'); // a 500 changes nothing
    expect((await put(sb, '/products/1', { notes: 'b' })).status).toBe(500);
    expect((await put(sb, '/products/1', { notes: 'c' })).status).toBe(200);
    expect(sb.store.get('products', 1)!.notes).toBe('c');
    sb.failNext('hang');
    const pending = attempt(`${sb.url}/clients`, auth, 60_000);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    await sb.close();
    expect((await pending).error).toBeDefined();
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(sb.calls.at(-1)).toMatchObject({ fault: 'hang', status: null });
    expect(Number.isFinite(sb.calls.at(-1)!.endedAt)).toBe(true);
  });

  it('a malformed answer to a write: the write happened, the answer is cut', async () => {
    const sb = await sandbox();
    sb.failNext('malformed', 1, { method: 'POST' });
    const r = await post(sb, '/clients', { company: 'Half' });
    expect(r.status).toBe(200);
    expect(() => JSON.parse(r.text)).toThrow();
    expect(sb.store.list('clients').some((c) => c.company === 'Half')).toBe(true);
  });

  it('error200: a 200 with an error object instead of the data, and nothing done', async () => {
    const sb = await sandbox();
    sb.failNext('error200', 1, { pathPrefix: '/clients' });
    const list = await get(sb, '/clients?count=5');
    expect(list.status).toBe(200);
    expect(list.type).toMatch(/^application\/json/);
    expect(list.json()).toEqual({
      error: { message: 'Er is een fout opgetreden bij het ophalen van de gegevens', code: 500 },
    });
    sb.failNext('error200', 1, { method: 'PUT' });
    expect((await put(sb, '/products/1', { notes: 'not stored' })).status).toBe(200);
    expect(sb.store.get('products', 1)!.notes).not.toBe('not stored');
    expect(sb.calls.map((c) => c.fault ?? null)).toEqual(['error200', 'error200']);
  });

  it('bom: JSON answers begin with a UTF-8 byte order mark, other answers are as they were', async () => {
    const sb = await sandbox({ failureRate: 1, failureKinds: ['bom'] });
    const bytes = async (path: string, method: 'GET' | 'POST' = 'GET', body?: string) => {
      const res = await request(`${sb.url}${path}`, {
        method,
        headers: { authorization: auth, 'content-type': 'application/json' },
        body,
      });
      return { status: res.statusCode, body: Buffer.from(await res.body.arrayBuffer()) };
    };
    for (const path of ['/clients?count=3', '/clients/1', '/countrylist']) {
      const answer = await bytes(path);
      expect(answer.status, path).toBe(200);
      expect([...answer.body.subarray(0, 3)], path).toEqual([0xef, 0xbb, 0xbf]);
      expect(() => JSON.parse(answer.body.subarray(3).toString('utf8')), path).not.toThrow();
    }
    const created = await bytes('/products', 'POST', JSON.stringify({ name: 'Plain' }));
    expect(created.status).toBe(201);
    expect(created.body.toString('utf8')).toMatch(/^\d+$/); // the bare id, no mark
  });

  it('failureRate: seeded, so the same seed fails the same calls; only the chosen kinds', async () => {
    const run = async () => {
      const sb = await sandbox({ failureRate: 0.3, failureKinds: ['500', 'malformed'], seed: 11 });
      const out: string[] = [];
      for (let i = 0; i < 40; i++) {
        const r = await get(sb, '/products/1');
        out.push(r.status === 500 ? '500' : r.text.endsWith('}}') ? 'ok' : 'malformed');
      }
      return { out, calls: sb.calls.map((c) => c.fault ?? 'ok') };
    };
    const a = await run();
    const b = await run();
    expect(a.out).toEqual(b.out);
    expect(a.out).toEqual(a.calls);
    expect(a.out.filter((x) => x !== 'ok').length).toBeGreaterThan(4);
    expect(a.out.filter((x) => x !== 'ok').length).toBeLessThan(25);
    expect(new Set(a.out)).toEqual(new Set(['ok', '500', 'malformed']));
  });

  it('quota: spent after N calls (403 + X-RateLimit-Remaining: 0), nothing happens, failNext("quota") forces one', async () => {
    const sb = await sandbox({ hourlyQuota: 2 });
    expect(sb.quotaRemaining).toBe(2);
    await get(sb, '/clients/1');
    await get(sb, '/clients/2');
    const r = await del(sb, '/products/1');
    expect(r.status).toBe(403);
    expect(r.headers['x-ratelimit-remaining']).toBe('0');
    expect(sb.store.get('products', 1)).toBeDefined();
    sb.resetQuota();
    sb.failNext('quota');
    expect((await get(sb, '/clients/1')).status).toBe(403);
    expect(sb.quotaRemaining).toBe(2); // a refused call does not count
    expect((await get(sb, '/clients/1')).headers['x-ratelimit-remaining']).toBe('1');
  });
});

describe('call log', () => {
  it('records method, path, query, body, status, start and end (also failed auth); clearCalls', async () => {
    const sb = await sandbox();
    await get(sb, '/clients?count=2&start=4');
    await put(sb, '/products/3', { notes: 'x' });
    await call(sb, 'GET', '/clients', { auth: null });
    expect(sb.calls).toHaveLength(3);
    expect(sb.calls[0]).toMatchObject({
      seq: 1,
      method: 'GET',
      path: '/api/v1/clients',
      query: 'count=2&start=4',
      body: undefined,
      status: 200,
    });
    expect(sb.calls[1]).toMatchObject({
      seq: 2,
      method: 'PUT',
      path: '/api/v1/products/3',
      body: '{"notes":"x"}',
      status: 200,
    });
    expect(sb.calls[2]).toMatchObject({ seq: 3, status: 401 });
    for (const c of sb.calls) {
      expect(c.endedAt).toBeGreaterThanOrEqual(c.startedAt);
      expect(c.startedAt).toBeGreaterThan(Date.now() - 60_000);
      expect(c.fault).toBeUndefined();
    }
    const held = sb.calls;
    sb.clearCalls();
    expect(held).toHaveLength(0);
    await get(sb, '/clients/1');
    expect(sb.calls[0]!.seq).toBe(4);
  });

  it('maxConcurrency: 1 for calls one after the other, more when they overlap', async () => {
    // Long enough that three calls started together overlap on a loaded machine (40 ms was not).
    const sb = await sandbox({ latencyMs: 300 });
    for (let i = 0; i < 3; i++) await get(sb, '/clients/1');
    expect(sb.maxConcurrency()).toBe(1);
    await Promise.all([get(sb, '/clients/1'), get(sb, '/clients/2'), get(sb, '/clients/3')]);
    expect(sb.maxConcurrency()).toBe(3);
    sb.clearCalls();
    expect(sb.maxConcurrency()).toBe(0);
  });

  it('proves "at most 10 ids per call" and "never two sends at once" from the log', async () => {
    const sb = await sandbox({ sendMsPerInvoice: 10 });
    const ids = sb.store
      .list('saved_invoices')
      .map((s) => Number(s.id))
      .slice(0, 15);
    await post(sb, '/invoices_saved', { action: 'send', delete: true, id: ids.slice(0, 10) });
    await post(sb, '/invoices_saved', { action: 'send', delete: true, id: ids.slice(10) });
    const sends = sb.calls.filter((c) => c.method === 'POST');
    expect(sends.map((c) => JSON.parse(c.body!).id.length)).toEqual([10, 5]);
    expect(sends[0]!.endedAt - sends[0]!.startedAt).toBeGreaterThanOrEqual(95);
    expect(sends[1]!.startedAt).toBeGreaterThanOrEqual(sends[0]!.endedAt);
    expect(sb.maxConcurrency()).toBe(1);
  });
});

describe('store API and data generator', () => {
  it('same seed and options give identical data; another seed differs; counts split evenly or per entity', async () => {
    const a = await sandbox({ records: 103, seed: 5 });
    const b = await sandbox({ records: 103, seed: 5 });
    const c = await sandbox({ records: 103, seed: 6 });
    for (const e of ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'] as const) {
      expect(a.store.list(e)).toEqual(b.store.list(e));
      expect(a.store.list(e)).not.toEqual(c.store.list(e));
    }
    expect(
      ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'].map(
        (e) => a.store.list(e as 'clients').length,
      ),
    ).toEqual([21, 21, 21, 20, 20]);
    expect((await get(a, '/clients?count=-1')).text).toBe((await get(b, '/clients?count=-1')).text);
    const d = await sandbox({ records: 10, perEntity: { products: 0, quotations: 7 } });
    expect(d.store.list('products')).toEqual([]);
    expect(d.store.list('quotations')).toHaveLength(7);
    expect(d.store.list('clients')).toHaveLength(2);
  });

  it('insert (generated, overrides in wire or typed form), update, delete with tombstone, restore', async () => {
    const sb = await sandbox();
    const id = sb.store.insert('clients', { company: 'Ingevoegd', active: false, top: 45 });
    expect(id).toBe(21);
    expect(sb.store.get('clients', id)).toMatchObject({
      clientnr: '21',
      company: 'Ingevoegd',
      active: 'false',
      top: '45',
    });
    expect((await get(sb, '/clients/21')).json().client.company).toBe('Ingevoegd');
    const qid = sb.store.insert('quotations', {
      sent: 'true',
      approved: { name: 'N', date: '2026-01-02', comments: '' },
      lines: [{ amount: 2, price: 5, tax_rate: 0 }],
    });
    expect(sb.store.get('quotations', qid)).toMatchObject({
      sent: 'true',
      approved: { name: 'N', date: '2026-01-02', ip: '', comments: '' },
      totalintax: '10',
    });
    sb.store.update('saved_invoices', 2, {
      lines: [{ amount: 1, price: 100, tax_rate: 21 }, { description: 'tekst' }],
      discounttype: 'amount',
      discount: 0,
      extra_field: 'kept',
    });
    const s = (await get(sb, '/invoices_saved/2')).json().invoice;
    expect(s).toMatchObject({
      totalintax: '121',
      extra_field: 'kept',
      lines: { line1: { linetotal: 100 }, line2: { description: 'tekst' } },
    });
    sb.store.update('products', 1, { price: 10, taxes: 21 });
    expect(sb.store.get('products', 1)).toMatchObject({ price: '10', priceintax: '12.1' });
    const before = sb.store.get('products', 2);
    sb.store.delete('products', 2);
    expect((await get(sb, '/products/2')).status).toBe(404);
    expect(sb.store.list('products').map((p) => p.id)).not.toContain('2');
    sb.store.restore('products', 2);
    expect((await get(sb, '/products/2')).json().product).toEqual(before);
    expect(
      sb.store
        .list('products')
        .map((p) => p.id)
        .slice(0, 3),
    ).toEqual(['1', '2', '3']); // back in its place
    expect(sb.store.insert('products')).toBe(21); // ids are never reused
    expect(() => sb.store.update('products', 999, {})).toThrow();
    expect(() => sb.store.restore('products', 3)).toThrow();
    // store.get returns copies: changing them changes nothing.
    sb.store.get('products', 3)!.name = 'mutated';
    expect(sb.store.get('products', 3)!.name).not.toBe('mutated');
  });

  it('changes between pulls show up in the next list (update, delete, insert, restore, churn)', async () => {
    const sb = await sandbox();
    const first = (await get(sb, '/clients?count=-1')).json();
    sb.store.update('clients', 1, { city: 'Elders' });
    sb.store.delete('clients', 2);
    sb.store.insert('clients');
    const second = (await get(sb, '/clients?count=-1')).json();
    expect(second).toHaveLength(first.length);
    expect(second[0].city).toBe('Elders');
    expect(second.map((c: any) => c.clientnr)).not.toContain('2');
    sb.store.restore('clients', 2);
    expect((await get(sb, '/clients?count=-1')).json()).toHaveLength(first.length + 1);
    const fresh = await sandbox();
    const changes = fresh.store.churn(200);
    expect(changes).toHaveLength(200);
    expect(new Set(changes.map((c) => c.op))).toEqual(new Set(['insert', 'update', 'delete', 'restore']));
    const last = changes.at(-1)!;
    if (last.op === 'delete') expect(fresh.store.get(last.entity, last.id)).toBeUndefined();
    else expect(fresh.store.get(last.entity, last.id)).toBeDefined();
    const again = await sandbox();
    expect(again.store.churn(200)).toEqual(changes); // deterministic per seed
    for (const e of ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'] as const)
      expect(again.store.list(e)).toEqual(fresh.store.list(e));
  });

  it('sentInvoices has history from the start', async () => {
    const sb = await sandbox();
    const sent = sb.store.sentInvoices();
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]).toMatchObject({
      invoicenr: expect.any(String),
      sent: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      open: expect.stringMatching(/^-?\d+(\.\d+)?$/),
    });
  });
});

describe('admin HTTP surface', () => {
  it('is off by default (404) and needs auth when on', async () => {
    const off = await sandbox();
    expect((await get(off, '//_admin/knobs')).status).toBe(404);
    const on = await sandbox({ admin: true });
    expect((await get(on, '//_admin/knobs', { auth: null })).status).toBe(401);
    expect((await get(on, '//_admin/knobs')).json()).toMatchObject({
      latencyMs: 0,
      sendMsPerInvoice: 5,
      defaultPageSize: 100,
    });
  });

  it('knobs, clock, fail, quota, churn, records and calls', async () => {
    const sb = await sandbox({ admin: true, hourlyQuota: 100 });
    expect((await put(sb, '//_admin/knobs', { defaultPageSize: 3 })).json().defaultPageSize).toBe(3);
    expect((await put(sb, '//_admin/knobs', { failureRate: 2 })).status).toBe(400);
    expect((await get(sb, '/clients')).json()).toHaveLength(3);
    expect((await post(sb, '//_admin/clock', { advanceDays: 2 })).json()).toEqual({ today: '2026-11-03' });
    expect(sb.clock.today()).toBe('2026-11-03');
    await post(sb, '//_admin/fail', { kind: '500', count: 1, pathPrefix: '/products' });
    expect((await get(sb, '/products/1')).status).toBe(500);
    expect((await post(sb, '//_admin/fail', { kind: 'nope' })).status).toBe(400);
    await post(sb, '//_admin/quota/reset', {});
    expect(sb.quotaRemaining).toBe(100);
    expect((await post(sb, '//_admin/churn', { count: 5 })).json()).toHaveLength(5);
    const created = await post(sb, '//_admin/records/products', { name: 'Via admin' });
    expect(created.status).toBe(201);
    const id = created.json().id;
    expect(sb.store.get('products', id)!.name).toBe('Via admin');
    expect((await put(sb, `//_admin/records/products/${id}`, { name: 'Renamed' })).status).toBe(200);
    expect(sb.store.get('products', id)!.name).toBe('Renamed');
    expect((await del(sb, `//_admin/records/products/${id}`)).status).toBe(200);
    expect((await post(sb, `//_admin/records/products/${id}/restore`, {})).status).toBe(200);
    expect((await del(sb, '//_admin/records/products/99999')).status).toBe(404);
    expect((await get(sb, '//_admin/records/cars')).status).toBe(404);
    const calls = (await get(sb, '//_admin/calls')).json();
    expect(calls.map((c: any) => c.path)).toEqual(['/api/v1/clients', '/api/v1/products/1']); // admin calls are not logged
    expect((await del(sb, '//_admin/calls')).status).toBe(200);
    expect(sb.calls).toHaveLength(0);
  });
});
