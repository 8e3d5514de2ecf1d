/** Clients and products: full CRUD, stock, validation and the input forms the service accepts. */
import { describe, expect, it } from 'vitest';
import { del, get, post, put, sandbox, unwrap } from './helpers.js';

describe('clients', () => {
  it('create answers 201 with the bare clientnr as text; GET reads it back in wire form', async () => {
    const sb = await sandbox();
    const r = await post(sb, '/clients/', {
      company: 'Nieuw B.V.',
      contact: 'Jan',
      city: 'Delft',
      active: true,
      top: 14,
      reference: { line1: 'r1' },
    });
    expect(r.status).toBe(201);
    expect(r.type).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/^\d+$/);
    expect(r.text).toBe('21');
    const c = unwrap(await get(sb, `/clients/${r.text}`), 'client');
    expect(c).toMatchObject({
      clientnr: '21',
      company: 'Nieuw B.V.',
      contact: 'Jan',
      city: 'Delft',
      active: 'true',
      top: '14',
      country: '146',
      lastinvoice: '',
    });
    expect(c.reference).toEqual({ line1: 'r1', line2: '', line3: '' });
    expect((await get(sb, '/clients?count=-1')).json()).toHaveLength(21);
  });

  it('a clientnr chosen by the caller is used, a taken one refused', async () => {
    const sb = await sandbox();
    expect((await post(sb, '/clients', { company: 'X', clientnr: 5000 })).text).toBe('5000');
    const dup = await post(sb, '/clients', { company: 'Y', clientnr: 5000 });
    expect(dup.status).toBe(400);
    expect(dup.type).toMatch(/^text\/plain/);
  });

  it('PUT changes only the given attributes and answers 200', async () => {
    const sb = await sandbox();
    const before = sb.store.get('clients', 3)!;
    const r = await put(sb, '/clients/3', { city: 'Zwolle', notes_on_invoice: '1' });
    expect(r.status).toBe(200);
    const after = unwrap(await get(sb, '/clients/3'), 'client');
    expect(after).toEqual({ ...before, city: 'Zwolle', notes_on_invoice: 'true' });
    expect((await put(sb, '/clients/9999', { city: 'X' })).status).toBe(404);
  });

  it('booleans in all four forms, enums in any case, country by id or name', async () => {
    const sb = await sandbox();
    const cases: [unknown, string][] = [
      [true, 'true'],
      [false, 'false'],
      ['true', 'true'],
      ['false', 'false'],
      [1, 'true'],
      [0, 'false'],
      ['1', 'true'],
      ['0', 'false'],
    ];
    for (const [input, wire] of cases) {
      expect((await put(sb, '/clients/1', { active: input })).status).toBe(200);
      expect(sb.store.get('clients', 1)!.active).toBe(wire);
    }
    expect((await put(sb, '/clients/1', { active: 'yes' })).status).toBe(400);
    await put(sb, '/clients/1', {
      sendmethod: 'EMAIL',
      paymentmethod: 'AutoCollect',
      collecttype: 'rcur',
      tax_type: 'InTax',
      default_doclang: 'EN',
    });
    expect(sb.store.get('clients', 1)).toMatchObject({
      sendmethod: 'email',
      paymentmethod: 'autocollect',
      collecttype: 'RCUR',
      tax_type: 'intax',
      default_doclang: 'en',
    });
    expect((await put(sb, '/clients/1', { sendmethod: 'pigeon' })).status).toBe(400);
    for (const [input, id] of [
      ['Nederland', '146'],
      ['netherlands', '146'],
      [146, '146'],
      ['146', '146'],
      ['Deutschland', undefined],
      ['BE', undefined],
    ] as const) {
      expect((await put(sb, '/clients/1', { country: input })).status).toBe(200);
      if (id) expect(sb.store.get('clients', 1)!.country).toBe(id);
    }
    const de = (await get(sb, '/countrylist/de')).json().find((c: any) => c.name === 'Deutschland').id;
    await put(sb, '/clients/1', { country: 'Germany' });
    expect(sb.store.get('clients', 1)!.country).toBe(de);
    const bad = await put(sb, '/clients/1', { country: 'Atlantis' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/country/);
  });

  it('field lengths are enforced with a 400 and a message naming the field; nothing changes', async () => {
    const sb = await sandbox();
    const before = sb.store.get('clients', 2);
    for (const [field, max] of [
      ['company', 50],
      ['zipcode', 7],
      ['phone', 13],
      ['taxnumber', 18],
      ['mailintro', 128],
      ['email', 255],
    ] as const) {
      const ok = await put(sb, '/clients/2', { [field]: 'é'.repeat(max) });
      expect(ok.status, field).toBe(200);
      const r = await put(sb, '/clients/2', { [field]: 'x'.repeat(max + 1), city: 'Changed' });
      expect(r.status, field).toBe(400);
      expect(r.type).toMatch(/^text\/plain/);
      expect(r.text).toContain(field);
    }
    expect(sb.store.get('clients', 2)!.city).toBe(before!.city);
    expect((await post(sb, '/clients', { company: 'x'.repeat(51) })).status).toBe(400);
    expect((await post(sb, '/clients', {})).status).toBe(400);
    expect((await post(sb, '/clients', { city: 'Only a city' })).status).toBe(400);
    expect((await put(sb, '/clients/2', { top: 'thirty' })).status).toBe(400);
    expect((await put(sb, '/clients/2', { mandate_date: '2026-13-45' })).status).toBe(400);
    expect((await post(sb, '/clients', '{not json')).status).toBe(400);
  });

  it('takes form-encoded bodies (PHP style brackets)', async () => {
    const sb = await sandbox();
    const r = await post(sb, '/clients', undefined, {
      form: 'company=Form+%26+Co&active=0&reference%5Bline1%5D=R%C3%A9f&country=Belgi%C3%AB',
    });
    expect(r.status).toBe(201);
    const c = sb.store.get('clients', Number(r.text))!;
    expect(c).toMatchObject({ company: 'Form & Co', active: 'false' });
    expect(c.reference).toEqual({ line1: 'Réf', line2: '', line3: '' });
    const be = (await get(sb, '/countrylist')).json().find((x: any) => x.name === 'België').id;
    expect(c.country).toBe(be);
  });

  it('DELETE: 200, then 404; a client with documents cannot be deleted (403)', async () => {
    const sb = await sandbox();
    const docs = new Set(
      ['quotations', 'saved_invoices', 'repeating_invoices'].flatMap((e) =>
        sb.store.list(e as 'quotations').map((d) => d.clientnr),
      ),
    );
    const free = sb.store.list('clients').find((c) => !docs.has(c.clientnr))!;
    const busy = sb.store.list('clients').find((c) => docs.has(c.clientnr))!;
    const r = await del(sb, `/clients/${busy.clientnr}`);
    expect(r.status).toBe(403);
    expect(r.type).toMatch(/^text\/plain/);
    expect(sb.store.get('clients', Number(busy.clientnr))).toBeDefined();
    expect((await del(sb, `/clients/${free.clientnr}`)).status).toBe(200);
    expect((await get(sb, `/clients/${free.clientnr}`)).status).toBe(404);
    expect((await del(sb, `/clients/${free.clientnr}`)).status).toBe(404);
  });
});

