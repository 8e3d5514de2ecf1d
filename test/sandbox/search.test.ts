/** Search: /search/{area}/{field}/{query} and the form without `search`. */
import { describe, expect, it } from 'vitest';
import { get, sandbox } from './helpers.js';

describe('search', () => {
  it('every area, a field or all; case-insensitive; results are bare arrays of records', async () => {
    const sb = await sandbox({ records: 300 });
    const client = sb.store.list('clients').find((c) => c.email !== '')!;
    const byEmail = (
      await get(sb, `/search/clients/email/${encodeURIComponent(String(client.email).toUpperCase())}`)
    ).json();
    expect(byEmail).toContainEqual(client);
    const city = (await get(sb, '/search/clients/city/rotterdam?count=-1')).json();
    expect(city.length).toBe(sb.store.list('clients').filter((c) => c.city === 'Rotterdam').length);
    const product = sb.store.list('products').find((p) => p.code !== '')!;
    expect((await get(sb, `/search/products/code/${product.code}`)).json()).toEqual([product]);
    const saved = sb.store.list('saved_invoices')[3]!;
    expect(
      (await get(sb, `/search/invoices_saved/all/${encodeURIComponent(String(saved.name))}`)).json(),
    ).toContainEqual(saved);
    const rep = sb.store.list('repeating_invoices')[2]!;
    expect(
      (await get(sb, `/search/invoices_repeated/name/${encodeURIComponent(String(rep.name))}`)).json(),
    ).toContainEqual(rep);
    expect((await get(sb, '/search/invoices/all/2026')).json().length).toBeGreaterThan(0);
    expect((await get(sb, '/search/clients/city/no-such-city-anywhere')).json()).toEqual([]);
  });

  it('totalintax: a decimal query uses a dot (exact amount); a comma is refused', async () => {
    const sb = await sandbox({ records: 300 });
    const saved = sb.store.list('saved_invoices').find((s) => String(s.totalintax).includes('.'))!;
    const hits = (await get(sb, `/search/invoices_saved/totalintax/${saved.totalintax}`)).json();
    expect(hits).toContainEqual(saved);
    for (const h of hits) expect(Number(h.totalintax)).toBe(Number(saved.totalintax));
    expect(
      (await get(sb, `/search/invoices_saved/totalintax/${String(saved.totalintax).replace('.', ',')}`)).status,
    ).toBe(400);
  });

  it('the form without the search segment gives the same answer', async () => {
    const sb = await sandbox({ records: 300 });
    for (const path of [
      'clients/city/utrecht',
      'products/name/consult',
      'invoices_saved/all/concept',
      'invoices_repeated/frequency/monthly',
    ]) {
      const a = await get(sb, `/search/${path}?count=-1`);
      const b = await get(sb, `/${path}?count=-1`);
      expect(a.status).toBe(200);
      expect(b.text).toBe(a.text);
      expect(a.json().length, path).toBeGreaterThan(0);
    }
  });

  it('unknown area or field is 400; search pages like lists', async () => {
    const sb = await sandbox({ records: 300 });
    expect((await get(sb, '/search/cars/all/x')).status).toBe(400);
    expect((await get(sb, '/search/clients/shoe_size/42')).status).toBe(400);
    expect((await get(sb, '/search/clients/all')).status).toBe(400);
    const all = (await get(sb, '/search/clients/country/146?count=-1')).json();
    expect(all.length).toBeGreaterThan(5);
    expect((await get(sb, '/search/clients/country/146?count=5&start=0')).json()).toEqual(all.slice(0, 5));
    expect((await get(sb, '/search/clients/country/146?count=5&start=5')).json()).toEqual(all.slice(5, 10));
  });
});
