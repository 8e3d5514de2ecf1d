/**
 * Every job kind against the sandbox: the call it makes, what the service then holds, and the
 * mirror updated through a `refresh` run with its `changes` rows.
 */
import { describe, expect, it } from 'vitest';
import { insertJob, jobRow, mirrorRow, useJobsEnv, writeCalls } from './helpers.js';

const env = useJobsEnv();

async function runJob(kind: string, payload: unknown) {
  const handle = env.database.current.handle;
  const id = await insertJob(handle, kind, payload);
  env.box.sandbox.clearCalls();
  const outcome = await env.runner().runUntilEmpty();
  expect(outcome).toEqual({ ran: 1, failed: 0 });
  const job = await jobRow(handle, id);
  expect(job.status, String(job.last_error)).toBe('succeeded');
  expect(job.attempts).toBe(1);
  return { job, result: job.result as Record<string, any> };
}

/** The `changes` rows the job's refresh run wrote. */
async function changesOf(result: Record<string, any>) {
  const { db } = env.database.current.handle;
  const run = await db
    .selectFrom('sync_runs')
    .selectAll()
    .where('id', '=', result.refresh.run_id)
    .executeTakeFirstOrThrow();
  expect(run.kind).toBe('refresh');
  expect(run.status).toBe('succeeded');
  return db
    .selectFrom('changes')
    .select(['entity', 'entity_id', 'op', 'changed_fields'])
    .where('sync_run_id', '=', run.id)
    .orderBy('id')
    .execute();
}

describe('saved and repeating invoices', () => {
  it('send_saved_invoices sends 25 ids in calls of 10, 10 and 5, records each call, and marks them deleted in the mirror', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => i + 1);
    const sentBefore = env.box.sandbox.store.sentInvoices().length;
    const { result } = await runJob('send_saved_invoices', { ids, delete: true });

    const posts = writeCalls(env.box.sandbox);
    expect(posts.map((c) => `${c.method} ${c.path}`)).toEqual(Array(3).fill('POST /api/v1/invoices_saved'));
    expect(posts.map((c) => (JSON.parse(c.body!) as { id: number[] }).id)).toEqual([
      ids.slice(0, 10),
      ids.slice(10, 20),
      ids.slice(20),
    ]);
    expect(posts.every((c) => JSON.parse(c.body!).delete === true)).toBe(true);
    expect(env.box.sandbox.maxConcurrency()).toBe(1);
    expect(env.box.sandbox.store.sentInvoices().length).toBe(sentBefore + 25);

    expect(result.sent).toEqual(ids);
    expect(result.batches.map((b: { ids: number[]; outcome: string }) => [b.ids.length, b.outcome])).toEqual([
      [10, 'sent'],
      [10, 'sent'],
      [5, 'sent'],
    ]);
    for (const id of ids) {
      expect(env.box.sandbox.store.get('saved_invoices', id)).toBeUndefined();
      expect((await mirrorRow(env.database.current.handle, 'saved_invoices', id))!.deleted_at).not.toBeNull();
    }
    const changes = await changesOf(result);
    expect(
      changes.filter((c) => c.entity === 'saved_invoices' && c.op === 'delete').map((c) => Number(c.entity_id)),
    ).toEqual(ids);
  });

  it('send_saved_invoices without delete keeps the saved invoices', async () => {
    const { result } = await runJob('send_saved_invoices', { ids: [30, 31], delete: false });
    expect(result.sent).toEqual([30, 31]);
    // The sent invoices are in the mirror at once, and the result names them.
    const made = env.box.sandbox.store
      .sendLog()
      .filter((entry) => entry.savedId === 30 || entry.savedId === 31)
      .map((entry) => entry.invoiceId);
    expect(made).toHaveLength(2);
    expect(result.invoices).toEqual([...made].sort((a, b) => a - b));
    for (const invoice of made)
      expect(await mirrorRow(env.database.current.handle, 'invoices', invoice)).toMatchObject({ deleted_at: null });
    expect(env.box.sandbox.store.get('saved_invoices', 30)).toBeDefined();
    expect((await mirrorRow(env.database.current.handle, 'saved_invoices', 30))!.deleted_at).toBeNull();
  });

  it('delete_saved_invoice and delete_repeating_invoice', async () => {
    await runJob('delete_saved_invoice', { id: 40 });
    expect(writeCalls(env.box.sandbox).map((c) => `${c.method} ${c.path}`)).toEqual([
      'DELETE /api/v1/invoices_saved/40',
    ]);
    expect((await mirrorRow(env.database.current.handle, 'saved_invoices', 40))!.deleted_at).not.toBeNull();

    await runJob('delete_repeating_invoice', { id: 2 });
    expect(writeCalls(env.box.sandbox).map((c) => `${c.method} ${c.path}`)).toEqual([
      'DELETE /api/v1/invoices_repeated/2',
    ]);
    expect(env.box.sandbox.store.get('repeating_invoices', 2)).toBeUndefined();
    expect((await mirrorRow(env.database.current.handle, 'repeating_invoices', 2))!.deleted_at).not.toBeNull();
  });
});

