/** Every operation of spec section 4 against the sandbox over real HTTP. */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError, NotFoundError, RefusedError } from '../../src/api/index.js';
import { callLines, caught, clientFor, sandbox } from './helpers.js';

describe('reads', () => {
  it('reads and unwraps single records of every entity', async () => {
    const sb = await sandbox({ records: 50 });
    const api = clientFor(sb);
    const client = await api.getClient(1);
    expect(client.clientnr).toBe(1);
    expect(client.raw).toEqual(sb.store.get('clients', 1));
    expect((await api.getProduct(2)).id).toBe(2);
    expect((await api.getQuotation(3)).id).toBe(3);
    expect((await api.getRepeatingInvoice(4)).id).toBe(4);
    const viaGeneric = await api.get('saved_invoices', 5);
    expect(viaGeneric.id).toBe(5);
    expect(Array.isArray(viaGeneric.lines)).toBe(true);
  });

  it('reads a saved invoice by an invoice number containing "/", percent-encoded', async () => {
    const sb = await sandbox({ records: 60 });
    const api = clientFor(sb);
    const named = sb.store.list('saved_invoices').find((r) => String(r.name).includes('/'))!;
    const invoice = await api.getSavedInvoice(String(named.name));
    expect(invoice.id).toBe(Number(named.id));
    expect(callLines(sb).at(-1)).toBe(`GET /invoices_saved/${encodeURIComponent(String(named.name))}`);
  });

  it('treats a list where a record was expected as not found', async () => {
    const sb = await sandbox();
    const api = clientFor(sb);
    // The sandbox, like the service, answers an odd id (0) with the whole list.
    const error = await caught(api.getClient(0));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toMatch(/^GET \/clients\/0: /);
    expect(sb.calls.at(-1)!.status).toBe(200);
  });

  it('searches (all pages) and lists countries in a language', async () => {
    const sb = await sandbox({ records: 50 });
    const api = clientFor(sb, { pageSize: 3 });
    const city = String(sb.store.get('clients', 1)!.city);
    const hits = await api.search('clients', 'city', city);
    const expected = sb.store.list('clients').filter((c) => String(c.city).toLowerCase().includes(city.toLowerCase()));
    expect(hits.map((h) => h.clientnr).sort()).toEqual(expected.map((c) => c.clientnr).sort());
    expect(await api.search('products', 'code', 'no-such-code-anywhere')).toEqual([]);
    const en = await api.countries('en');
    expect(en.length).toBeGreaterThan(200);
    expect(en.find((c) => c.id === 146)?.name).toMatch(/Netherlands/i);
    expect((await api.countries()).find((c) => c.id === 146)?.name).toBe('Nederland');
  });
});

describe('clients and products', () => {
  it('creates (id from the bare-text 201), updates and deletes a client', async () => {
    const sb = await sandbox();
    const api = clientFor(sb);
    const clientnr = await api.createClient({ company: 'Testbedrijf', city: 'Utrecht', showcontact: false });
    expect(sb.calls.at(-1)!.status).toBe(201);
    expect((await api.getClient(clientnr)).company).toBe('Testbedrijf');
    await api.updateClient(clientnr, { city: 'Delft', active: false });
    const updated = await api.getClient(clientnr);
    expect([updated.city, updated.active]).toEqual(['Delft', false]);
    await api.deleteClient(clientnr);
    expect(await caught(api.getClient(clientnr))).toBeInstanceOf(NotFoundError);
  });

  it('refuses to delete a client with documents (403 with the service text)', async () => {
    const sb = await sandbox({ records: 50 });
    const api = clientFor(sb);
    const clientnr = Number(sb.store.list('saved_invoices')[0]!.clientnr);
    const error = await caught(api.deleteClient(clientnr));
    expect(error).toBeInstanceOf(RefusedError);
    expect((error as RefusedError).status).toBe(403);
    expect(error.message).toContain(`DELETE /clients/${clientnr}: 403`);
    expect(error.message).toContain('has documents');
  });

  it('creates a product, sets its stock, updates and deletes it', async () => {
    const sb = await sandbox();
    const api = clientFor(sb);
    const id = await api.createProduct({ code: 'T-1', name: 'Test', price: 10, taxes: 21 });
    expect((await api.getProduct(id)).stock).toBeNull();
    await api.updateProduct(id, { stock_use: true });
    await api.setProductStock(id, 12);
    const p = await api.getProduct(id);
    expect([p.stock, p.stock_use, p.price]).toEqual([12, true, 10]);
    await api.deleteProduct(id);
    expect(await caught(api.getProduct(id))).toBeInstanceOf(NotFoundError);
  });

  it('reports the service text of an invalid request', async () => {
    const sb = await sandbox();
    const api = clientFor(sb);
    const error = await caught(api.createProduct({ code: 'X', price: 1 }));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toBe('POST /products: 400 Invalid request: name is required');
  });
});

