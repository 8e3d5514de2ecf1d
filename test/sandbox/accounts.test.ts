/** A sandbox serving several accounts: the credentials pick one, each with its own data, quota, faults and calls. */
import { describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxAccount } from '../../src/sandbox/index.js';
import { basic, del, get, post, put, sandbox } from './helpers.js';

const as = (a: SandboxAccount) => ({ auth: basic(a.user, a.apiKey) });
const clientsOf = async (sb: Sandbox, a: SandboxAccount) => (await get(sb, '/clients?count=-1', as(a))).json();

describe('sandbox accounts', () => {
  it('has one account by default, as before: user and key sandbox, account 1 in every call', async () => {
    const sb = await sandbox();
    expect(sb.accounts.map((a) => [a.index, a.user, a.apiKey, a.seed])).toEqual([[1, 'sandbox', 'sandbox', 3]]);
    expect(sb.account(1)).toBe(sb.accounts[0]);
    expect(sb.store.list('clients')).toEqual(sb.accounts[0]!.store.list('clients'));
    expect((await get(sb, '/clients/1')).status).toBe(200);
    expect((await get(sb, '/clients/1', { auth: basic('sandbox-2', 'sandbox-2-key') })).status).toBe(401);
    expect(sb.calls.map((c) => [c.account, c.status])).toEqual([
      [1, 200],
      [0, 401],
    ]);
    expect(sb.accounts[0]!.calls).toEqual([sb.calls[0]]);
  });

  it('gives account i user sandbox-i and key sandbox-i-key, and data of its own seed (seed + i - 1)', async () => {
    const sb = await sandbox({ accounts: 3, seed: 3 });
    expect(sb.accounts.map((a) => [a.index, a.user, a.apiKey, a.seed])).toEqual([
      [1, 'sandbox', 'sandbox', 3],
      [2, 'sandbox-2', 'sandbox-2-key', 4],
      [3, 'sandbox-3', 'sandbox-3-key', 5],
    ]);
    expect(sb.account(3)).toBe(sb.accounts[2]);
    expect(() => sb.account(4)).toThrow('Unknown account 4: this sandbox has accounts 1 to 3');
    expect(() => sb.account(0)).toThrow(/Unknown account 0/);
    const [one, two, three] = await Promise.all(sb.accounts.map((a) => clientsOf(sb, a)));
    expect(one).toHaveLength(20);
    expect(two).toHaveLength(20);
    expect(one).not.toEqual(two);
    expect(two).not.toEqual(three);
    expect(one).toEqual(sb.accounts[0]!.store.list('clients'));
    expect(two).toEqual(sb.accounts[1]!.store.list('clients'));
    expect(three).toEqual(sb.accounts[2]!.store.list('clients'));
    // Reproducible: account 2 is the account a one-account sandbox of seed 4 has.
    const alone = await sandbox({ seed: 4 });
    for (const entity of ['clients', 'products', 'saved_invoices', 'repeating_invoices'] as const)
      expect(sb.accounts[1]!.store.list(entity)).toEqual(alone.store.list(entity));
    expect(sb.accounts[1]!.store.sentInvoices()).toEqual(alone.store.sentInvoices());
  });

  it('records, perEntity and sentInvoices apply to each account', async () => {
    const sb = await sandbox({ accounts: 2, perEntity: { clients: 4, products: 0 }, sentInvoices: 3 });
    for (const a of sb.accounts) {
      expect(a.store.list('clients')).toHaveLength(4);
      expect(a.store.list('products')).toHaveLength(0);
      expect(a.store.sentInvoices()).toHaveLength(3);
    }
  });

  it("generates an account's data on its first use, the same as had it been generated at the start", async () => {
    const eager = await sandbox({ accounts: 2, records: 200 });
    const lazy = await sandbox({ accounts: 2, records: 200 });
    expect(eager.accounts[1]!.generated).toBe(false);
    expect(eager.accounts[0]!.generated).toBe(true);
    expect((await get(eager, '/products/1', as(eager.accounts[1]!))).status).toBe(200);
    expect(eager.accounts[1]!.generated).toBe(true);
    // Both clocks move the same way; only the eager account lives through the moves.
    for (const sb of [eager, lazy]) {
      sb.clock.advanceDays(20);
      sb.clock.advanceDays(45);
      sb.clock.advanceDays(-3);
    }
    expect(lazy.accounts[1]!.generated).toBe(false);
    const made = eager.accounts[1]!.store.sentInvoices();
    expect(made.length).toBeGreaterThan(eager.accounts[1]!.store.sentSavedIds().length + 100); // repeating ones sent
    expect(lazy.accounts[1]!.store.sentInvoices()).toEqual(made);
    expect(lazy.accounts[1]!.store.list('repeating_invoices')).toEqual(
      eager.accounts[1]!.store.list('repeating_invoices'),
    );
    // And the clock still ticks it after that.
    for (const sb of [eager, lazy]) sb.clock.advanceDays(30);
    expect(lazy.accounts[1]!.store.sentInvoices()).toEqual(eager.accounts[1]!.store.sentInvoices());
    expect(eager.accounts[1]!.store.sentInvoices().length).toBeGreaterThan(made.length);
  });

  it('the user name picks the account and its key must match; a write changes that account only', async () => {
    const sb = await sandbox({ accounts: 3 });
    const [one, two, three] = sb.accounts as SandboxAccount[];
    const before = [one!, three!].map((a) => a.store.list('products'));
    const created = await post(sb, '/products', { name: 'Only in account 2' }, as(two!));
    expect(created.status).toBe(201);
    expect(two!.store.get('products', Number(created.text))?.name).toBe('Only in account 2');
    expect([one!, three!].map((a) => a.store.list('products'))).toEqual(before);

    const wrongKey = await get(sb, '/clients', { auth: basic('sandbox-2', 'sandbox-3-key') });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.text).toContain('Unauthorized');
    expect((await get(sb, '/clients', { auth: basic('sandbox-2', 'sandbox') })).status).toBe(401);
    expect((await get(sb, '/clients', { auth: basic('sandbox-4', 'sandbox-4-key') })).status).toBe(401);
    expect((await get(sb, '/clients', { auth: basic('sandbox', 'sandbox-2-key') })).status).toBe(401);
    expect((await get(sb, '/clients', { auth: null })).status).toBe(401);
    // The calls of a user name that names an account are its own, refused or not.
    expect(two!.calls.map((c) => [c.method, c.status])).toEqual([
      ['POST', 201],
      ['GET', 401],
      ['GET', 401],
    ]);
    expect(sb.calls.map((c) => c.account)).toEqual([2, 2, 2, 0, 1, 0]);
    expect(sb.calls.map((c) => c.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a refused key is 401 for its account only, until accepted again', async () => {
    const sb = await sandbox({ accounts: 3 });
    const [one, two, three] = sb.accounts as SandboxAccount[];
    two!.refuseKey();
    expect(two!.keyRefused).toBe(true);
    const refused = await get(sb, '/clients?count=2', as(two!));
    expect(refused.status).toBe(401);
    expect(refused.text).toBe('Unauthorized: this API key is not active');
    expect(refused.headers['www-authenticate']).toBe('Basic realm="api"');
    expect((await post(sb, '/products', { name: 'Not made' }, as(two!))).status).toBe(401);
    expect((await get(sb, '/clients?count=2', as(one!))).status).toBe(200);
    expect((await get(sb, '/clients?count=2', as(three!))).status).toBe(200);
    two!.refuseKey(false);
    expect((await get(sb, '/clients?count=2', as(two!))).status).toBe(200);
    expect(two!.calls.map((c) => c.status)).toEqual([401, 401, 200]);
  });

  it("one account's spent quota is 403 for it alone; each has its own limit and counter", async () => {
    const sb = await sandbox({ accounts: 3, hourlyQuota: 10 });
    const [one, two, three] = sb.accounts as SandboxAccount[];
    two!.hourlyQuota = 1;
    expect(two!.hourlyQuota).toBe(1);
    expect((await get(sb, '/clients/1', as(two!))).headers['x-ratelimit-remaining']).toBe('0');
    const spent = await get(sb, '/clients/1', as(two!));
    expect(spent.status).toBe(403);
    expect(spent.headers['x-ratelimit-remaining']).toBe('0');
    expect(two!.quotaRemaining).toBe(0);
    const other = await get(sb, '/clients/1', as(three!));
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe('9');
    expect((await get(sb, '/clients/1', as(one!))).headers['x-ratelimit-remaining']).toBe('9');
    expect(sb.quotaRemaining).toBe(9);
    // The shared knob moves every account without a limit of its own.
    sb.knobs.hourlyQuota = 50;
    expect([one!.hourlyQuota, two!.hourlyQuota, three!.hourlyQuota]).toEqual([50, 1, 50]);
    expect(three!.quotaRemaining).toBe(49);
    two!.resetQuota();
    expect((await get(sb, '/clients/1', as(two!))).status).toBe(200);
    expect(() => (two!.hourlyQuota = -1)).toThrow(/hourlyQuota/);
    // sandbox.resetQuota is account 1's.
    sb.resetQuota();
    expect([one!.quotaRemaining, three!.quotaRemaining]).toEqual([50, 49]);
  });

  it("failNext faults one account's calls; the others answer; failNext on the sandbox is account 1's", async () => {
    const sb = await sandbox({ accounts: 3 });
    const [one, two, three] = sb.accounts as SandboxAccount[];
    three!.failNext('500', 2);
    two!.failNext('quota', 1, { pathPrefix: '/products' });
    sb.failNext('drop');
    expect((await get(sb, '/clients/1', as(three!))).status).toBe(500);
    expect((await get(sb, '/clients/1', as(two!))).status).toBe(200);
    expect((await get(sb, '/products/1', as(two!))).status).toBe(403);
    expect((await get(sb, '/products/1', as(two!))).status).toBe(200);
    await expect(get(sb, '/clients/1', as(one!))).rejects.toThrow();
    expect((await get(sb, '/clients/1', as(one!))).status).toBe(200);
    expect((await get(sb, '/clients/1', as(three!))).status).toBe(500);
    expect((await get(sb, '/clients/1', as(three!))).status).toBe(200);
    expect(one!.calls.map((c) => c.fault ?? c.status)).toEqual(['drop', 200]);
    expect(three!.calls.map((c) => c.fault ?? c.status)).toEqual(['500', '500', 200]);
    expect(three!.calls.every((c) => c.account === 3)).toBe(true);
  });

  it('keeps a call log per account; clearCalls and maxConcurrency per account and over all', async () => {
    const sb = await sandbox({ accounts: 2, latencyMs: 40 });
    const [one, two] = sb.accounts as SandboxAccount[];
    await Promise.all([
      get(sb, '/clients/1', as(one!)),
      get(sb, '/clients/2', as(two!)),
      get(sb, '/clients/3', as(two!)),
    ]);
    expect(one!.calls.map((c) => c.path)).toEqual(['/api/v1/clients/1']);
    expect(two!.calls.map((c) => c.path).sort()).toEqual(['/api/v1/clients/2', '/api/v1/clients/3']);
    expect(sb.calls).toHaveLength(3);
    expect(one!.maxConcurrency()).toBe(1);
    expect(two!.maxConcurrency()).toBe(2);
    expect(sb.maxConcurrency()).toBe(3);
    two!.clearCalls();
    expect(two!.calls).toEqual([]);
    expect(sb.calls).toHaveLength(3);
    sb.clearCalls();
    expect(sb.calls).toEqual([]);
    expect(one!.calls).toEqual([]);
  });

  it('the clock is shared: moving it ticks every account', async () => {
    const sb = await sandbox({ accounts: 3, records: 200 });
    const before = sb.accounts.map((a) => a.store.sentInvoices().length);
    sb.clock.advanceDays(60);
    const after = sb.accounts.map((a) => a.store.sentInvoices().length);
    for (let i = 0; i < 3; i++) expect(after[i]!, `account ${i + 1}`).toBeGreaterThan(before[i]!);
  });

  it('rejects a bad number of accounts and an account 1 user name that is another account’s', async () => {
    for (const accounts of [0, -1, 1.5, 10_001])
      await expect(startSandbox({ accounts, records: 0 })).rejects.toThrow(
        'accounts: must be an integer from 1 to 10000',
      );
    await expect(startSandbox({ accounts: 3, user: 'sandbox-3', records: 0 })).rejects.toThrow(
      'user: "sandbox-3" is the user name of account 3',
    );
    const sb = await sandbox({ accounts: 2, user: 'sandbox-3', apiKey: 'k' });
    expect((await get(sb, '/clients/1', { auth: basic('sandbox-3', 'k') })).status).toBe(200);
  });

  it('starts 1,000 accounts of 200 records without generating them', async () => {
    const started = performance.now();
    const sb = await sandbox({ accounts: 1000, records: 200 });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(sb.accounts.filter((a) => a.generated)).toHaveLength(1);
    const last = sb.account(1000);
    expect(last.user).toBe('sandbox-1000');
    expect((await get(sb, '/clients?count=-1', as(last))).json()).toHaveLength(40);
    expect(sb.accounts.filter((a) => a.generated).map((a) => a.index)).toEqual([1, 1000]);
  });
});

describe('sandbox accounts through the admin routes', () => {
  it('act on account 1, or on ?account=N; an unknown account is 404', async () => {
    const sb = await sandbox({ accounts: 3, admin: true });
    const [one, two, three] = sb.accounts as SandboxAccount[];
    // Any account's credentials open the admin routes, a refused key too.
    three!.refuseKey();
    const admin = as(three!);
    expect((await get(sb, '//_admin/records/clients?account=2', admin)).json()).toEqual(two!.store.list('clients'));
    expect((await get(sb, '//_admin/records/clients', admin)).json()).toEqual(one!.store.list('clients'));
    for (const bad of ['4', '0', 'x', '', '2.5']) {
      const answer = await get(sb, `//_admin/records/clients?account=${bad}`, admin);
      expect(answer.status, bad).toBe(404);
      expect(answer.text).toBe(`Unknown account "${bad}": this sandbox has accounts 1 to 3`);
    }
    const created = await post(sb, '//_admin/records/products?account=2', { name: 'Admin-made' }, admin);
    expect(two!.store.get('products', created.json().id)?.name).toBe('Admin-made');
    expect(
      (await put(sb, `//_admin/records/products/${created.json().id}?account=2`, { name: 'Renamed' }, admin)).status,
    ).toBe(200);
    expect((await del(sb, '//_admin/records/products/1?account=3', admin)).status).toBe(200);
    expect(three!.store.get('products', 1)).toBeUndefined();
    expect(one!.store.get('products', 1)).toBeDefined();

    expect((await post(sb, '//_admin/key?account=3', { refused: false }, admin)).json().keyRefused).toBe(false);
    expect(three!.keyRefused).toBe(false);
    expect((await post(sb, '//_admin/key?account=2', {}, admin)).json()).toMatchObject({ index: 2, keyRefused: true });
    expect((await get(sb, '/clients/1', as(two!))).status).toBe(401);
    await post(sb, '//_admin/key?account=2', { refused: false }, admin);

    expect((await put(sb, '//_admin/quota?account=2', { hourlyQuota: 0 }, admin)).json()).toMatchObject({
      index: 2,
      hourlyQuota: 0,
      quotaRemaining: 0,
    });
    expect((await put(sb, '//_admin/quota?account=2', { hourlyQuota: -3 }, admin)).status).toBe(400);
    expect((await get(sb, '/clients/1', as(two!))).status).toBe(403);
    expect((await get(sb, '/clients/1', as(one!))).status).toBe(200);
    await put(sb, '//_admin/quota?account=2', { hourlyQuota: null }, admin);
    expect(two!.hourlyQuota).toBe(Number.POSITIVE_INFINITY);

    await post(sb, '//_admin/fail?account=3', { kind: '500', count: 1 }, admin);
    expect((await get(sb, '/clients/1', as(one!))).status).toBe(200);
    expect((await get(sb, '/clients/1', as(three!))).status).toBe(500);

    const summary = (await get(sb, '//_admin/accounts', admin)).json();
    expect(summary.map((a: any) => [a.index, a.user, a.apiKey])).toEqual([
      [1, 'sandbox', 'sandbox'],
      [2, 'sandbox-2', 'sandbox-2-key'],
      [3, 'sandbox-3', 'sandbox-3-key'],
    ]);
    expect((await get(sb, '//_admin/account?account=3', admin)).json()).toMatchObject({ index: 3, calls: 1 });
    const mine = (await get(sb, '//_admin/calls?account=3', admin)).json();
    expect(mine.map((c: any) => [c.account, c.status])).toEqual([[3, 500]]);
    const every = (await get(sb, '//_admin/calls', admin)).json();
    expect(new Set(every.map((c: any) => c.account))).toEqual(new Set([1, 2, 3]));
    expect((await del(sb, '//_admin/calls?account=3', admin)).status).toBe(200);
    expect(three!.calls).toEqual([]);
    expect(sb.calls.length).toBe(every.length);
  });

  it('keeps knobs and clock shared, whatever account is named', async () => {
    const sb = await sandbox({ accounts: 2, admin: true });
    const two = as(sb.account(2));
    expect((await put(sb, '//_admin/knobs?account=2', { defaultPageSize: 3 }, two)).json().defaultPageSize).toBe(3);
    expect(sb.knobs.defaultPageSize).toBe(3);
    expect((await get(sb, '/clients', as(sb.account(1)))).json()).toHaveLength(3);
    expect((await post(sb, '//_admin/clock', { advanceDays: 2 }, two)).json()).toEqual({ today: '2026-11-03' });
    expect(sb.clock.today()).toBe('2026-11-03');
  });
});