describe('clients', () => {
  it('create_client: the new client appears in the mirror, with an insert change', async () => {
    const { result } = await runJob('create_client', {
      client: {
        company: 'Jobs Test BV',
        city: 'Utrecht',
        email: 'jobs@example.test',
        reference: { line1: 'via jobs' },
      },
    });
    expect(result.clientnr).toBeGreaterThan(20);
    const row = await mirrorRow(env.database.current.handle, 'clients', result.clientnr);
    expect(row).toMatchObject({
      company: 'Jobs Test BV',
      city: 'Utrecht',
      reference_line1: 'via jobs',
      deleted_at: null,
    });
    expect(await changesOf(result)).toEqual([
      { entity: 'clients', entity_id: String(result.clientnr), op: 'insert', changed_fields: null },
    ]);
  });

  it('update_client changes only the named fields', async () => {
    const { result } = await runJob('update_client', { clientnr: 16, changes: { city: 'Delft', active: false } });
    expect(JSON.parse(writeCalls(env.box.sandbox)[0]!.body!)).toEqual({ city: 'Delft', active: false });
    expect(await mirrorRow(env.database.current.handle, 'clients', 16)).toMatchObject({ city: 'Delft', active: false });
    const [change] = await changesOf(result);
    expect(change).toMatchObject({ entity: 'clients', op: 'update' });
    expect(change!.changed_fields).toEqual(expect.arrayContaining(['city', 'active']));
  });

  it('delete_client of a client without documents', async () => {
    await runJob('delete_client', { clientnr: 17 });
    expect(env.box.sandbox.store.get('clients', 17)).toBeUndefined();
    expect((await mirrorRow(env.database.current.handle, 'clients', 17))!.deleted_at).not.toBeNull();
  });
});

describe('products', () => {
  it('create_product, update_product, set_product_stock, delete_product', async () => {
    const created = await runJob('create_product', {
      product: { code: 'JOB-1', name: 'Made by a job', price: 12.5, taxes: 21 },
    });
    const productId = created.result.id as number;
    expect(await mirrorRow(env.database.current.handle, 'products', productId)).toMatchObject({
      code: 'JOB-1',
      name: 'Made by a job',
      price: '12.5',
    });

    await runJob('update_product', { id: productId, changes: { name: 'Renamed by a job', stock_use: true, stock: 3 } });
    expect(await mirrorRow(env.database.current.handle, 'products', productId)).toMatchObject({
      name: 'Renamed by a job',
      stock_use: true,
      stock: '3',
    });

    await runJob('set_product_stock', { id: 1, stock: 12.5 });
    expect(JSON.parse(writeCalls(env.box.sandbox)[0]!.body!)).toEqual({ stock: 12.5 });
    expect(await mirrorRow(env.database.current.handle, 'products', 1)).toMatchObject({ stock: '12.5' });

    await runJob('delete_product', { id: productId });
    expect(env.box.sandbox.store.get('products', productId)).toBeUndefined();
    expect((await mirrorRow(env.database.current.handle, 'products', productId))!.deleted_at).not.toBeNull();
  });
});