describe('quotations', () => {
  it('saves a draft, sends it (new id), approves, removes approval, sets a status, deletes', async () => {
    const sb = await sandbox();
    const api = clientFor(sb);
    const draftId = await api.createQuotation({
      action: 'save',
      clientnr: 1,
      savename: 'api-test',
      lines: [{ amount: 1, price: 5, description: 'x', tax_rate: 21 }],
    });
    const draft = await api.getQuotation(draftId);
    expect([draft.sent, draft.approved, draft.lines.length]).toEqual([false, null, 1]);
    const refused = await caught(api.approveQuotation(draftId, { name: 'Jan', date: '2026-11-01', comments: '' }));
    expect(refused).toBeInstanceOf(InvalidRequestError);

    const sentId = await api.sendQuotation(draftId, 'email');
    expect(sentId).not.toBe(draftId);
    await api.approveQuotation(sentId, { name: 'Jan', date: '2026-11-02', comments: 'akkoord' });
    expect((await api.getQuotation(sentId)).approved).toMatchObject({
      name: 'Jan',
      date: '2026-11-02',
      comments: 'akkoord',
    });
    await api.removeQuotationApproval(sentId);
    expect((await api.getQuotation(sentId)).approved).toBeNull();
    await api.setQuotationStatus(sentId, 'billable');
    expect((await api.getQuotation(sentId)).customstatus).toBe('billable');
    await api.deleteQuotation(sentId);
    expect(await caught(api.getQuotation(sentId))).toBeInstanceOf(NotFoundError);
  });
});

describe('saved and repeating invoices', () => {
  it('sends any number of saved invoices in calls of at most 10, one after another', async () => {
    const sb = await sandbox({ perEntity: { saved_invoices: 25 }, sendMsPerInvoice: 2 });
    const api = clientFor(sb, { sendMsPerInvoice: 2 });
    const ids = sb.store.list('saved_invoices').map((r) => Number(r.id));
    const batches: { ids: number[]; ok: boolean }[] = [];
    const results = await api.sendSavedInvoices(ids, { delete: true, onBatch: (b) => batches.push(b) });
    expect(results.map((r) => r.ids.length)).toEqual([10, 10, 5]);
    expect(batches.every((b) => b.ok)).toBe(true);
    const posts = sb.calls.filter((c) => c.method === 'POST');
    expect(posts.map((c) => JSON.parse(c.body!).id.length)).toEqual([10, 10, 5]);
    expect(JSON.parse(posts[0]!.body!)).toMatchObject({ action: 'send', delete: true });
    expect(sb.store.list('saved_invoices')).toHaveLength(0);
    expect(sb.maxConcurrency()).toBe(1);
  });

  it('deletes saved invoices by id and by name, and repeating invoices', async () => {
    const sb = await sandbox({ records: 60 });
    const api = clientFor(sb);
    const named = sb.store.list('saved_invoices').find((r) => String(r.name).includes('/'))!;
    await api.deleteSavedInvoice(String(named.name));
    expect(sb.store.get('saved_invoices', Number(named.id))).toBeUndefined();
    const other = Number(sb.store.list('saved_invoices')[0]!.id);
    await api.deleteSavedInvoice(other);
    expect(sb.store.get('saved_invoices', other)).toBeUndefined();
    const rep = Number(sb.store.list('repeating_invoices')[0]!.id);
    await api.deleteRepeatingInvoice(rep);
    expect(sb.store.get('repeating_invoices', rep)).toBeUndefined();
    expect(await caught(api.deleteRepeatingInvoice(rep))).toBeInstanceOf(NotFoundError);
  });
});
