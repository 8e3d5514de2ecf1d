/** Lists as async iterators of pages: the end of the list (an empty page), and servers that do not page as asked. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Page } from '../../src/api/index.js';
import { clientFor, sandbox, type Sandbox } from './helpers.js';

async function collect<T>(stream: AsyncIterable<Page<T>>): Promise<Page<T>[]> {
  const pages: Page<T>[] = [];
  for await (const page of stream) pages.push(page);
  return pages;
}

const queries = (sb: Sandbox) => sb.calls.map((c) => c.query);

describe('paging', () => {
  it('an empty list: no page, complete after one request', async () => {
    const sb = await sandbox({ records: 0 });
    const stream = clientFor(sb).list('products');
    expect(await collect(stream)).toEqual([]);
    expect(stream.complete).toBe(true);
    expect(queries(sb)).toEqual(['count=500&start=0']);
  });

  it('a list that is an exact multiple of the page size ends on the empty page', async () => {
    const sb = await sandbox({ perEntity: { clients: 500 } });
    const stream = clientFor(sb, { pageSize: 250 }).list('clients');
    const pages = await collect(stream);
    expect(pages.map((p) => [p.start, p.received, p.records.length])).toEqual([
      [0, 250, 250],
      [250, 250, 250],
    ]);
    expect(stream.complete).toBe(true);
    expect(queries(sb)).toEqual(['count=250&start=0', 'count=250&start=250', 'count=250&start=500']);
    const ids = pages.flatMap((p) => p.records.map((r) => r.record.clientnr));
    expect(new Set(ids).size).toBe(500);
  });

  it('a short page is not the end: only an empty page is; the page size is configurable per client and per list', async () => {
    const sb = await sandbox({ perEntity: { quotations: 23 } });
    const api = clientFor(sb, { pageSize: 10 });
    const stream = api.list('quotations');
    expect((await collect(stream)).map((p) => p.received)).toEqual([10, 10, 3]);
    expect(stream.complete).toBe(true);
    expect(queries(sb)).toEqual(['count=10&start=0', 'count=10&start=10', 'count=10&start=20', 'count=10&start=23']);
    sb.clearCalls();
    expect((await collect(api.list('quotations', { pageSize: 20 }))).map((p) => p.received)).toEqual([20, 3]);
    expect(sb.calls).toHaveLength(3);
  });

  it('a service that caps count is noticed: every record is read, and the cap is reported once and asked for', async () => {
    const sb = await sandbox({ perEntity: { clients: 450 }, maxPageSize: 100 });
    const learned: number[] = [];
    const stream = clientFor(sb).list('clients', { onCapLearned: (cap) => learned.push(cap) });
    const pages = await collect(stream);
    expect(pages.map((p) => p.received)).toEqual([100, 100, 100, 100, 50]);
    expect(stream.complete).toBe(true);
    expect(learned).toEqual([100]);
    expect(queries(sb)).toEqual([
      'count=500&start=0',
      'count=500&start=100', // the second page proves the first was capped
      'count=100&start=200',
      'count=100&start=300',
      'count=100&start=400',
      'count=100&start=450',
    ]);
    sb.clearCalls();
    // With the cap known, a later pull asks for it from the start.
    const again = clientFor(sb).list('clients', { knownCap: 100 });
    expect((await collect(again)).reduce((n, p) => n + p.records.length, 0)).toBe(450);
    expect(queries(sb).every((q) => q.startsWith('count=100&'))).toBe(true);
    expect(sb.calls).toHaveLength(6);
  });

  it('the country list pages like the others, so a capped service cannot cut it short', async () => {
    const sb = await sandbox({ maxPageSize: 50 });
    const countries = await clientFor(sb).countries();
    expect(countries.length).toBeGreaterThan(200);
    expect(new Set(countries.map((c) => c.id)).size).toBe(countries.length);
    expect(sb.calls.length).toBe(Math.ceil(countries.length / 50) + 1);
  });

  it('always sends count, so a default page size smaller than the list does not truncate it', async () => {
    const sb = await sandbox({ perEntity: { products: 330 }, defaultPageSize: 100 });
    const stream = clientFor(sb).list('products');
    const pages = await collect(stream);
    expect(pages.reduce((n, p) => n + p.records.length, 0)).toBe(330);
    expect(stream.complete).toBe(true);
    expect(queries(sb).every((q) => q.startsWith('count=500&'))).toBe(true);
  });

  it('a server that ignores count and start answers the whole list at once: recognised by the repeat, complete', async () => {
    const sb = await sandbox({ perEntity: { clients: 600 }, ignorePaging: ['clients'] });
    const stream = clientFor(sb).list('clients');
    const pages = await collect(stream);
    expect(pages).toHaveLength(1); // the repeat is not handed out again
    expect(pages[0]!.received).toBe(600);
    expect(stream.complete).toBe(true);
    expect(stream.warnings.join('\n')).toMatch(
      /ignores count and start; its first answer held the whole list \(600 records\)/,
    );
    expect(sb.calls).toHaveLength(2);
  });

  it('a server that ignores paging with a list shorter than a page is complete too (a count=1 probe tells)', async () => {
    const sb = await sandbox({ perEntity: { products: 40 }, ignorePaging: true });
    const stream = clientFor(sb).list('products');
    expect((await collect(stream)).map((p) => p.received)).toEqual([40]);
    expect(stream.complete).toBe(true);
    expect(queries(sb)).toEqual(['count=500&start=0', 'count=500&start=40', 'count=1&start=0']);
  });

  it('a server that honours count but ignores start cannot be paged: incomplete, with a warning', async () => {
    const sb = await sandbox({ perEntity: { products: 40 } });
    const pages: Page<unknown>[] = [];
    // A proxy that reads every request as start=0, as such a server would.
    const server = createServer(async (req, res) => {
      const url = new URL(req.url!, 'http://x');
      const count = url.searchParams.get('count') ?? '10';
      const answer = await fetch(`${sb.url}/products?count=${count}&start=0`, {
        headers: { authorization: `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}` },
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(await answer.text());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const proxied = clientFor({ url: `http://127.0.0.1:${port}/api/v1`, user: 'u', apiKey: 'k-test' } as Sandbox, {
        pageSize: 10,
      });
      const capped = proxied.list('products');
      for await (const page of capped) pages.push(page);
      expect(pages).toHaveLength(1);
      expect(capped.complete).toBe(false);
      expect(capped.warnings.join('\n')).toMatch(/ignores start but honours count/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('skips a record repeated because the list shifted between pages, and goes on', async () => {
    const sb = await sandbox({ perEntity: { products: 30 } });
    sb.store.delete('products', 2);
    const stream = clientFor(sb, { pageSize: 10 }).list('products');
    const ids: number[] = [];
    for await (const page of stream) {
      ids.push(...page.records.map((r) => r.record.id));
      if (page.start === 0) sb.store.restore('products', 2); // shifts every later record by one
    }
    expect(ids).toEqual(Array.from({ length: 30 }, (_, i) => i + 1).filter((id) => id !== 2));
    expect(stream.complete).toBe(true);
    expect(stream.warnings.join('\n')).toMatch(/repeated from the previous page/);
  });

  it('is not complete when the consumer stops early or an error ends it', async () => {
    const sb = await sandbox({ perEntity: { clients: 30 } });
    const api = clientFor(sb, { pageSize: 10, maxRetries: 0 });
    const stream = api.list('clients');
    for await (const page of stream) if (page.start === 0) break;
    expect(stream.complete).toBe(false);
    sb.failNext('500', 1, { method: 'GET' });
    const failing = api.list('clients');
    await expect(collect(failing)).rejects.toThrow(/500/);
    expect(failing.complete).toBe(false);
  });

  it('asks for the next page while the consumer works on this one, and never has two requests in flight', async () => {
    const sb = await sandbox({ perEntity: { clients: 60 }, latencyMs: 20 });
    const consumed: number[] = [];
    for await (const _page of clientFor(sb, { pageSize: 20 }).list('clients')) {
      // Work as the sync does on a page: some computing, then waiting for the database.
      const until = performance.now() + 15;
      while (performance.now() < until);
      await new Promise((resolve) => setTimeout(resolve, 40));
      consumed.push(performance.timeOrigin + performance.now());
    }
    expect(queries(sb)).toEqual(['count=20&start=0', 'count=20&start=20', 'count=20&start=40', 'count=20&start=60']);
    for (let i = 1; i < sb.calls.length; i++) {
      const [before, call] = [sb.calls[i - 1]!, sb.calls[i]!];
      expect(call.startedAt).toBeGreaterThanOrEqual(before.endedAt); // one at a time
      expect(call.startedAt).toBeLessThan(consumed[i - 1]!); // asked for before page i-1 was done with
    }
  });

  it('a list answer with an element that is not JSON fails the list (not complete), naming the request', async () => {
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        req.url!.includes('start=0') ? '[{"clientnr": "1", "company": "A"}, {"clientnr": 2, "company": tru}]' : '[]',
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const api = clientFor({ url: `http://127.0.0.1:${port}/api/v1`, user: 'u', apiKey: 'k-test' } as Sandbox);
      const stream = api.list('clients');
      await expect(collect(stream)).rejects.toThrow(/GET \/clients\?count=500&start=0.*the answer is not valid JSON/);
      expect(stream.complete).toBe(false);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('keeps unknown fields in raw', async () => {
    const sb = await sandbox({ perEntity: { clients: 3 } });
    sb.store.update('clients', 2, { custom_1: 'extra', timestamp: '1700000000' });
    const [page] = await collect(clientFor(sb).list('clients'));
    const two = page!.records.find((r) => r.record.clientnr === 2)!.record;
    expect(two.raw.custom_1).toBe('extra');
    expect('custom_1' in two).toBe(false);
  });
});

describe('a page with a record that cannot be understood', () => {
  it('stores it with the bad field as null, reports it with id and field, and skips only a record without an id', async () => {
    // The sandbox only stores valid records, so this one page comes from a tiny server of its own.
    const good = (id: number) => ({
      id: String(id),
      code: `P${id}`,
      name: 'x',
      price: '1.5',
      taxes: '21',
      priceintax: '1.82',
      notes: '',
      stock: false,
      stock_use: 'false',
    });
    const body = JSON.stringify([good(1), { ...good(2), price: 'abc' }, { ...good(3), id: '' }, good(4)]);
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-remaining': '999' });
      res.end(req.url!.includes('start=0') ? body : '[]');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const api = clientFor({ url: `http://127.0.0.1:${port}/api/v1`, user: 'u', apiKey: 'k-test' } as Sandbox, {
        pageSize: 4,
      });
      const stream = api.list('products');
      const pages = await collect(stream);
      expect(pages[0]!.records.map((r) => r.record.id)).toEqual([1, 2, 4]);
      expect(pages[0]!.received).toBe(4);
      const two = pages[0]!.records[1]!;
      expect(two.record.price).toBeNull();
      expect(two.record.raw.price).toBe('abc');
      expect(two.issues).toEqual([
        {
          entity: 'products',
          id: '2',
          field: 'price',
          message: expect.any(String),
          value: '"abc"',
          action: 'rejected',
        },
      ]);
      expect(pages[0]!.skipped).toEqual([
        { entity: 'products', id: '', field: 'id', message: expect.any(String), value: '""', action: 'skipped' },
      ]);
      expect(stream.complete).toBe(true);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