describe('quotations', () => {
  it('create_quotation saves a draft', async () => {
    const { result } = await runJob('create_quotation', {
      quotation: {
        action: 'save',
        clientnr: 2,
        savename: 'made-by-a-job',
        lines: [{ amount: 2, description: 'Advies', price: 100, tax_rate: 21 }, { description: 'text line' }],
      },
    });
    expect(result).toMatchObject({ sent: false });
    expect(await mirrorRow(env.database.current.handle, 'quotations', result.id)).toMatchObject({
      savename: 'made-by-a-job',
      sent: false,
      clientnr: 2,
    });
  });

  it('create_quotation with action send creates a sent quotation', async () => {
    const { result } = await runJob('create_quotation', {
      quotation: { action: 'send', sendmethod: 'email', clientnr: 3 },
    });
    expect(await mirrorRow(env.database.current.handle, 'quotations', result.id)).toMatchObject({
      sent: true,
      sendmethod: 'email',
    });
  });

  it('send_quotation: the draft gets a new id; the mirror shows the draft gone and the sent quotation present', async () => {
    const { result } = await runJob('send_quotation', { id: 1, sendmethod: 'email' });
    expect(result.id).toBe(1);
    expect(result.new_id).toBeGreaterThan(20);
    expect(env.box.sandbox.store.get('quotations', 1)).toBeUndefined();
    expect((await mirrorRow(env.database.current.handle, 'quotations', 1))!.deleted_at).not.toBeNull();
    expect(await mirrorRow(env.database.current.handle, 'quotations', result.new_id)).toMatchObject({
      sent: true,
      deleted_at: null,
    });
    const changes = await changesOf(result);
    expect(changes.map((c) => `${c.op} ${c.entity_id}`)).toEqual(['delete 1', `insert ${result.new_id}`]);
  });

  it('approve_quotation, remove_quotation_approval, set_quotation_status, delete_quotation', async () => {
    const handle = env.database.current.handle;
    await runJob('approve_quotation', { id: 2, name: 'J. Jansen', date: '2026-10-30', comments: 'akkoord' });
    expect((await mirrorRow(handle, 'quotations', 2))!.approved).toMatchObject({
      name: 'J. Jansen',
      date: '2026-10-30',
      comments: 'akkoord',
    });

    await runJob('remove_quotation_approval', { id: 3 });
    expect(JSON.parse(writeCalls(env.box.sandbox)[0]!.body!)).toEqual({ approved: false });
    expect((await mirrorRow(handle, 'quotations', 3))!.approved).toBeNull();

    await runJob('set_quotation_status', { id: 4, customstatus: 'billable' });
    expect((await mirrorRow(handle, 'quotations', 4))!.customstatus).toBe('billable');

    await runJob('delete_quotation', { id: 5 });
    expect((await mirrorRow(handle, 'quotations', 5))!.deleted_at).not.toBeNull();
  });
});