describe('products', () => {
  it('create (201 bare id), read, update, delete', async () => {
    const sb = await sandbox();
    const r = await post(sb, '/products/', { code: 'NEW-1', name: 'Nieuw', price: 12.5, taxes: 21 });
    expect(r.status).toBe(201);
    expect(r.text).toBe('21');
    expect(unwrap(await get(sb, '/products/21'), 'product')).toEqual({
      id: '21',
      code: 'NEW-1',
      name: 'Nieuw',
      price: '12.5',
      taxes: '21',
      priceintax: '15.13',
      notes: '',
      stock: false,
      stock_use: 'false',
    });
    expect((await put(sb, '/products/21', { price: '10', taxes: '9' })).status).toBe(200);
    expect(sb.store.get('products', 21)).toMatchObject({ price: '10', taxes: '9', priceintax: '10.9' });
    expect((await put(sb, '/products/21', { priceintax: 11.111 })).status).toBe(200);
    expect(sb.store.get('products', 21)!.priceintax).toBe('11.111');
    expect((await del(sb, '/products/21')).status).toBe(200);
    expect((await get(sb, '/products/21')).status).toBe(404);
    expect((await put(sb, '/products/21', { name: 'x' })).status).toBe(404);
    expect((await del(sb, '/products/21')).status).toBe(404);
  });

  it('price and priceintax take at most 3 decimals; code at most 20; taxes must be an account rate', async () => {
    const sb = await sandbox();
    expect((await post(sb, '/products', { name: 'A', price: 1.234 })).status).toBe(201);
    const tooMany = await post(sb, '/products', { name: 'B', price: 1.2345 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.text).toMatch(/price.*3 decimals/);
    expect((await post(sb, '/products', { name: 'B', price: '1.2345' })).status).toBe(400);
    expect((await post(sb, '/products', { name: 'B', price: 1, priceintax: 1.0001 })).status).toBe(400);
    expect((await post(sb, '/products', { name: 'B', price: '1,25' })).text).toMatch(/dot/);
    expect((await post(sb, '/products', { name: 'B', code: 'C'.repeat(21) })).status).toBe(400);
    expect((await post(sb, '/products', { name: 'B', taxes: 17 })).status).toBe(400);
    expect((await post(sb, '/products', { price: 5 })).status).toBe(400); // no name
  });

  it('stock update: PUT {stock} sets the number (and switches stock keeping on); stock_use false hides it', async () => {
    const sb = await sandbox();
    const withStock = sb.store.list('products').find((p) => p.stock_use === 'true')!;
    expect((await put(sb, `/products/${withStock.id}`, { stock: 42.5 })).status).toBe(200);
    expect(unwrap(await get(sb, `/products/${withStock.id}`), 'product')).toMatchObject({
      stock: 42.5,
      stock_use: 'true',
    });
    const without = sb.store.list('products').find((p) => p.stock_use === 'false')!;
    await put(sb, `/products/${without.id}`, { stock: '7' });
    expect(sb.store.get('products', Number(without.id))).toMatchObject({ stock: 7, stock_use: 'true' });
    await put(sb, `/products/${without.id}`, { stock_use: 'false' });
    expect(sb.store.get('products', Number(without.id))).toMatchObject({ stock: false, stock_use: 'false' });
    await put(sb, `/products/${without.id}`, { stock_use: 1 });
    expect(sb.store.get('products', Number(without.id))).toMatchObject({ stock: 0, stock_use: 'true' });
    expect((await put(sb, `/products/${without.id}`, { stock: 'many' })).status).toBe(400);
  });

  it('form-encoded product create', async () => {
    const sb = await sandbox();
    const r = await post(sb, '/products', undefined, { form: 'name=Form&price=3.5&taxes=9&stock_use=true&stock=3' });
    expect(r.status).toBe(201);
    expect(sb.store.get('products', Number(r.text))).toMatchObject({
      name: 'Form',
      price: '3.5',
      taxes: '9',
      priceintax: '3.82',
      stock_use: 'true',
      stock: 3,
    });
  });
});
