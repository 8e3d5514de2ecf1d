/** Sandbox + client pairs for the API tests, closed after each test. */
import { pino } from 'pino';
import { afterEach } from 'vitest';
import { InvoicingClient, type ClientOptions } from '../../src/api/index.js';
import { startSandbox } from '../../src/sandbox/index.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
type SandboxOptions = NonNullable<Parameters<typeof startSandbox>[0]>;

const quiet = pino({ level: process.env.API_TEST_LOG_LEVEL ?? 'silent' });

const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  // Clients first (they release the account's queue), then the sandboxes.
  const all = open.splice(0).reverse();
  for (const o of all) await o.close().catch(() => undefined);
});

export async function sandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox({ records: 50, seed: 7, latencyMs: 0, ...options });
  open.push(sb);
  return sb;
}

/** A client with test-friendly timings; retries fast. */
export function clientFor(sb: Sandbox, options: Partial<ClientOptions> = {}): InvoicingClient {
  const api = new InvoicingClient({
    baseUrl: sb.url,
    user: sb.user,
    apiKey: sb.apiKey,
    retryBaseMs: 5,
    timeoutMs: 2_000,
    logger: quiet,
    ...options,
  });
  open.push(api);
  return api;
}

/** Calls to the service (the sandbox's call log), as `METHOD /path` strings relative to /api/v1. */
export function callLines(sb: Sandbox): string[] {
  return sb.calls.map((c) => `${c.method} ${c.path.replace(/^\/api\/v1/, '')}`);
}

export async function caught(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

export type { Sandbox };
