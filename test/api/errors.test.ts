/** Each typed error, provoked through the sandbox over real HTTP. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  RefusedError,
  ServerError,
  UnknownOutcomeError,
} from '../../src/api/index.js';
import { caught, clientFor, sandbox } from './helpers.js';

describe('typed errors', () => {
  it('AuthenticationError on 401, with no credential in the message', async () => {
    const sb = await sandbox();
    const api = clientFor(sb, { apiKey: 'wrong-secret-key-1234' });
    const error = await caught(api.getClient(1));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect((error as ApiError).retryable).toBe(false);
    expect(error.message).toMatch(/^GET \/clients\/1: 401 /);
    expect(error.message).not.toContain('wrong-secret-key-1234');
    expect(error.message).not.toContain(Buffer.from(`${sb.user}:wrong-secret-key-1234`).toString('base64'));
    expect(sb.calls).toHaveLength(1); // never retried
  });

  it('NotFoundError on 404', async () => {
    const sb = await sandbox();
    const api = clientFor(sb);
    const error = await caught(api.getProduct(99_999));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe('GET /products/99999: 404 Not found: product 99999 not found');
  });

  it('RefusedError and InvalidRequestError carry the service text', async () => {
    const sb = await sandbox({ records: 50 });
    const api = clientFor(sb);
    const withDocs = Number(sb.store.list('quotations')[0]!.clientnr);
    const refused = await caught(api.deleteClient(withDocs));
    expect(refused).toBeInstanceOf(RefusedError);
    expect((refused as RefusedError).serviceMessage).toMatch(/has documents/);
    const invalid = await caught(api.updateClient(1, { showcontact: 'maybe' }));
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect((invalid as InvalidRequestError).status).toBe(400);
    expect((invalid as InvalidRequestError).serviceMessage).toMatch(/showcontact/);
  });

  it('ServerError after the retries of a safe request run out', async () => {
    const sb = await sandbox();
    const api = clientFor(sb, { maxRetries: 2 });
    sb.failNext('500', 3);
    const error = await caught(api.getClient(1));
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(500);
    expect((error as ServerError).retryable).toBe(true);
    expect(sb.calls).toHaveLength(3);
    expect(api.requestsMade).toBe(3);
  });

  it('NetworkError when nothing answers (connection refused, dropped every time)', async () => {
    const gone = await sandbox();
    const url = gone.url;
    await gone.close();
    const offline = clientFor({ ...gone, url } as typeof gone, { maxRetries: 1 });
    const refused = await caught(offline.getClient(1));
    expect(refused).toBeInstanceOf(NetworkError);
    expect(refused.message).toMatch(/could not connect/);
    expect(offline.requestsMade).toBe(2);

    const sb = await sandbox();
    const api = clientFor(sb, { maxRetries: 2 });
    sb.failNext('drop', 3);
    const dropped = await caught(api.getClient(1));
    expect(dropped).toBeInstanceOf(NetworkError);
    expect((dropped as NetworkError).status).toBeNull();
    expect(sb.calls).toHaveLength(3);
  });

  it('UnknownOutcomeError for a create or send whose answer is lost, never retried', async () => {
    const sb = await sandbox({ records: 50, hangMs: 5_000, sendMsPerInvoice: 1 });
    const api = clientFor(sb, { timeoutMs: 300, sendMsPerInvoice: 1 });

    sb.failNext('500', 1, { method: 'POST' });
    const e500 = await caught(api.createClient({ company: 'A' }));
    expect(e500).toBeInstanceOf(UnknownOutcomeError);
    expect((e500 as UnknownOutcomeError).status).toBe(500);
    expect((e500 as UnknownOutcomeError).retryable).toBe(false);

    sb.failNext('drop', 1, { method: 'POST' });
    expect(await caught(api.createProduct({ name: 'B' }))).toBeInstanceOf(UnknownOutcomeError);

    // The create happens, but its answer is cut short: the id is lost.
    sb.failNext('malformed', 1, { method: 'POST' });
    const cut = await caught(api.createQuotation({ action: 'save', clientnr: 1 }));
    expect(cut).toBeInstanceOf(UnknownOutcomeError);

    const id = Number(sb.store.list('saved_invoices')[0]!.id);
    sb.failNext('hang', 1, { method: 'POST' });
    const hung = await caught(api.sendSavedInvoices([id], { delete: false }));
    expect(hung).toBeInstanceOf(UnknownOutcomeError);
    expect(hung.message).toMatch(/no complete answer within 302 ms/); // 1 id × 1 ms × 2 + 300

    const draft = sb.store.list('quotations').find((q) => q.sent === 'false')!;
    sb.failNext('drop', 1, { method: 'PUT' });
    expect(await caught(api.sendQuotation(Number(draft.id), 'email'))).toBeInstanceOf(UnknownOutcomeError);

    expect(sb.calls.map((c) => c.method)).toEqual(['POST', 'POST', 'POST', 'POST', 'PUT']);
  });

  it('RateLimitedError for a caller that must not wait, with retryAt', async () => {
    const sb = await sandbox();
    const api = clientFor(sb, { rateLimitPauseMs: 60_000 });
    const jobs = api.withoutWaiting();
    sb.failNext('quota');
    const before = Date.now();
    const error = await caught(jobs.getClient(1));
    expect(error).toBeInstanceOf(RateLimitedError);
    const { retryAt, status, retryable } = error as RateLimitedError;
    expect(status).toBe(403);
    expect(retryable).toBe(true);
    expect(retryAt.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(api.pausedUntil?.getTime()).toBe(retryAt.getTime());
    // While paused, further calls fail at once without a request.
    expect(await caught(jobs.updateProduct(1, { notes: 'x' }))).toBeInstanceOf(RateLimitedError);
    expect(await caught(api.list('clients', { wait: false })[Symbol.asyncIterator]().next())).toBeInstanceOf(
      RateLimitedError,
    );
    expect(sb.calls).toHaveLength(1);
  });
});

describe('answers with status 200 that are not the data asked for', () => {
  const SERVICE_MESSAGE = 'Er is een fout opgetreden bij het ophalen van de gegevens (code 500)';

  it('an error object where a list was expected fails the list with the service message, never a record', async () => {
    const sb = await sandbox({ perEntity: { clients: 30 } });
    const api = clientFor(sb, { pageSize: 10 });
    sb.failNext('error200', 1, { pathPrefix: '/clients' });
    const stream = api.list('clients');
    const pages: unknown[] = [];
    const error = await caught(
      (async () => {
        for await (const page of stream) pages.push(page);
      })(),
    );
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toBe(
      `GET /clients?count=10&start=0: 200 answer was an error, not a list: ${SERVICE_MESSAGE}`,
    );
    expect(pages).toEqual([]);
    expect(stream.complete).toBe(false);
    expect(sb.calls).toHaveLength(1); // an error of that list, not retried as if the text were cut short
  });

  it('an error object where a record was expected is a ServerError with the service message', async () => {
    const sb = await sandbox();
    const api = clientFor(sb);
    sb.failNext('error200', 1, { pathPrefix: '/clients/' });
    const error = await caught(api.getClient(3));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toBe(`GET /clients/3: 200 answer was an error, not a record: ${SERVICE_MESSAGE}`);
    expect((await api.getClient(3)).clientnr).toBe(3);
  });

  it('another object where a list was expected names what came', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status": "maintenance", "until": "12:00"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const api = clientFor({ url: `http://127.0.0.1:${port}/api/v1`, user: 'u', apiKey: 'k-test' } as never);
      const error = await caught(api.list('products')[Symbol.asyncIterator]().next());
      expect(error.message).toBe(
        'GET /products?count=500&start=0: 200 answer was not a list: {"status":"maintenance","until":"12:00"}',
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('JSON after a byte order mark is read as JSON: lists and single reads', async () => {
    const sb = await sandbox({ perEntity: { clients: 25 }, failureRate: 1, failureKinds: ['bom'] });
    const api = clientFor(sb, { pageSize: 10, maxRetries: 0 });
    const clients: number[] = [];
    for await (const page of api.list('clients')) for (const read of page.records) clients.push(read.record.clientnr);
    expect(clients).toEqual(sb.store.list('clients').map((c) => Number(c.clientnr)));
    expect((await api.getClient(3)).raw).toEqual(sb.store.get('clients', 3));
    const countries = await api.countries();
    expect(countries.length).toBeGreaterThan(200);
    expect(sb.calls.filter((c) => c.method === 'GET').every((c) => c.fault === 'bom')).toBe(true);
  });
});
