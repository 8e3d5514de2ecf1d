/** Quotations: CRUD, send, approve, remove approval, custom status — the state rules of spec 3.1. */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { del, get, post, put, sandbox, unwrap } from './helpers.js';

const find = (sb: Sandbox, pred: (q: Record<string, any>) => boolean) => sb.store.list('quotations').find(pred)!;
const draft = (sb: Sandbox) => find(sb, (q) => q.sent === 'false');
const sent = (sb: Sandbox) => find(sb, (q) => q.sent === 'true' && Array.isArray(q.approved) && q.customstatus === '');

describe('quotations', () => {
  it('create with action save makes a draft; with action send a sent one; client details are copied', async () => {
    const sb = await sandbox();
    const lines = [{ amount: 2, description: 'Uren', price: 50, tax_rate: 21 }, { description: 'Tekstregel' }];
    const r = await post(sb, '/quotations/', {
      action: 'save',
      clientnr: 1,
      lines,
      savename: 'Mijn offerte',
      discounttype: 'percentage',
      discount: 10,
      quotationperiod: '14',
      notes: 'n',
    });
    expect(r.status).toBe(201);
    expect(r.text).toMatch(/^\d+$/);
    const q = unwrap(await get(sb, `/quotations/${r.text}`), 'quotation');
    const client = sb.store.get('clients', 1)!;
    expect(q).toMatchObject({
      id: r.text,
      sent: 'false',
      approved: [],
      customstatus: '',
      savename: 'Mijn offerte',
      clientnr: '1',
      company: client.company,
      city: client.city,
      email: client.email,
      quotationperiod: '14',
      date: '2026-11-01',
      datedue: '2026-11-15',
    });
    expect(q.lines).toEqual({
      line1: {
        amount: 2,
        amount_desc: '',
        description: 'Uren',
        tax_rate: 21,
        price: 50,
        discount_pct: 0,
        linetotal: 100,
      },
      line2: { description: 'Tekstregel' },
    });
    expect(q.totalintax).toBe('108.9'); // 121 - 10%
    const s = await post(sb, '/quotations', { action: 'SEND', sendmethod: 'Email', clientnr: '2' });
    expect(s.status).toBe(201);
    expect(sb.store.get('quotations', Number(s.text))).toMatchObject({
      sent: 'true',
      sendmethod: 'email',
      lines: [],
      totalintax: '0',
    });
  });

  it('create needs action and clientnr (an existing client), and sendmethod when sending', async () => {
    const sb = await sandbox();
    expect((await post(sb, '/quotations', { clientnr: 1 })).status).toBe(400);
    expect((await post(sb, '/quotations', { action: 'save' })).status).toBe(400);
    expect((await post(sb, '/quotations', { action: 'publish', clientnr: 1 })).status).toBe(400);
    expect((await post(sb, '/quotations', { action: 'send', clientnr: 1 })).text).toMatch(/sendmethod/);
    expect((await post(sb, '/quotations', { action: 'save', clientnr: 99999 })).status).toBe(400);
    expect((await post(sb, '/quotations', { action: 'save', clientnr: 1, savename: 's'.repeat(41) })).status).toBe(400);
    expect(
      (await post(sb, '/quotations', { action: 'save', clientnr: 1, quotationreference: 'r'.repeat(41) })).status,
    ).toBe(400);
    expect(
      (await post(sb, '/quotations', { action: 'save', clientnr: 1, lines: [{ amount: 'two', price: 1 }] })).text,
    ).toMatch(/line 1: amount/);
  });

  it('savename is unique: refused unless overwrite_if_exist is true, then the existing one is overwritten', async () => {
    const sb = await sandbox();
    const first = await post(sb, '/quotations', { action: 'save', clientnr: 1, savename: 'Dubbel', notes: 'one' });
    const again = await post(sb, '/quotations', { action: 'save', clientnr: 1, savename: 'Dubbel', notes: 'two' });
    expect(again.status).toBe(400);
    expect(again.text).toMatch(/savename/);
    const over = await post(sb, '/quotations', {
      action: 'save',
      clientnr: 1,
      savename: 'Dubbel',
      notes: 'three',
      overwrite_if_exist: 'true',
    });
    expect(over.status).toBe(201);
    expect(over.text).toBe(first.text);
    expect(sb.store.get('quotations', Number(first.text))!.notes).toBe('three');
    expect(sb.store.list('quotations').filter((q) => q.savename === 'Dubbel')).toHaveLength(1);
  });

  it('lines may be sent as an array, a keyed object or form-encoded', async () => {
    const sb = await sandbox();
    const keyed = await post(sb, '/quotations', {
      action: 'save',
      clientnr: 1,
      lines: { line1: { amount: '3', price: '2.5', tax_rate: '9', discount_pct: '10' } },
    });
    expect(sb.store.get('quotations', Number(keyed.text))!.lines).toEqual({
      line1: {
        amount: 3,
        amount_desc: '',
        description: '',
        tax_rate: 9,
        price: 2.5,
        discount_pct: 10,
        linetotal: 6.75,
      },
    });
    const form = await post(sb, '/quotations', undefined, {
      form: 'action=save&clientnr=1&lines[0][amount]=1&lines[0][price]=10&lines[0][description]=A&lines[0][tax_country]=true&lines[1][description]=B',
    });
    expect(form.status).toBe(201);
    expect(sb.store.get('quotations', Number(form.text))!.lines).toEqual({
      line1: { amount: 1, amount_desc: '', description: 'A', tax_rate: 21, price: 10, discount_pct: 0, linetotal: 10 },
      line2: { description: 'B' },
    });
    expect(sb.store.get('quotations', Number(form.text))!.totalintax).toBe('12.1');
  });

  it('PUT action send on a draft: 200 with a NEW id; the old id is gone; a sent one cannot be sent again', async () => {
    const sb = await sandbox();
    const d = draft(sb);
    const r = await put(sb, `/quotations/${d.id}`, { action: 'send', sendmethod: 'mail' });
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/^\d+$/);
    expect(r.text).not.toBe(d.id);
    expect((await get(sb, `/quotations/${d.id}`)).status).toBe(404);
    const q = unwrap(await get(sb, `/quotations/${r.text}`), 'quotation');
    expect(q).toMatchObject({
      id: r.text,
      sent: 'true',
      sendmethod: 'mail',
      savename: d.savename,
      totalintax: d.totalintax,
    });
    expect((await put(sb, `/quotations/${r.text}`, { action: 'send', sendmethod: 'mail' })).status).toBe(400);
    expect((await put(sb, `/quotations/${draft(sb).id}`, { action: 'send' })).text).toMatch(/sendmethod/);
  });

  it('approve a sent quotation; a draft cannot be approved; approved=false removes the approval', async () => {
    const sb = await sandbox();
    const s = sent(sb);
    const r = await put(sb, `/quotations/${s.id}`, {
      approved: { name: 'Klant', date: '2026-10-30', comments: 'Akkoord' },
    });
    expect(r.status).toBe(200);
    const approved = unwrap(await get(sb, `/quotations/${s.id}`), 'quotation').approved;
    expect(approved).toEqual({ name: 'Klant', date: '2026-10-30', ip: expect.any(String), comments: 'Akkoord' });
    expect(approved.ip).not.toBe('');
    const d = draft(sb);
    const refused = await put(sb, `/quotations/${d.id}`, { approved: { name: 'X', date: '2026-10-30', comments: '' } });
    expect(refused.status).toBe(400);
    expect(refused.type).toMatch(/^text\/plain/);
    expect(sb.store.get('quotations', Number(d.id))!.approved).toEqual(d.approved);
    for (const off of [false, 'false', 0, '0']) {
      await put(sb, `/quotations/${s.id}`, { approved: { name: 'A', date: '2026-10-01', comments: '' } });
      expect((await put(sb, `/quotations/${s.id}`, { approved: off })).status).toBe(200);
      expect(sb.store.get('quotations', Number(s.id))!.approved).toEqual([]);
    }
    expect((await put(sb, `/quotations/${s.id}`, { approved: { name: 'A', date: 'yesterday' } })).status).toBe(400);
    expect((await put(sb, `/quotations/${s.id}`, { approved: 'sure' })).status).toBe(400);
  });

  it('custom status only on sent quotations, any case; clear removes it', async () => {
    const sb = await sandbox();
    const s = sent(sb);
    for (const status of ['progress', 'Completed', 'BILLABLE', 'declined']) {
      expect((await put(sb, `/quotations/${s.id}`, { customstatus: status })).status).toBe(200);
      expect(sb.store.get('quotations', Number(s.id))!.customstatus).toBe(status.toLowerCase());
    }
    expect((await put(sb, `/quotations/${s.id}`, { customstatus: 'clear' })).status).toBe(200);
    expect(sb.store.get('quotations', Number(s.id))!.customstatus).toBe('');
    expect((await put(sb, `/quotations/${s.id}`, { customstatus: 'lost' })).status).toBe(400);
    const d = draft(sb);
    const r = await put(sb, `/quotations/${d.id}`, { customstatus: 'progress' });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/sent/);
    expect(sb.store.get('quotations', Number(d.id))!.customstatus).toBe('');
  });

  it('other fields update with totals and datedue kept consistent; DELETE in any state', async () => {
    const sb = await sandbox();
    const d = draft(sb);
    await put(sb, `/quotations/${d.id}`, {
      lines: [{ amount: 1, price: 100, tax_rate: 0 }],
      discounttype: 'amount',
      discount: '5',
      quotationperiod: 10,
      date: '2026-12-01',
    });
    expect(sb.store.get('quotations', Number(d.id))).toMatchObject({ totalintax: '95', datedue: '2026-12-11' });
    await put(sb, `/quotations/${d.id}`, { clientnr: 4 });
    expect(sb.store.get('quotations', Number(d.id))!.company).toBe(sb.store.get('clients', 4)!.company);
    for (const q of [d, sent(sb), find(sb, (x) => !Array.isArray(x.approved) && x.approved !== '')]) {
      expect((await del(sb, `/quotations/${q.id}`)).status).toBe(200);
      expect((await get(sb, `/quotations/${q.id}`)).status).toBe(404);
    }
    expect((await del(sb, '/quotations/99999')).status).toBe(404);
    expect((await put(sb, '/quotations/99999', { customstatus: 'clear' })).status).toBe(404);
  });
});
