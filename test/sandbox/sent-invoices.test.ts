/**
 * Sent invoices (service-notes.md, "Sent invoices, payments, reminders, PDFs"): the list and its
 * filters, reads by id or invoice number, payments, reminders, PDFs and deletes.
 */
import { describe, expect, it } from 'vitest';
import { call, del, get, post, sandbox, unwrap } from './helpers.js';

/** The fields the notes list for a sent invoice, in their order. */
const NOTED_FIELDS = [
  'id',
  'invoicenr_full',
  'invoicenr',
  'reference',
  'lines',
  'profile',
  'category',
  'discounttype',
  'discount',
  'paymentcondition',
  'paymentperiod',
  'collection',
  'tax',
  'totalintax',
  'clientnr',
  'company',
  'contact',
  'address',
  'zipcode',
  'city',
  'country',
  'phone',
  'mobile',
  'email',
  'taxnumber',
  'invoicenote',
  'sent',
  'uncollectible',
  'lastreminder',
  'open',
  'paiddate',
  'taxes',
  'tax_type',
  'language',
  'tax_shifted',
  'payment_url',
  'duedate',
  'history',
];

describe('sent invoices', () => {
  it('list as a bare array of the noted fields, paged with count/start', async () => {
    const sb = await sandbox({ sentInvoices: 60 });
    const all = (await get(sb, '/invoices?count=-1')).json();
    expect(all).toHaveLength(60);
    for (const invoice of all) expect(Object.keys(invoice)).toEqual(NOTED_FIELDS);
    const page = (await get(sb, '/invoices?count=25&start=50')).json();
    expect(page.map((i: any) => i.id)).toEqual(all.slice(50).map((i: any) => i.id));
    expect(all.some((i: any) => i.sent === '' && Array.isArray(i.history))).toBe(true); // legacy ones
    expect(all.some((i: any) => i.paiddate !== '' && i.open === '0')).toBe(true);
    expect(all.some((i: any) => Number(i.open) > 0)).toBe(true);
  });

  it('filters by status, sent date and client, combinable, and refuses an unknown filter', async () => {
    const sb = await sandbox({ sentInvoices: 200 });
    const all = sb.store.sentInvoices();
    const today = sb.clock.today();
    const ids = (list: any[]) => list.map((i) => i.id);
    const open = (await get(sb, '/invoices?filter=open&count=-1')).json();
    expect(ids(open)).toEqual(ids(all.filter((i) => Number(i.open) > 0 && i.uncollectible === '')));
    const overdue = (await get(sb, '/invoices?filter=overdue&count=-1')).json();
    expect(overdue.length).toBeGreaterThan(0);
    for (const i of overdue) expect(Number(i.open) > 0 && i.duedate < today).toBe(true);
    const paid = (await get(sb, '/invoices?filter=PAID&count=-1')).json();
    expect(ids(paid)).toEqual(ids(all.filter((i) => Number(i.open) === 0 && Number(i.totalintax) !== 0)));
    const since = '2026-06-01';
    const recent = (await get(sb, `/invoices?since=${since}&count=-1`)).json();
    expect(ids(recent)).toEqual(ids(all.filter((i) => i.sent !== '' && String(i.sent) >= since)));
    const window = (await get(sb, `/invoices?since=2026-01-01&until=2026-03-31&filter=paid&count=-1`)).json();
    for (const i of window) expect(i.sent >= '2026-01-01' && i.sent <= '2026-03-31' && i.open === '0').toBe(true);
    const clientnr = all.find((i) => i.clientnr !== '0')!.clientnr;
    const forClient = (await get(sb, `/invoices?client=${clientnr}&count=-1`)).json();
    expect(ids(forClient)).toEqual(ids(all.filter((i) => i.clientnr === clientnr)));
    const refused = await get(sb, '/invoices?filter=unpaid');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('filter: must be one of open, overdue');
    expect((await get(sb, '/invoices?since=yesterday')).status).toBe(400);
  });

  it('reads and deletes by id or by invoice number, "/" percent-encoded', async () => {
    const sb = await sandbox({ sentInvoices: 30 });
    const [first, second] = sb.store.sentInvoices();
    sb.store.setInvoiceWire(Number(second!.id), { invoicenr: 'F/2026/0002', invoicenr_full: 'F/2026/0002' });
    expect(unwrap(await get(sb, `/invoices/${first!.id}`), 'invoice')).toEqual(first);
    expect(unwrap(await get(sb, `/invoices/${first!.invoicenr}`), 'invoice')).toEqual(first);
    const bySlash = unwrap(await get(sb, `/invoices/${encodeURIComponent('F/2026/0002')}`), 'invoice');
    expect(bySlash.id).toBe(second!.id);
    expect((await get(sb, '/invoices/F1999')).status).toBe(404);
    expect((await del(sb, `/invoices/${encodeURIComponent('F/2026/0002')}`)).status).toBe(200);
    expect((await get(sb, `/invoices/${second!.id}`)).status).toBe(404);
    expect((await put(sb, `/invoices/${first!.id}`)).status).toBe(405); // a sent invoice has no PUT
  });

  it('payments lower what is open, a full one sets the paid date; the invoice leaves the open list', async () => {
    const sb = await sandbox({ sentInvoices: 100 });
    const invoice = sb.store
      .sentInvoices()
      .find((i) => Number(i.open) > 10 && Number(i.open) === Number(i.totalintax))!;
    const history = Object.keys(invoice.history as object).length;
    const part = await post(sb, `/invoices_payment/${invoice.invoicenr}`, {
      date: '2026-10-30',
      amount: 10,
      method: 'bank',
    });
    expect(part.status).toBe(201);
    let now = unwrap(await get(sb, `/invoices/${invoice.id}`), 'invoice');
    expect(Number(now.open)).toBeCloseTo(Number(invoice.open) - 10, 2);
    expect(now.paiddate).toBe('');
    expect(Object.keys(now.history)).toHaveLength(history + 1);
    const partly = (await get(sb, '/invoices?filter=partly&count=-1')).json();
    expect(partly.some((i: any) => i.id === invoice.id)).toBe(true);
    expect(
      (await post(sb, `/invoices_payment/${invoice.id}`, { date: '2026-10-31', amount: 'full', method: 'bank' }))
        .status,
    ).toBe(201);
    now = unwrap(await get(sb, `/invoices/${invoice.id}`), 'invoice');
    expect(now).toMatchObject({ open: '0', paiddate: '2026-10-31' });
    const open = (await get(sb, '/invoices?filter=open&count=-1')).json();
    expect(open.some((i: any) => i.id === invoice.id)).toBe(false);
    expect((await post(sb, `/invoices_payment/${invoice.id}`, { amount: 'full' })).status).toBe(400);
    expect((await post(sb, `/invoices_payment/${invoice.id}`, { amount: -5 })).status).toBe(400);
    expect((await post(sb, '/invoices_payment/999999', { amount: 1 })).status).toBe(404);
  });

  it('reminders on open invoices only; PDFs as application/pdf', async () => {
    const sb = await sandbox({ sentInvoices: 100 });
    const all = sb.store.sentInvoices();
    const open = all.find((i) => Number(i.open) > 0)!;
    const paid = all.find((i) => i.open === '0' && i.paiddate !== '')!;
    expect((await post(sb, '/invoices_reminder', { invoicenr: open.invoicenr, attach_invoice: true })).status).toBe(
      200,
    );
    expect(unwrap(await get(sb, `/invoices/${open.id}`), 'invoice').lastreminder).toBe(sb.clock.today());
    expect((await post(sb, '/invoices_reminder', { invoicenr: paid.invoicenr })).status).toBe(400);
    const pdf = await get(sb, `/invoices_pdf/${open.invoicenr}`);
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    expect(pdf.text.startsWith('%PDF-1.4')).toBe(true);
    expect(pdf.text).toContain(String(open.invoicenr));
    expect((await get(sb, '/invoices_pdf/999999')).status).toBe(404);
  });

  it('sending a saved invoice and a repeating invoice coming due each make a sent invoice, sent that day', async () => {
    const sb = await sandbox({ sentInvoices: 10, records: 200 });
    const saved = sb.store.list('saved_invoices').find((s) => s.clientnr !== '0')!;
    await post(sb, '/invoices_saved', { action: 'send', delete: true, id: [Number(saved.id)] });
    const made = sb.store.sendLog().at(-1)!;
    const invoice = unwrap(await get(sb, `/invoices/${made.invoiceId}`), 'invoice');
    expect(invoice).toMatchObject({ sent: sb.clock.today(), totalintax: saved.totalintax, clientnr: saved.clientnr });
    expect(invoice.duedate > invoice.sent).toBe(true);
    const repeating = sb.store
      .list('repeating_invoices')
      .filter((r) => r.repeattype === 'auto')
      .sort((a, b) => String(a.nextsenddate).localeCompare(String(b.nextsenddate)))[0]!;
    const before = sb.store.sentInvoices().length;
    sb.clock.set(String(repeating.nextsenddate));
    const after = sb.store.sentInvoices();
    expect(after.length).toBeGreaterThan(before);
    expect(after.some((i) => i.sent === repeating.nextsenddate && i.totalintax === repeating.totalintax)).toBe(true);
  });
});

