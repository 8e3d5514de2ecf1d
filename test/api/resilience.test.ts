/** Retries of requests that are safe to repeat; none of sends and creates. */
import { describe, expect, it } from 'vitest';
import { UnknownOutcomeError } from '../../src/api/index.js';
import { callLines, caught, clientFor, sandbox } from './helpers.js';

describe('retries', () => {
  it('GETs go through 500s, dropped connections, a hang (deadline) and malformed JSON', async () => {
    const sb = await sandbox({ hangMs: 5_000 });
    const api = clientFor(sb, { timeoutMs: 250, maxRetries: 4 });
    sb.failNext('500', 2);
    expect((await api.getClient(1)).clientnr).toBe(1);
    expect(sb.calls.map((c) => c.status)).toEqual([500, 500, 200]);

    sb.clearCalls();
    sb.failNext('drop', 2);
    expect((await api.getProduct(1)).id).toBe(1);
    expect(sb.calls.map((c) => c.fault ?? c.status)).toEqual(['drop', 'drop', 200]);

    sb.clearCalls();
    sb.failNext('hang', 1);
    const started = Date.now();
    expect((await api.getQuotation(1)).id).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(sb.calls.map((c) => c.fault ?? c.status)).toEqual(['hang', 200]);

    sb.clearCalls();
    sb.failNext('malformed', 1);
    const pages = [];
    for await (const page of api.list('products', { pageSize: 5 })) pages.push(page.received);
    expect(sb.calls[0]!.fault).toBe('malformed');
    expect(pages.reduce((a, b) => a + b, 0)).toBe(sb.store.list('products').length);
    expect(api.requestsMade).toBe(3 + 3 + 2 + sb.calls.length);
  });

  it('a full pull completes through random 500s, drops and malformed answers', async () => {
    const sb = await sandbox({ records: 1000, seed: 3, failureRate: 0.25, failureKinds: ['500', 'drop', 'malformed'] });
    const api = clientFor(sb, { pageSize: 20, maxRetries: 8, retryBaseMs: 1 });
    for (const entity of ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'] as const) {
      const stream = api.list(entity);
      let n = 0;
      for await (const page of stream) n += page.records.length;
      expect(stream.complete).toBe(true);
      expect(n).toBe(sb.store.list(entity).length);
    }
    expect(sb.calls.filter((c) => c.fault).length).toBeGreaterThan(5); // deterministic per seed
    expect(sb.maxConcurrency()).toBe(1);
  });

  it('PUT of fields and DELETE are retried; a DELETE that landed before its answer was lost counts as done', async () => {
    const sb = await sandbox({ records: 50, hangMs: 5_000 });
    const api = clientFor(sb, { timeoutMs: 200 });
    sb.failNext('500', 1, { method: 'PUT' });
    await api.updateProduct(2, { notes: 'retried' });
    expect(sb.store.get('products', 2)!.notes).toBe('retried');

    // The first DELETE hangs; meanwhile the record disappears (as if the lost attempt had deleted it).
    const id = Number(sb.store.list('repeating_invoices')[0]!.id);
    sb.failNext('hang', 1, { method: 'DELETE' });
    const pending = api.deleteRepeatingInvoice(id);
    await new Promise((r) => setTimeout(r, 50));
    sb.store.delete('repeating_invoices', id);
    await pending;
    expect(sb.calls.filter((c) => c.method === 'DELETE').map((c) => c.fault ?? c.status)).toEqual(['hang', 404]);
  });

  it('never retries a send, whatever the failure', async () => {
    const sb = await sandbox({ perEntity: { saved_invoices: 15 }, sendMsPerInvoice: 1 });
    const api = clientFor(sb, { sendMsPerInvoice: 1 });
    const ids = sb.store.list('saved_invoices').map((r) => Number(r.id));
    sb.failNext('500', 1, { method: 'POST' });
    const batches: { ids: number[]; ok: boolean; error?: string }[] = [];
    const error = await caught(api.sendSavedInvoices(ids, { delete: false, onBatch: (b) => batches.push(b) }));
    expect(error).toBeInstanceOf(UnknownOutcomeError);
    expect(callLines(sb)).toEqual(['POST /invoices_saved']);
    expect(batches).toEqual([{ ids: ids.slice(0, 10), ok: false, error: error.message }]);

    // The second call is dropped after the first went through: the first is reported, the rest not sent.
    sb.clearCalls();
    batches.length = 0;
    const dropped = await caught(
      api.sendSavedInvoices(ids, {
        delete: false,
        onBatch: (b) => {
          batches.push(b);
          if (b.ok) sb.failNext('drop', 1, { method: 'POST' });
        },
      }),
    );
    expect(dropped).toBeInstanceOf(UnknownOutcomeError);
    expect(batches.map((b) => [b.ids.length, b.ok])).toEqual([
      [10, true],
      [5, false],
    ]);
    expect(sb.calls.map((c) => c.fault ?? c.status)).toEqual([200, 'drop']);
  });
});
