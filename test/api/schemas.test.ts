/** The wire schemas on the example records of service-notes.md and awkward variants (pure parsing, no HTTP). */
import { describe, expect, it } from 'vitest';
import { parseRecord, parseRecords, type RecordOf } from '../../src/api/index.js';
import type { EntityName } from '../../src/catalog/index.js';
import { toBoolean, toDate, toLines, toNumber } from '../../src/catalog/wire.js';

const exampleClient = {
  clientnr: '1',
  contact: '',
  showcontact: 'true',
  company: 'Bakkerij Jansen',
  address: '',
  zipcode: '',
  city: 'Rotterdam',
  country: '146',
  phone: '',
  mobile: '',
  email: '',
  bankcode: '',
  biccode: '',
  taxnumber: '',
  tax_shifted: 'false',
  lastinvoice: '2015-11-24',
  sendmethod: 'mail',
  paymentmethod: 'bank',
  top: '30',
  stddiscount: '0',
  mailintro: 'Geachte heer/mevrouw,',
  reference: { line1: '', line2: '', line3: '' },
  notes: '',
  notes_on_invoice: 'false',
  active: 'true',
  default_doclang: '',
  default_email: '0',
  currency: 'EUR',
  mandate_id: '',
  mandate_date: '',
  collecttype: 'FRST',
  tax_type: 'extax',
  default_category: '0',
};

const exampleProduct = {
  id: '1',
  code: 'P-001',
  name: 'Consult',
  price: '120',
  taxes: '21',
  priceintax: '145.2',
  notes: '',
  stock: false,
  stock_use: 'false',
};

const exampleLines = {
  line1: { amount: 4, amount_desc: '', description: 'Appels', tax_rate: 21, price: 13, discount_pct: 0, linetotal: 52 },
  line2: { description: 'Delivered on Monday' },
};

function ok<E extends EntityName>(entity: E, raw: unknown): RecordOf<E> {
  const parsed = parseRecord(entity, raw);
  if (!('record' in parsed)) throw new Error(`unexpected problems: ${JSON.stringify(parsed.problems)}`);
  return parsed.record;
}

function problems(entity: EntityName, raw: unknown) {
  const parsed = parseRecord(entity, raw);
  if ('record' in parsed) throw new Error('expected problems');
  return parsed.problems;
}

describe('client schema', () => {
  it('types the example client of the service notes', () => {
    const c = ok('clients', exampleClient);
    expect(c.clientnr).toBe(1);
    expect(c.showcontact).toBe(true);
    expect(c.tax_shifted).toBe(false);
    expect(c.country).toBe(146);
    expect(c.top).toBe(30);
    expect(c.stddiscount).toBe(0);
    expect(c.lastinvoice).toBe('2015-11-24');
    expect(c.mandate_date).toBeNull();
    expect(c.default_email).toBe(0);
    expect(c.default_category).toBe(0);
    expect(c.collecttype).toBe('FRST');
    expect(c.reference).toEqual({ line1: '', line2: '', line3: '' });
    expect(c.contact).toBe('');
    expect(c.address_addon).toBeNull(); // missing on the wire
    expect(c.raw).toBe(exampleClient);
  });

  it('accepts the four boolean forms, mixed-case enums and keeps unknown fields only in raw', () => {
    const raw = {
      ...exampleClient,
      showcontact: 1,
      active: '0',
      notes_on_invoice: true,
      tax_shifted: '1',
      sendmethod: 'EMAIL',
      collecttype: 'rcur',
      custom_1: 'x',
      timestamp: 123,
    };
    const c = ok('clients', raw);
    expect([c.showcontact, c.active, c.notes_on_invoice, c.tax_shifted]).toEqual([true, false, true, true]);
    expect(c.sendmethod).toBe('email');
    expect(c.collecttype).toBe('RCUR');
    expect('custom_1' in c).toBe(false);
    expect(c.raw.custom_1).toBe('x');
  });

  it('takes a decimal stddiscount, a country id as a number and an empty country as null', () => {
    expect(ok('clients', { ...exampleClient, stddiscount: '2.5', country: 146 }).stddiscount).toBe(2.5);
    expect(ok('clients', { ...exampleClient, country: '' }).country).toBeNull();
  });

  it('reports a bad record with its id and field', () => {
    expect(problems('clients', { ...exampleClient, clientnr: '7', top: 'thirty' })).toEqual([
      { entity: 'clients', id: '7', field: 'top', message: expect.stringContaining('integer') },
    ]);
    expect(problems('clients', { ...exampleClient, clientnr: undefined })[0]).toMatchObject({
      id: null,
      field: 'clientnr',
    });
    expect(problems('clients', { ...exampleClient, clientnr: 'abc' })[0]).toMatchObject({
      id: 'abc',
      field: 'clientnr',
    });
    expect(problems('clients', { ...exampleClient, active: 'yes' })[0]).toMatchObject({ id: '1', field: 'active' });
    expect(problems('clients', { ...exampleClient, lastinvoice: '24-11-2015' })[0]).toMatchObject({
      field: 'lastinvoice',
    });
    expect(problems('clients', 'not a record')[0]).toMatchObject({ id: null, field: '(record)' });
  });
});

