/** The service's wire quirks (service-notes.md), over HTTP. */
import { describe, expect, it } from 'vitest';
import { basic, call, del, get, sandbox, scalarsAreStrings, unwrap } from './helpers.js';

const LISTS = ['clients', 'products', 'quotations', 'invoices_saved', 'invoices_repeated'] as const;
const DATE = /^(\d{4}-\d{2}-\d{2})?$/;

describe('response shapes', () => {
  it('lists are bare JSON arrays of flat records with string scalars', async () => {
    const sb = await sandbox({ records: 100 });
    for (const path of LISTS) {
      const r = await get(sb, `/${path}?count=-1`);
      expect(r.status).toBe(200);
      expect(r.type).toMatch(/^application\/json/);
      const list = r.json();
      expect(Array.isArray(list)).toBe(true);
      expect(list).toHaveLength(20);
      for (const rec of list)
        expect(scalarsAreStrings(rec, ['stock']), `${path} ${JSON.stringify(rec).slice(0, 80)}`).toEqual([]);
    }
  });

  it('single GETs are wrapped in one key: client, product, quotation, invoice (saved and repeating)', async () => {
    const sb = await sandbox();
    expect(unwrap(await get(sb, '/clients/1'), 'client').clientnr).toBe('1');
    expect(unwrap(await get(sb, '/products/2'), 'product').id).toBe('2');
    expect(unwrap(await get(sb, '/quotations/3'), 'quotation').id).toBe('3');
    expect(unwrap(await get(sb, '/invoices_saved/4'), 'invoice').id).toBe('4');
    expect(unwrap(await get(sb, '/invoices_repeated/5'), 'invoice').id).toBe('5');
    expect((await get(sb, '/clients/1')).json().client).toEqual(sb.store.get('clients', 1));
  });

  it('an unknown id is 404 with a plain-text message; an odd id answers 200 with the whole list', async () => {
    const sb = await sandbox();
    for (const path of [
      '/clients/9999',
      '/products/9999',
      '/quotations/9999',
      '/invoices_saved/9999',
      '/invoices_repeated/9999',
      '/invoices_saved/NOPE-1',
    ]) {
      const r = await get(sb, path);
      expect(r.status, path).toBe(404);
      expect(r.type).toMatch(/^text\/plain/);
      expect(r.text.length).toBeGreaterThan(0);
    }
    const odd = await get(sb, '/clients/abc');
    expect(odd.status).toBe(200);
    expect(Array.isArray(odd.json())).toBe(true);
    expect(odd.json()).toHaveLength(20);
    expect((await get(sb, '/no_such_thing')).status).toBe(404);
    expect((await get(sb, '//elsewhere')).status).toBe(404);
    expect((await call(sb, 'PATCH', '/clients/1')).status).toBe(405);
  });

  it('booleans are "true"/"false" on clients and "0"/"1" on quotations; unset dates are ""', async () => {
    const sb = await sandbox({ records: 200 });
    const clients = (await get(sb, '/clients?count=-1')).json();
    for (const c of clients) {
      for (const k of ['showcontact', 'tax_shifted', 'notes_on_invoice', 'active'])
        expect(['true', 'false']).toContain(c[k]);
      expect(c.lastinvoice).toMatch(DATE);
      expect(c.mandate_date).toMatch(DATE);
      expect(c.reference).toEqual({ line1: expect.any(String), line2: expect.any(String), line3: expect.any(String) });
    }
    expect(clients.some((c: any) => c.lastinvoice === '')).toBe(true);
    const quotations = (await get(sb, '/quotations?count=-1')).json();
    for (const q of quotations) {
      expect(['0', '1']).toContain(q.showtotals);
      expect(['0', '1']).toContain(q.convert_prices_to_euro);
      expect(['true', 'false']).toContain(q.sent);
      expect(q.date).toMatch(DATE);
      expect(q.datedue).toMatch(DATE);
    }
    const repeating = (await get(sb, '/invoices_repeated?count=-1')).json();
    expect(repeating.some((r: any) => r.finalsenddate === '')).toBe(true);
  });

  it('lines are {"line1": …} with JSON numbers inside, text lines only a description, or [] when empty', async () => {
    const sb = await sandbox({ records: 500 });
    const docs = [
      ...(await get(sb, '/quotations?count=-1')).json(),
      ...(await get(sb, '/invoices_saved?count=-1')).json(),
      ...(await get(sb, '/invoices_repeated?count=-1')).json(),
    ];
    let text = 0;
    let empty = 0;
    for (const d of docs) {
      if (Array.isArray(d.lines)) {
        expect(d.lines).toEqual([]);
        empty++;
        continue;
      }
      const keys = Object.keys(d.lines);
      expect(keys).toEqual(keys.map((_, i) => `line${i + 1}`));
      for (const l of Object.values<any>(d.lines)) {
        if (Object.keys(l).length === 1) {
          expect(typeof l.description).toBe('string');
          text++;
          continue;
        }
        for (const k of ['amount', 'tax_rate', 'price', 'discount_pct', 'linetotal'])
          expect(typeof l[k]).toBe('number');
        expect(l.linetotal).toBeCloseTo(Math.round(l.amount * l.price * (1 - l.discount_pct / 100) * 100) / 100, 2);
      }
    }
    expect(text).toBeGreaterThan(0);
    expect(empty).toBeGreaterThan(0);
  });

  it('document totals match their lines and discount', async () => {
    const sb = await sandbox({ records: 300 });
    for (const d of (await get(sb, '/invoices_saved?count=-1')).json()) {
      const lines = Array.isArray(d.lines) ? [] : Object.values<any>(d.lines).filter((l) => l.linetotal !== undefined);
      const gross = lines.reduce((s, l) => s + l.linetotal * (1 + l.tax_rate / 100), 0);
      const disc =
        d.discounttype === 'amount'
          ? Number(d.discount)
          : d.discounttype === 'percentage'
            ? (gross * Number(d.discount)) / 100
            : 0;
      expect(Number(d.totalintax)).toBeCloseTo(gross - disc, 2);
      expect(Number(d.totaldiscount)).toBeCloseTo(disc, 2);
    }
  });

  it('products: stock is a number when stock_use is "true", else false', async () => {
    const sb = await sandbox({ records: 200 });
    const products = (await get(sb, '/products?count=-1')).json();
    for (const p of products) {
      if (p.stock_use === 'true') expect(typeof p.stock).toBe('number');
      else {
        expect(p.stock_use).toBe('false');
        expect(p.stock).toBe(false);
      }
    }
    expect(products.some((p: any) => p.stock_use === 'true')).toBe(true);
    expect(products.some((p: any) => p.stock_use === 'false')).toBe(true);
  });

  it('quotations: approved is [] (or legacy ""), or an object of strings; customstatus "" when none', async () => {
    const sb = await sandbox({ records: 300 });
    const qs = (await get(sb, '/quotations?count=-1')).json();
    const kinds = new Set<string>();
    for (const q of qs) {
      if (Array.isArray(q.approved)) kinds.add('[]');
      else if (q.approved === '') kinds.add('""');
      else {
        expect(Object.keys(q.approved).sort()).toEqual(['comments', 'date', 'ip', 'name']);
        expect(scalarsAreStrings(q.approved)).toEqual([]);
        expect(q.sent).toBe('true');
        kinds.add('object');
      }
      expect(['', 'progress', 'completed', 'billable', 'declined']).toContain(q.customstatus);
      if (q.customstatus !== '') expect(q.sent).toBe('true');
      expect(q.sign_url).toMatch(/^https:\/\//);
    }
    expect([...kinds].sort()).toEqual(['""', '[]', 'object']);
  });

  it('awkward values: legacy zero ids, empty enums, placeholders, "/" in names, unicode, quotes, long notes, extra fields', async () => {
    const sb = await sandbox({ records: 1000 });
    const all = (path: string) => get(sb, `/${path}?count=-1`).then((r) => r.json() as any[]);
    const [clients, products, quotations, saved, repeating] = await Promise.all(LISTS.map(all));
    const docs = [...quotations, ...saved, ...repeating];
    expect(docs.some((d) => d.profile === '0' && d.discounttype === '')).toBe(true);
    expect(docs.some((d) => d.clientnr === '0')).toBe(true);
    expect(docs.some((d) => String(d.paymentcondition).includes('%PAYMENT_PERIOD%'))).toBe(true);
    expect(saved.some((d) => d.name.includes('/'))).toBe(true);
    expect(clients.some((c) => c.company.includes('"'))).toBe(true);
    expect(clients.some((c) => [...c.company].some((ch) => ch.codePointAt(0)! > 0xff))).toBe(true);
    expect([...clients, ...products, ...quotations].some((r) => r.notes.length > 5000)).toBe(true);
    expect(clients.some((c) => 'custom_1' in c)).toBe(true);
    expect(clients.some((c) => 'timestamp' in c)).toBe(true);
    expect(quotations.some((q) => 'profile_name' in q)).toBe(true);
    expect(products.some((p) => 'category' in p)).toBe(true);
    expect(clients.some((c) => c.country !== '146')).toBe(true);
    for (const s of saved) expect([...s.name].length).toBeLessThanOrEqual(20);
  });
});

describe('auth, headers, errors', () => {
  it('Basic auth: missing or wrong credentials are 401 plain text, still with X-RateLimit-Remaining', async () => {
    const sb = await sandbox({ user: 'me', apiKey: 'k3y' });
    for (const auth of [null, basic('me', 'wrong'), basic('other', 'k3y'), 'Bearer k3y']) {
      const r = await get(sb, '/clients', { auth });
      expect(r.status).toBe(401);
      expect(r.type).toMatch(/^text\/plain/);
      expect(r.headers['x-ratelimit-remaining']).toBeDefined();
    }
    expect((await get(sb, '/clients', { auth: basic('me', 'k3y') })).status).toBe(200);
    expect(sb.calls).toHaveLength(5); // failed-auth calls are logged too
    expect(sb.calls.slice(0, 4).every((c) => c.status === 401)).toBe(true);
  });

  it('X-RateLimit-Remaining on every response, counting down; 403 with 0 when spent; resetQuota', async () => {
    const sb = await sandbox({ hourlyQuota: 3 });
    const r1 = await get(sb, '/clients/1');
    expect(r1.headers['x-ratelimit-remaining']).toBe('2');
    const r2 = await get(sb, '/clients/99999');
    expect(r2.status).toBe(404);
    expect(r2.headers['x-ratelimit-remaining']).toBe('1');
    expect((await del(sb, '/products/1')).headers['x-ratelimit-remaining']).toBe('0');
    const spent = await get(sb, '/clients');
    expect(spent.status).toBe(403);
    expect(spent.headers['x-ratelimit-remaining']).toBe('0');
    expect(spent.type).toMatch(/^text\/plain/);
    expect(sb.quotaRemaining).toBe(0);
    sb.resetQuota();
    expect(sb.quotaRemaining).toBe(3);
    expect((await get(sb, '/clients')).status).toBe(200);
    sb.knobs.hourlyQuota = 1000;
    expect((await get(sb, '/clients')).headers['x-ratelimit-remaining']).toBe('998');
  });

  it('the 403 of a spent quota differs from the 403 of a client with documents by the header', async () => {
    const sb = await sandbox();
    const withDocs = sb.store.list('saved_invoices').find((s) => s.clientnr !== '0')!.clientnr;
    const r = await del(sb, `/clients/${withDocs}`);
    expect(r.status).toBe(403);
    expect(r.headers['x-ratelimit-remaining']).not.toBe('0');
    sb.failNext('quota');
    const q = await get(sb, '/clients');
    expect(q.status).toBe(403);
    expect(q.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('answers JSON whatever the Accept header says', async () => {
    const sb = await sandbox();
    for (const accept of ['application/xml', 'text/html', '*/*']) {
      const r = await get(sb, '/products/1', { headers: { accept } });
      expect(r.type).toMatch(/^application\/json/);
      expect(r.json().product.id).toBe('1');
    }
  });
});

describe('paging', () => {
  it('count/start page through a list; count=-1 is all; a short or empty page ends it', async () => {
    const sb = await sandbox({ perEntity: { clients: 23 } });
    const ids = (q: string) => get(sb, `/clients${q}`).then((r) => r.json().map((c: any) => Number(c.clientnr)));
    expect(await ids('?count=10&start=0')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await ids('?count=10&start=10')).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(await ids('?count=10&start=20')).toEqual([21, 22, 23]);
    expect(await ids('?count=10&start=30')).toEqual([]);
    expect(await ids('?count=-1')).toHaveLength(23);
    expect(await ids('?count=-1&start=20')).toEqual([21, 22, 23]);
    expect(await ids('?start=5&count=0')).toEqual([]);
    expect((await get(sb, '/clients?count=abc')).status).toBe(400);
    expect((await get(sb, '/clients?start=-1')).status).toBe(400);
  });

  it('without count a default page size applies (100, configurable); ignorePaging returns everything', async () => {
    const sb = await sandbox({ perEntity: { products: 130 } });
    expect((await get(sb, '/products')).json()).toHaveLength(100);
    expect((await get(sb, '/products?start=100')).json()).toHaveLength(30);
    sb.knobs.defaultPageSize = 7;
    expect((await get(sb, '/products')).json()).toHaveLength(7);
    sb.knobs.ignorePaging = true;
    expect((await get(sb, '/products?count=10&start=50')).json()).toHaveLength(130);
    const sb2 = await sandbox({ perEntity: { products: 30 }, ignorePaging: true, defaultPageSize: 5 });
    expect((await get(sb2, '/products?count=10&start=10')).json()).toHaveLength(30);
  });
});

describe('country list', () => {
  it('countrylist: [{id, name}] strings, about 227 countries with gaps, 146 = Nederland; languages', async () => {
    const sb = await sandbox();
    const nl = (await get(sb, '/countrylist')).json();
    expect(nl.length).toBeGreaterThanOrEqual(220);
    expect(nl.length).toBeLessThanOrEqual(235);
    expect(nl.find((c: any) => c.id === '146')).toEqual({ id: '146', name: 'Nederland' });
    const ids = nl.map((c: any) => Number(c.id));
    expect(Math.max(...ids)).toBeGreaterThan(ids.length); // gaps
    expect((await get(sb, '/countrylist/en')).json().find((c: any) => c.id === '146').name).toBe('Netherlands');
    expect((await get(sb, '/countrylist/de')).json().find((c: any) => c.id === '146').name).toBe('Niederlande');
    expect((await get(sb, '/countrylist/fr')).json()).toHaveLength(nl.length);
    expect((await get(sb, '/countrylist/es')).json()).toHaveLength(nl.length);
    expect((await get(sb, '/countrylist/xx')).status).toBe(404);
  });
});