describe('POST /invoices', () => {
  it('send makes a sent invoice at once; save a saved invoice (savename unique unless overwrite_if_exist); repeat a repeating one', async () => {
    const sb = await sandbox({ sentInvoices: 5 });
    const client = sb.store.list('clients')[0]!;
    const lines = [{ amount: 2, description: 'Advies', price: 50, tax_rate: 21 }];
    const sent = await post(sb, '/invoices', { action: 'send', sendmethod: 'email', clientnr: client.clientnr, lines });
    expect(sent.status).toBe(201);
    const invoice = unwrap(await get(sb, `/invoices/${sent.text}`), 'invoice');
    expect(invoice).toMatchObject({
      clientnr: client.clientnr,
      sent: sb.clock.today(),
      totalintax: '121',
      open: '121',
    });

    const paidAtOnce = await post(sb, '/invoices', {
      action: 'send',
      clientnr: client.clientnr,
      lines,
      alreadypaid: 'full',
    });
    expect(unwrap(await get(sb, `/invoices/${paidAtOnce.text}`), 'invoice')).toMatchObject({
      open: '0',
      paiddate: sb.clock.today(),
    });

    const saved = await post(sb, '/invoices', {
      action: 'save',
      savename: 'Concept X',
      clientnr: client.clientnr,
      lines,
    });
    expect(saved.status).toBe(201);
    expect(sb.store.get('saved_invoices', Number(saved.text))).toMatchObject({ name: 'Concept X', totalintax: '121' });
    const again = await post(sb, '/invoices', { action: 'save', savename: 'Concept X', clientnr: client.clientnr });
    expect(again.status).toBe(400);
    expect(again.text).toContain('already exists');
    const overwritten = await post(sb, '/invoices', {
      action: 'save',
      savename: 'Concept X',
      overwrite_if_exist: true,
      clientnr: client.clientnr,
      lines: [{ amount: 1, description: 'Ander', price: 10, tax_rate: 21 }],
    });
    expect(overwritten.text).toBe(saved.text);

    const repeating = await post(sb, '/invoices', {
      action: 'repeat',
      clientnr: client.clientnr,
      lines,
      initialdate: '2026-12-01',
      frequency: 'monthly',
    });
    expect(repeating.status).toBe(201);
    expect(sb.store.get('repeating_invoices', Number(repeating.text))).toMatchObject({
      initialdate: '2026-12-01',
      nextsenddate: '2026-12-01',
      frequency: 'monthly',
      repeattype: 'auto',
    });
    expect((await post(sb, '/invoices', { action: 'repeat', clientnr: client.clientnr })).status).toBe(400);
    expect((await post(sb, '/invoices', { action: 'print', clientnr: client.clientnr })).status).toBe(400);
    expect((await post(sb, '/invoices', { action: 'send', clientnr: 999999 })).status).toBe(400);
  });
});

function put(sb: Awaited<ReturnType<typeof sandbox>>, path: string) {
  return call(sb, 'PUT', path, { body: {} });
}
