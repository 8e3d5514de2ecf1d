/** Saved and repeating invoices: reads, deletes, the send operation and repeating invoices over time. */
import { describe, expect, it } from 'vitest';
import { del, get, post, sandbox, unwrap } from './helpers.js';

describe('saved invoices', () => {
  it('GET by id or by invoice number (percent-encoded "/"), DELETE by either', async () => {
    const sb = await sandbox();
    const withSlash = sb.store.list('saved_invoices').find((s) => String(s.name).includes('/'))!;
    const byName = await get(sb, `/invoices_saved/${encodeURIComponent(String(withSlash.name))}`);
    expect(byName.status).toBe(200);
    expect(unwrap(byName, 'invoice')).toEqual(withSlash);
    expect(unwrap(await get(sb, `/invoices_saved/${withSlash.id}`), 'invoice')).toEqual(withSlash);
    expect((await del(sb, `/invoices_saved/${encodeURIComponent(String(withSlash.name))}`)).status).toBe(200);
    expect((await get(sb, `/invoices_saved/${withSlash.id}`)).status).toBe(404);
    const other = sb.store.list('saved_invoices')[0]!;
    expect((await del(sb, `/invoices_saved/${other.id}`)).status).toBe(200);
    expect((await del(sb, `/invoices_saved/${other.id}`)).status).toBe(404);
    expect((await get(sb, '/invoices_saved/%E0%A4%A')).status).toBe(400);
  });

  it('send via /invoices_saved/ and /saved_invoices/: 200, ~sendMsPerInvoice per invoice, becomes a sent invoice', async () => {
    const sb = await sandbox({ sendMsPerInvoice: 60 });
    const [a, b, c] = sb.store.list('saved_invoices').filter((s) => s.clientnr !== '0');
    const t0 = performance.now();
    const r = await post(sb, '/invoices_saved/', { action: 'send', delete: false, id: [Number(a!.id), Number(b!.id)] });
    const took = performance.now() - t0;
    expect(r.status).toBe(200);
    expect(took).toBeGreaterThanOrEqual(115);
    expect(sb.store.get('saved_invoices', Number(a!.id))).toBeDefined(); // delete: false keeps it
    const made = sb.store.sendLog().filter((e) => e.savedId === Number(a!.id) || e.savedId === Number(b!.id));
    const mine = sb.store.sentInvoices().filter((i) => made.some((e) => String(e.invoiceId) === i.id));
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatchObject({
      totalintax: a!.totalintax,
      clientnr: a!.clientnr,
      sent: '2026-11-01',
      open: a!.alreadypaid === '0' ? a!.totalintax : expect.any(String),
    });
    expect(sb.store.get('clients', Number(a!.clientnr))!.lastinvoice).toBe('2026-11-01');
    const r2 = await post(sb, '/saved_invoices/', { action: 'send', delete: true, id: [c!.id] });
    expect(r2.status).toBe(200);
    expect(sb.store.get('saved_invoices', Number(c!.id))).toBeUndefined();
    expect((await get(sb, `/invoices_saved/${c!.id}`)).status).toBe(404);
    const call = sb.calls.filter((x) => x.method === 'POST').at(-1)!;
    expect(call.path).toBe('/api/v1/saved_invoices/');
    expect(call.endedAt - call.startedAt).toBeGreaterThanOrEqual(55);
    expect(JSON.parse(call.body!)).toEqual({ action: 'send', delete: true, id: [c!.id] });
  });

  it('the send time scales with the knob', async () => {
    const sb = await sandbox({ sendMsPerInvoice: 0 });
    const ids = sb.store
      .list('saved_invoices')
      .slice(0, 10)
      .map((s) => Number(s.id));
    let t0 = performance.now();
    await post(sb, '/invoices_saved', { action: 'send', delete: false, id: ids });
    expect(performance.now() - t0).toBeLessThan(500);
    sb.knobs.sendMsPerInvoice = 30;
    t0 = performance.now();
    await post(sb, '/invoices_saved', { action: 'send', delete: false, id: ids.slice(0, 3) });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(85);
  });

  it('at most 10 ids per call (400); an unknown id is 404 and nothing is sent; bad bodies are 400', async () => {
    const sb = await sandbox({ perEntity: { saved_invoices: 20 } });
    const ids = sb.store.list('saved_invoices').map((s) => Number(s.id));
    const before = sb.store.sentInvoices().length;
    const tooMany = await post(sb, '/invoices_saved', { action: 'send', delete: true, id: ids.slice(0, 11) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.text).toMatch(/10/);
    const unknown = await post(sb, '/invoices_saved', { action: 'send', delete: true, id: [ids[0], 99999] });
    expect(unknown.status).toBe(404);
    expect(unknown.type).toMatch(/^text\/plain/);
    expect(sb.store.sentInvoices()).toHaveLength(before);
    expect(sb.store.list('saved_invoices')).toHaveLength(20);
    expect((await post(sb, '/invoices_saved', { action: 'delete', delete: true, id: [ids[0]] })).status).toBe(400);
    expect((await post(sb, '/invoices_saved', { action: 'send', delete: true, id: [] })).status).toBe(400);
    expect((await post(sb, '/invoices_saved', { action: 'send', delete: 'maybe', id: [ids[0]] })).status).toBe(400);
    expect((await post(sb, '/invoices_saved', { action: 'send', delete: true })).status).toBe(400);
    expect(sb.store.sentInvoices()).toHaveLength(before);
    // Exactly 10 is fine; form-encoded id[] works too.
    expect((await post(sb, '/invoices_saved', { action: 'send', delete: '1', id: ids.slice(0, 10) })).status).toBe(200);
    expect(sb.store.list('saved_invoices')).toHaveLength(10);
    const form = await post(sb, '/invoices_saved', undefined, {
      form: `action=send&delete=1&id[]=${ids[10]}&id[]=${ids[11]}`,
    });
    expect(form.status).toBe(200);
    expect(sb.store.list('saved_invoices')).toHaveLength(8);
    expect(sb.store.sentInvoices()).toHaveLength(before + 12);
  });

  it('sent invoices are searchable in area invoices', async () => {
    const sb = await sandbox();
    const s = sb.store.list('saved_invoices').find((x) => x.clientnr !== '0' && x.totalintax !== '0')!;
    await post(sb, '/invoices_saved', { action: 'send', delete: true, id: [s.id] });
    const made = sb.store.sendLog().find((e) => e.savedId === Number(s.id))!;
    const inv = sb.store.sentInvoices().find((i) => i.id === String(made.invoiceId))!;
    const hits = (await get(sb, `/search/invoices/invoicenr/${encodeURIComponent(String(inv.invoicenr))}`)).json();
    expect(hits.map((h: any) => h.id)).toEqual([inv.id]);
    const byTotal = (await get(sb, `/search/invoices/totalintax/${s.totalintax}`)).json();
    expect(byTotal.some((h: any) => h.id === inv.id)).toBe(true);
  });
});

describe('repeating invoices', () => {
  it('list, get (wrapped as invoice), delete', async () => {
    const sb = await sandbox();
    const list = (await get(sb, '/invoices_repeated')).json();
    expect(list).toHaveLength(20);
    for (const r of list) {
      expect([
        'weekly',
        'biweekly',
        'fourweekly',
        'monthly',
        'bimonthly',
        'quarterly',
        'halfyearly',
        'yearly',
      ]).toContain(r.frequency);
      expect(['auto', 'manual']).toContain(r.repeattype);
      // Past only for one sent by hand that waits for someone; otherwise the service has moved it on.
      if (r.repeattype === 'auto') expect(r.nextsenddate > '2026-11-01').toBe(true);
      if (r.finalsenddate !== '') expect(r.finalsenddate >= r.nextsenddate).toBe(true);
    }
    expect(list.some((r: any) => r.repeattype === 'manual' && r.nextsenddate < '2026-11-01')).toBe(true);
    const one = list[0];
    expect(unwrap(await get(sb, `/invoices_repeated/${one.id}`), 'invoice')).toEqual(one);
    expect((await del(sb, `/invoices_repeated/${one.id}`)).status).toBe(200);
    expect((await get(sb, `/invoices_repeated/${one.id}`)).status).toBe(404);
    expect((await post(sb, '/invoices_repeated', { name: 'x' })).status).toBe(405);
  });

  it('disappear once the sandbox clock passes their final send date; next send dates move on', async () => {
    const sb = await sandbox({ records: 300 });
    const list = sb.store.list('repeating_invoices');
    const ending = list
      .filter((r) => r.finalsenddate !== '')
      .sort((a, b) => String(a.finalsenddate).localeCompare(String(b.finalsenddate)))[0]!;
    const open = list.find((r) => r.finalsenddate === '' && r.repeattype === 'auto')!;
    const sentBefore = sb.store.sentInvoices().length;
    sb.clock.set(String(ending.finalsenddate));
    expect(sb.clock.today()).toBe(ending.finalsenddate);
    expect((await get(sb, `/invoices_repeated/${ending.id}`)).status).toBe(200); // on the date itself: still there
    sb.clock.advanceDays(1);
    expect((await get(sb, `/invoices_repeated/${ending.id}`)).status).toBe(404);
    expect((await get(sb, '/invoices_repeated?count=-1')).json().some((r: any) => r.id === ending.id)).toBe(false);
    const moved = unwrap(await get(sb, `/invoices_repeated/${open.id}`), 'invoice');
    expect(moved.nextsenddate > sb.clock.today()).toBe(true);
    expect(sb.store.sentInvoices().length).toBeGreaterThan(sentBefore);
    sb.clock.advanceDays(3650);
    expect(sb.store.list('repeating_invoices').every((r) => r.finalsenddate === '')).toBe(true);
  });
});
