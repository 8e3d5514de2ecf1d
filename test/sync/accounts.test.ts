/**
 * Many accounts in one mirror, pulled through the accounts machinery (stored, sealed keys; one
 * client per account): each account's mirror equals that account's data in the sandbox exactly,
 * and one account's refused key, spent quota or failing list changes nothing of the others'.
 */
import { resolveAccounts } from '../../src/accounts/resolve.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { forEachAccount, pullAccount } from '../../src/accounts/pull.js';
import type { Account } from '../../src/accounts/store.js';
import { loadConfig } from '../../src/config.js';
import { startSandbox, type Sandbox, type SandboxEntity } from '../../src/sandbox/index.js';
import { createApiClient } from '../../src/service-client.js';
import type { SyncOutcome } from '../../src/sync/index.js';
import { addSandboxAccounts } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const SECRET = 'a test master secret of more than 32 characters';
const ENTITIES: SandboxEntity[] = ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'];
const KEY: Record<string, string> = { clients: 'clientnr' };

let sandbox: Sandbox;
let app: App;

beforeAll(async () => {
  sandbox = await startSandbox({
    accounts: 4,
    seed: 11,
    perEntity: { clients: 25, products: 20, quotations: 20, saved_invoices: 20, repeating_invoices: 10 },
  });
  const config = loadConfig({
    INVOICING_API_URL: sandbox.url,
    ACCOUNTS_SECRET: SECRET,
    MAX_RETRIES: '1',
    PAGE_SIZE: '10',
  });
  app = {
    config: { ...config, schema: database.current.schema },
    database: database.current.handle,
    close: async () => {},
  };
  await addSandboxAccounts(database.current.handle.db, sandbox, SECRET);
});

afterAll(async () => {
  await sandbox?.close();
});

const account = (index: number): Promise<Account> =>
  resolveAccounts(database.current.handle.db, `client-${index}`, { one: true });

async function pullAll(indexes: number[]): Promise<Map<number, SyncOutcome>> {
  const accounts = await Promise.all(indexes.map(account));
  const results = await forEachAccount(accounts, 3, async (acc) => {
    const client = createApiClient(app, acc);
    try {
      return await pullAccount(app, { account: acc, client, options: { kind: 'sync' } });
    } finally {
      await client.close();
    }
  });
  return new Map(
    results.map((result, i) => {
      if (result.status === 'rejected') throw result.reason;
      return [indexes[i]!, result.value];
    }),
  );
}

/** The account's live records in the mirror, by entity: key → raw record. */
async function mirrorOf(index: number): Promise<Record<string, Record<string, unknown>>> {
  const { id } = await account(index);
  const out: Record<string, Record<string, unknown>> = {};
  for (const entity of ENTITIES) {
    const key = KEY[entity] ?? 'id';
    const { rows } = await sql<{ k: number; raw: Record<string, unknown> }>`
      select ${sql.ref(key)} as k, raw from ${sql.table(entity)} where account_id = ${id} and deleted_at is null`.execute(
      database.current.handle.db,
    );
    out[entity] = Object.fromEntries(rows.map((row) => [String(row.k), row.raw]));
  }
  return out;
}

function sandboxOf(index: number): Record<string, Record<string, unknown>> {
  const store = sandbox.accounts[index - 1]!.store;
  const out: Record<string, Record<string, unknown>> = {};
  for (const entity of ENTITIES) {
    const key = KEY[entity] ?? 'id';
    out[entity] = Object.fromEntries(store.list(entity).map((record) => [String(record[key]), record]));
  }
  return out;
}

/** The mirror's keys equal the sandbox's, per entity (the raw records are compared field by field elsewhere). */
async function expectExact(index: number): Promise<void> {
  const mirror = await mirrorOf(index);
  const upstream = sandboxOf(index);
  for (const entity of ENTITIES) {
    expect(Object.keys(mirror[entity]!).sort(), `${entity} of account ${index}`).toEqual(
      Object.keys(upstream[entity]!).sort(),
    );
    for (const [key, record] of Object.entries(upstream[entity]!))
      expect(mirror[entity]![key], `${entity} ${key} of account ${index}`).toMatchObject(
        JSON.parse(JSON.stringify(record)),
      );
  }
}

describe('many accounts in one mirror', () => {
  it('pulls each account through its own key into its own rows: each mirror equals its account exactly', async () => {
    const outcomes = await pullAll([1, 2, 3, 4]);
    for (const [index, outcome] of outcomes) expect(outcome.status, `account ${index}`).toBe('succeeded');
    for (const index of [1, 2, 3, 4]) await expectExact(index);
    // The accounts' data differ, and the same client number in two accounts is two rows.
    const { rows } = await sql<{ n: number }>`
      select count(distinct account_id)::int as n from clients where clientnr = (select min(clientnr) from clients)`.execute(
      database.current.handle.db,
    );
    expect(rows[0]!.n).toBeGreaterThan(1);
    // Every request of an account carried that account's credentials, and never two at once.
    for (const slot of sandbox.accounts) {
      expect(slot.calls.length).toBeGreaterThan(0);
      expect(slot.maxConcurrency()).toBe(1);
    }
  });

  it('a refused key, a spent quota and a failing list change nothing of the other accounts', async () => {
    const [a1, a2, a3, a4] = sandbox.accounts;
    // Changes upstream in every account, so that the healthy one has something to pull.
    for (const slot of [a1!, a2!, a3!, a4!]) slot.store.churn(6);
    a2!.refuseKey();
    a3!.hourlyQuota = a3!.calls.length; // spent: the next call is a 403
    // Every attempt at the products list fails (MAX_RETRIES is 1: two attempts).
    a4!.failNext('500', 2, { pathPrefix: '/products' });
    const before3 = await mirrorOf(3);

    const outcomes = await pullAll([1, 2, 3, 4]);

    expect(outcomes.get(1)!.status).toBe('succeeded');
    await expectExact(1);
    expect(outcomes.get(2)!.refused).toBe(true);
    expect((await account(2)).state).toBe('refused');
    expect((await account(2)).state_reason).toMatch(/401/);
    expect(outcomes.get(3)!.status).not.toBe('succeeded');
    expect(await mirrorOf(3)).toEqual(before3);
    expect(outcomes.get(4)!.status).toBe('partial');
    expect(outcomes.get(4)!.entities.products?.complete).toBe(false);
    expect(outcomes.get(4)!.entities.clients?.complete).toBe(true);
    // The other accounts stay active.
    for (const index of [1, 3, 4]) expect((await account(index)).state).toBe('active');

    // Once the key is good again and a person resumes the account, it catches up exactly.
    a2!.refuseKey(false);
    a3!.hourlyQuota = Number.POSITIVE_INFINITY;
    a3!.resetQuota();
    await database.current.handle.db
      .updateTable('accounts')
      .set({ state: 'active', state_reason: null })
      .where('name', '=', 'client-2')
      .execute();
    const again = await pullAll([2, 3, 4]);
    for (const [index, outcome] of again) expect(outcome.status, `account ${index}`).toBe('succeeded');
    for (const index of [1, 2, 3, 4]) await expectExact(index);
  });
});