describe('product schema', () => {
  it('types the example product, stock false → null', () => {
    const p = ok('products', exampleProduct);
    expect(p).toMatchObject({
      id: 1,
      code: 'P-001',
      price: 120,
      taxes: 21,
      priceintax: 145.2,
      stock: null,
      stock_use: false,
    });
  });

  it('keeps a numeric stock (JSON number or string) and rejects price "abc"', () => {
    expect(ok('products', { ...exampleProduct, stock: 12.5, stock_use: 'true' }).stock).toBe(12.5);
    expect(ok('products', { ...exampleProduct, stock: '3' }).stock).toBe(3);
    expect(ok('products', { ...exampleProduct, priceintax: '' }).priceintax).toBeNull();
    expect(problems('products', { ...exampleProduct, id: '9', price: 'abc' })).toEqual([
      { entity: 'products', id: '9', field: 'price', message: expect.any(String) },
    ]);
  });
});

describe('lines', () => {
  it('reads a keyed object in key order, text lines with only a description', () => {
    expect(toLines(exampleLines)).toEqual([
      { amount: 4, amount_desc: '', description: 'Appels', tax_rate: 21, price: 13, discount_pct: 0, linetotal: 52 },
      {
        amount: null,
        amount_desc: null,
        description: 'Delivered on Monday',
        tax_rate: null,
        price: null,
        discount_pct: null,
        linetotal: null,
      },
    ]);
  });

  it('reads [] , an array, string numbers and a missing field', () => {
    expect(toLines([])).toEqual([]);
    expect(toLines(undefined)).toEqual([]);
    expect(
      toLines([{ description: 'a' }, { amount: '2', price: '1.5', description: 'b' }]).map((l) => [
        l.description,
        l.amount,
        l.price,
      ]),
    ).toEqual([
      ['a', null, null],
      ['b', 2, 1.5],
    ]);
    const many = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`line${i + 1}`, { description: `d${i + 1}` }]),
    );
    expect(toLines(many).map((l) => l.description)).toEqual(Array.from({ length: 12 }, (_, i) => `d${i + 1}`));
  });

  it('names the line and field of a bad value', () => {
    const raw = { id: '5', lines: { line1: exampleLines.line1, line2: { description: 'x', price: 'cheap' } } };
    expect(problems('saved_invoices', raw)).toEqual([
      { entity: 'saved_invoices', id: '5', field: 'lines.line2.price', message: expect.any(String) },
    ]);
  });
});