describe('sent invoices', () => {
  it('create_invoice: send, save and repeat; each new record is in the mirror afterwards', async () => {
    const lines = [{ amount: 3, description: 'Uren', price: 80, tax_rate: 21 }];
    const sent = await runJob('create_invoice', {
      invoice: { action: 'send', clientnr: 1, sendmethod: 'email', lines },
    });
    expect(sent.result).toMatchObject({ action: 'send', id: expect.any(Number) });
    expect(await mirrorRow(env.database.current.handle, 'invoices', sent.result.id)).toMatchObject({
      clientnr: 1,
      totalintax: '290.4',
      open: '290.4',
    });
    const saved = await runJob('create_invoice', {
      invoice: { action: 'save', savename: 'Job concept', clientnr: 1, lines },
    });
    expect(await mirrorRow(env.database.current.handle, 'saved_invoices', saved.result.id)).toMatchObject({
      name: 'Job concept',
    });
    const repeating = await runJob('create_invoice', {
      invoice: { action: 'repeat', clientnr: 1, lines, initialdate: '2027-01-01', frequency: 'quarterly' },
    });
    expect(await mirrorRow(env.database.current.handle, 'repeating_invoices', repeating.result.id)).toMatchObject({
      frequency: 'quarterly',
      nextsenddate: '2027-01-01',
    });
  });

  const openInvoice = (exclude: string[] = []) =>
    env.box.sandbox.store
      .sentInvoices()
      .find((i) => Number(i.open) > 20 && i.uncollectible === '' && !exclude.includes(String(i.id)))!;

  it('register_payment: a part, then the rest ("full"); the mirror shows what is open and the paid date', async () => {
    const invoice = openInvoice();
    const id = Number(invoice.id);
    const part = await runJob('register_payment', { id, amount: 10, date: '2026-10-30', method: 'bank' });
    expect(part.result).toMatchObject({ id, amount: 10, date: '2026-10-30' });
    expect(JSON.parse(writeCalls(env.box.sandbox)[0]!.body!)).toEqual({
      amount: 10,
      date: '2026-10-30',
      method: 'bank',
    });
    expect(writeCalls(env.box.sandbox)[0]!.path).toBe(`/api/v1/invoices_payment/${id}`);
    const afterPart = await mirrorRow(env.database.current.handle, 'invoices', id);
    expect(Number(afterPart!.open)).toBeCloseTo(Number(invoice.open) - 10, 2);
    expect(await changesOf(part.result)).toEqual([
      {
        entity: 'invoices',
        entity_id: String(id),
        op: 'update',
        changed_fields: expect.arrayContaining(['open', 'history']),
      },
    ]);

    await runJob('register_payment', { id, amount: 'full', date: '2026-10-31' });
    expect(await mirrorRow(env.database.current.handle, 'invoices', id)).toMatchObject({
      open: '0',
      paiddate: '2026-10-31',
    });
  });

  it('register_payment and send_reminder refuse an invoice the mirror shows as paid, and call nothing', async () => {
    const paid = env.box.sandbox.store.sentInvoices().find((i) => i.open === '0' && i.paiddate !== '')!;
    for (const [kind, payload] of [
      ['register_payment', { id: Number(paid.id), amount: 5, date: '2026-10-30' }],
      ['send_reminder', { id: Number(paid.id) }],
    ] as const) {
      const handle = env.database.current.handle;
      const jobId = await insertJob(handle, kind, payload);
      env.box.sandbox.clearCalls();
      await env.runner().runUntilEmpty();
      const job = await jobRow(handle, jobId);
      expect(job.status).toBe('failed');
      expect(job.last_error).toContain(`invoice ${paid.id} has nothing open`);
      expect(env.box.sandbox.calls).toHaveLength(0);
    }
  });

  it('register_payment and send_reminder refuse an invoice written off as uncollectible, and call nothing', async () => {
    const handle = env.database.current.handle;
    const writtenOff = openInvoice();
    const id = Number(writtenOff.id);
    env.box.sandbox.store.setInvoiceWire(id, { uncollectible: '2026-10-01' });
    const synced = await env.sync();
    expect(synced.status).toBe('succeeded');
    expect(await mirrorRow(handle, 'invoices', id)).toMatchObject({ uncollectible: '2026-10-01' });
    for (const [kind, payload, what] of [
      ['register_payment', { id, amount: 5, date: '2026-10-30' }, 'register a payment'],
      ['send_reminder', { id }, 'get a reminder'],
    ] as const) {
      const jobId = await insertJob(handle, kind, payload);
      env.box.sandbox.clearCalls();
      await env.runner().runUntilEmpty();
      const job = await jobRow(handle, jobId);
      expect(job.status).toBe('failed');
      expect(job.last_error).toBe(
        `invoice ${id} is written off as uncollectible (2026-10-01); only an open invoice can ${what}`,
      );
      expect(env.box.sandbox.calls).toHaveLength(0);
    }
  });

  it('send_reminder names the invoice by its number; delete_invoice removes it and the mirror marks it deleted', async () => {
    const invoice = openInvoice();
    const id = Number(invoice.id);
    const reminded = await runJob('send_reminder', { id, attach_invoice: false });
    expect(reminded.result).toEqual(expect.objectContaining({ id, invoicenr: invoice.invoicenr }));
    expect(JSON.parse(writeCalls(env.box.sandbox)[0]!.body!)).toEqual({
      invoicenr: invoice.invoicenr,
      attach_invoice: false,
    });
    expect((await mirrorRow(env.database.current.handle, 'invoices', id))!.lastreminder).toBe(
      env.box.sandbox.clock.today(),
    );

    await runJob('delete_invoice', { id });
    expect(env.box.sandbox.store.sentInvoices().some((i) => i.id === String(id))).toBe(false);
    expect((await mirrorRow(env.database.current.handle, 'invoices', id))!.deleted_at).not.toBeNull();
  });
});
