/** Lists as async iterators of pages: the end of the list, and servers that do not page as asked. */
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
    expect(queries(sb)).toEqual(['count=250&start=0']);
  });

  it('a list that is an exact multiple of the page size ends on the empty page', async () => {
    const sb = await sandbox({ perEntity: { clients: 500 } });
    const stream = clientFor(sb).list('clients');
    const pages = await collect(stream);
    expect(pages.map((p) => [p.start, p.received, p.records.length])).toEqual([
      [0, 250, 250],
      [250, 250, 250],
    ]);
    expect(stream.complete).toBe(true);
    expect(queries(sb)).toEqual(['count=250&start=0', 'count=250&start=250', 'count=250&start=500']);
    const ids = pages.flatMap((p) => p.records.map((r) => r.clientnr));
    expect(new Set(ids).size).toBe(500);
  });

  it('ends on a short page; the page size is configurable per client and per list', async () => {
    const sb = await sandbox({ perEntity: { quotations: 23 } });
    const api = clientFor(sb, { pageSize: 10 });
    const stream = api.list('quotations');
    expect((await collect(stream)).map((p) => p.received)).toEqual([10, 10, 3]);
    expect(stream.complete).toBe(true);
    sb.clearCalls();
    expect((await collect(api.list('quotations', { pageSize: 20 }))).map((p) => p.received)).toEqual([20, 3]);
  });

  it('always sends count, so a default page size smaller than the list does not truncate it', async () => {
    const sb = await sandbox({ perEntity: { products: 330 }, defaultPageSize: 100 });
    const stream = clientFor(sb).list('products');
    const pages = await collect(stream);
    expect(pages.reduce((n, p) => n + p.records.length, 0)).toBe(330);
    expect(stream.complete).toBe(true);
    expect(queries(sb).every((q) => q.startsWith('count=250&'))).toBe(true);
  });

  it('stops with a warning, not complete, when the server ignores count/start', async () => {
    const sb = await sandbox({ perEntity: { clients: 600 }, ignorePaging: true });
    const stream = clientFor(sb).list('clients');
    const pages = await collect(stream);
    expect(pages).toHaveLength(1); // the repeat is not handed out again
    expect(pages[0]!.received).toBe(600);
    expect(stream.complete).toBe(false);
    expect(stream.warnings.join('\n')).toMatch(/ignored paging/);
    expect(sb.calls).toHaveLength(2);
  });

  it('a server that ignores paging but whose whole list fits in one page is complete', async () => {
    const sb = await sandbox({ perEntity: { products: 40 }, ignorePaging: true });
    const stream = clientFor(sb).list('products');
    expect((await collect(stream)).map((p) => p.received)).toEqual([40]);
    expect(stream.complete).toBe(true);
  });

  it('skips a record repeated because the list shifted between pages, and goes on', async () => {
    const sb = await sandbox({ perEntity: { products: 30 } });
    sb.store.delete('products', 2);
    const stream = clientFor(sb, { pageSize: 10 }).list('products');
    const ids: number[] = [];
    for await (const page of stream) {
      ids.push(...page.records.map((r) => r.id));
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

  it('keeps unknown fields in raw', async () => {
    const sb = await sandbox({ perEntity: { clients: 3 } });
    sb.store.update('clients', 2, { custom_1: 'extra', timestamp: '1700000000' });
    const [page] = await collect(clientFor(sb).list('clients'));
    const two = page!.records.find((r) => r.clientnr === 2)!;
    expect(two.raw.custom_1).toBe('extra');
    expect('custom_1' in two).toBe(false);
  });
});

describe('a page with a record that cannot be understood', () => {
  it('reports it with id and field and hands out the rest of the page', async () => {
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
      expect(pages[0]!.records.map((r) => r.id)).toEqual([1, 4]);
      expect(pages[0]!.received).toBe(4);
      expect(pages[0]!.problems).toEqual([
        { entity: 'products', id: '2', field: 'price', message: expect.any(String) },
        { entity: 'products', id: '', field: 'id', message: expect.any(String) },
      ]);
      expect(stream.complete).toBe(true);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
