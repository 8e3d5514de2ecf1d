/**
 * A sandbox and an API client pointed at it, for tests that need the service. Retries are quick
 * so fault tests stay fast.
 */
import type { Kysely } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { sealKey } from '../../src/accounts/secret.js';
import type { Database } from '../../src/db/index.js';
import { InvoicingClient, type ClientOptions } from '../../src/api/index.js';
import { startSandbox, type Sandbox, type SandboxAccount, type SandboxOptions } from '../../src/sandbox/index.js';
import { runSync, type SyncOptions } from '../../src/sync/index.js';
import { pullOf, type TestDatabase } from './test-database.js';

export function clientFor(sandbox: Sandbox, options: Partial<ClientOptions> = {}): InvoicingClient {
  return new InvoicingClient({
    baseUrl: sandbox.url,
    user: sandbox.user,
    apiKey: sandbox.apiKey,
    retryBaseMs: 5,
    maxRetries: 2,
    timeoutMs: 5000,
    requestsPerHour: 0,
    ...options,
  });
}

/** A client of one of the sandbox's accounts (`index` from 1; see `SandboxOptions.accounts`). */
export function accountClient(
  sandbox: Sandbox,
  account: number | SandboxAccount,
  options: Partial<ClientOptions> = {},
): InvoicingClient {
  const a = typeof account === 'number' ? sandbox.account(account) : account;
  return clientFor(sandbox, { user: a.user, apiKey: a.apiKey, ...options });
}

/** Registers hooks that start a sandbox (and a client for it) before the file and stop them after. */
export function useSandbox(
  options: SandboxOptions = {},
  clientOptions: Partial<ClientOptions> = {},
): { sandbox: Sandbox; client: InvoicingClient } {
  const box = {} as { sandbox: Sandbox; client: InvoicingClient };
  beforeAll(async () => {
    box.sandbox = await startSandbox({ seed: 7, ...options });
    box.client = clientFor(box.sandbox, clientOptions);
  });
  afterAll(async () => {
    await box.client?.close();
    await box.sandbox?.close();
  });
  return box;
}

/**
 * Adds the sandbox's accounts to the mirror as `client-<index>`, each with its key sealed under
 * `secret` (the mirror's ACCOUNTS_SECRET in the test).
 */
export async function addSandboxAccounts(
  db: Kysely<Database>,
  sandbox: Sandbox,
  secret: string,
  slots: readonly SandboxAccount[] = sandbox.accounts,
): Promise<void> {
  for (const slot of slots)
    await db
      .insertInto('accounts')
      .values({
        name: `client-${slot.index}`,
        api_url: sandbox.url,
        api_user: slot.user,
        api_key: sealKey(slot.apiKey, secret),
      })
      .execute();
}

/**
 * A pull of the test database's default account from the sandbox's client, with the options
 * given (`kind` defaults to `sync`); the pages are written two at a time, as the app does.
 */
export function pullerFor(
  database: { current: TestDatabase },
  env: { client: InvoicingClient },
  defaults: Partial<SyncOptions> = {},
): (options?: Partial<SyncOptions>) => ReturnType<typeof runSync> {
  return (options = {}) => runSync(...pullOf(database, env.client), { kind: 'sync', ...defaults, ...options });
}