describe('documents', () => {
  const saved = {
    id: '12',
    name: 'F2024/0012',
    reference: { line1: 'PO 1', line2: '', line3: '' },
    lines: exampleLines,
    profile: '0',
    discounttype: '',
    discount: '0',
    paymentcondition: 'Betalen binnen %PAYMENT_PERIOD% dagen',
    paymentperiod: '30',
    totaldiscount: '0',
    totalintax: '62.92',
    alreadypaid: '0.00',
    alreadypaidmethod: '',
    clientnr: '1',
    contact: '',
    company: 'Bakkerij Jansen',
    address: '',
    zipcode: '',
    city: '',
    country: '146',
  };

  it('types a saved invoice with legacy zero ids and empty enums', () => {
    const s = ok('saved_invoices', saved);
    expect(s).toMatchObject({
      id: 12,
      name: 'F2024/0012',
      profile: 0,
      discounttype: '',
      totalintax: 62.92,
      clientnr: 1,
      country: 146,
      paymentcondition: saved.paymentcondition,
    });
    expect(s.lines).toHaveLength(2);
  });

  it('types a repeating invoice: dates, lowercased frequency', () => {
    const r = ok('repeating_invoices', {
      ...saved,
      lines: [],
      datesaved: '2024-01-02',
      initialdate: '2024-02-01',
      nextsenddate: '',
      finalsenddate: '0000-00-00',
      frequency: 'Monthly',
      repeattype: 'AUTO',
      email: 'a@b.nl',
    });
    expect(r).toMatchObject({
      datesaved: '2024-01-02',
      nextsenddate: null,
      finalsenddate: null,
      frequency: 'monthly',
      repeattype: 'auto',
      lines: [],
    });
  });

  it('types quotations: approved in all its empty forms, and filled', () => {
    const base = {
      id: '3',
      clientnr: '1',
      sent: '1',
      showtotals: 'true',
      date: '2024-03-01',
      datedue: '2024-03-31',
      quotationperiod: '30',
      lines: [],
      customstatus: 'Progress',
    };
    for (const empty of [[], '', false, 'false', undefined])
      expect(ok('quotations', { ...base, approved: empty }).approved).toBeNull();
    const q = ok('quotations', {
      ...base,
      approved: { name: 'Jan', date: '2024-03-05', ip: '10.0.0.1', comments: 'ok' },
    });
    expect(q.approved).toEqual({ name: 'Jan', date: '2024-03-05', ip: '10.0.0.1', comments: 'ok' });
    expect(q).toMatchObject({ sent: true, showtotals: true, quotationperiod: 30, customstatus: 'progress' });
    expect('action' in q).toBe(false);
  });

  it('types countries', () => {
    expect(ok('countries', { id: '146', name: 'Nederland' })).toMatchObject({ id: 146, name: 'Nederland' });
  });
});

describe('parseRecords', () => {
  it('leaves bad records out and goes on with the page', () => {
    const items = [exampleProduct, { ...exampleProduct, id: '2', price: 'abc' }, 42, { ...exampleProduct, id: '3' }];
    const { records, problems } = parseRecords('products', items);
    expect(records.map((r) => r.id)).toEqual([1, 3]);
    expect(problems.map((p) => [p.id, p.field])).toEqual([
      ['2', 'price'],
      [null, '(record)'],
    ]);
  });
});

describe('primitives', () => {
  it('numbers', () => {
    expect([
      toNumber('62.92'),
      toNumber('0'),
      toNumber(''),
      toNumber(undefined),
      toNumber(3),
      toNumber('-1.5e2'),
    ]).toEqual([62.92, 0, null, null, 3, -150]);
    expect(() => toNumber('0x10')).toThrow();
    expect(() => toNumber('1,5')).toThrow();
    expect(() => toNumber(true)).toThrow();
  });
  it('booleans and dates', () => {
    expect([
      toBoolean('true'),
      toBoolean('false'),
      toBoolean(1),
      toBoolean(0),
      toBoolean('1'),
      toBoolean('0'),
      toBoolean(''),
    ]).toEqual([true, false, true, false, true, false, null]);
    expect([toDate(''), toDate('2024-02-29'), toDate('2024-02-29 10:00:00'), toDate('0000-00-00')]).toEqual([
      null,
      '2024-02-29',
      '2024-02-29',
      null,
    ]);
    expect(() => toDate('2024-13-01')).toThrow();
  });
});
