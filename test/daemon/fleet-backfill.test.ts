/**
 * One huge account beside small ones: its first backfill (20,000 clients) proceeds in slices of
 * PULL_SLICE that interleave with the other accounts' pulls, so none of them goes stale past its
 * target even with one account at a time per daemon; a daemon killed (SIGKILL) in the middle
 * leaves a cursor, and the daemon that takes the account over goes on from its last page.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';
import { addSandboxAccounts } from '../support/sandbox.js';
import { fleetEnv, freshness, useDaemons, waitFor } from '../support/daemon.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const SECRET = 'a fleet test master secret, long enough';
const ACCOUNTS = 8;
const HUGE = 2; // the account's index in the sandbox, and its name client-2
const HUGE_CLIENTS = 20_000;
const INTERVAL_SECONDS = 10;
const SLICE_SECONDS = 1;
/** A small account waits at most one slice beyond its interval, plus the other accounts' turns. */
const FRESHNESS_BOUND_SECONDS = INTERVAL_SECONDS + SLICE_SECONDS + 8;

let sandbox: Sandbox;
const db = () => database.current.handle.db;

beforeAll(async () => {
  sandbox = await startSandbox({
    accounts: ACCOUNTS,
    seed: 11,
    // Each answer takes at least 25 ms, so that the 140 pages or more left after the kill take more
    // than three slices however fast the machine writes them (at 5 ms, a fast CI machine wrote them
    // in two slices, and the count of slices said more of its speed than of the slicing).
    latencyMs: 25,
    perEntity: { clients: 6, products: 5, quotations: 3, saved_invoices: 3, repeating_invoices: 2 },
  });
  const huge = sandbox.accounts[HUGE - 1]!.store;
  for (let i = 0; i < HUGE_CLIENTS; i++) huge.insert('clients', {});
  await addSandboxAccounts(db(), sandbox, SECRET, sandbox.accounts.slice(1));
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
});

const startDaemon = useDaemons(() => ({
  ...fleetEnv(database.current.env, sandbox.url, SECRET, INTERVAL_SECONDS),
  PULL_SLICE: `${SLICE_SECONDS}s`,
  // Pages of 100: two hundred pages, so that the backfill takes many slices.
  PAGE_SIZE: '100',
  LEASE_SECONDS: '3',
  // One account at a time: the strictest case, where only slices let the others in.
  ACCOUNT_CONCURRENCY: '1',
  DB_POOL_SIZE: '6',
  // No local hourly budget: a thousand pages are more than the default allows in an hour.
  REQUESTS_PER_HOUR: '0',
  CONSOLE: 'false',
}));

async function hugeAccountId(): Promise<number> {
  const row = await db()
    .selectFrom('accounts')
    .select('id')
    .where('name', '=', `client-${HUGE}`)
    .executeTakeFirstOrThrow();
  return row.id;
}

async function hugeCursor(accountId: number): Promise<{ next_start: number; last_page_start: number } | undefined> {
  return db()
    .selectFrom('pull_cursors')
    .select(['next_start', 'last_page_start'])
    .where('account_id', '=', accountId)
    .where('entity', '=', 'clients')
    .executeTakeFirst();
}

async function hugeClientsStored(accountId: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from clients where account_id = ${accountId} and deleted_at is null`.execute(db());
  return rows[0]!.n;
}

describe('a huge backfill beside small accounts', () => {
  it('goes in slices that let every other account stay fresh, and resumes from its last page after a kill', async () => {
    const hugeId = await hugeAccountId();
    const expectedClients = sandbox.accounts[HUGE - 1]!.store.list('clients').length;
    let worstAge = 0;
    let sampling = true;
    /** While no daemon runs (from the kill until the next one has caught up), ages are not judged. */
    let judging = true;
    const smallAges = async () =>
      [...(await freshness(db())).entries()].filter(([id]) => id !== hugeId).map(([, age]) => age);
    // Every half second: the stalest small account, once each has been pulled.
    const sampler = (async () => {
      while (sampling) {
        const ages = await smallAges();
        if (judging && ages.every(Number.isFinite)) worstAge = Math.max(worstAge, ...ages);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();

    try {
      const first = await startDaemon();
      // Well into the huge account's clients, every small account pulled meanwhile: kill the
      // daemon where it stands.
      await waitFor(
        'the huge backfill to be under way',
        async () =>
          ((await hugeCursor(hugeId))?.next_start ?? 0) >= 6_000 && (await smallAges()).every(Number.isFinite),
        120_000,
      );
      judging = false;
      first.child.kill('SIGKILL');
      const killedAt = performance.now() + performance.timeOrigin;
      await first.exited;
      const cursor = await hugeCursor(hugeId);
      expect(cursor).toBeDefined();
      // Seen at a glance: the account is being pulled in slices, and how far its pass has come.
      const list = await runCli(['accounts', 'list', '--format', 'json'], { env: database.current.env });
      const huge = (JSON.parse(list.stdout) as { name: string; problems: string }[]).find(
        (row) => row.name === `client-${HUGE}`,
      );
      expect(huge?.problems).toMatch(/pulling in slices \(clients: \d+ read\)/);
      expect(huge?.problems).not.toMatch(/failing lists/);

      await startDaemon();
      const started = performance.now();
      // Due at once (as SYNC_CRON's tick makes them), not an interval after their last pull.
      await sql`update account_leases set due_at = now()`.execute(db());
      await waitFor(
        'the small accounts pulled by the new daemon',
        async () => (await smallAges()).every((age) => age < (performance.now() - started) / 1000),
        60_000,
      );
      judging = true;
      const hugeCalls = sandbox.accounts[HUGE - 1]!.calls;
      const resumedAt = await waitFor(
        'the huge account to be taken over',
        async () => hugeCalls.find((call) => call.startedAt > killedAt && call.path.endsWith('/clients')),
        60_000,
      );
      // It reads the last page the cursor names again, then goes on: it does not start over.
      expect(new URLSearchParams(resumedAt.query.replace(/^\?/, '')).get('start')).toBe(
        String(cursor!.last_page_start),
      );
      expect(cursor!.last_page_start).toBeGreaterThan(0);

      await waitFor(
        'the huge backfill to complete',
        async () => (await hugeCursor(hugeId)) === undefined && (await hugeClientsStored(hugeId)) === expectedClients,
        180_000,
      );
    } finally {
      sampling = false;
      await sampler;
    }

    // The backfill went in slices (runs that gave way), and no small account went stale meanwhile.
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from sync_runs where account_id = ${hugeId} and error like '%gave way%'`.execute(db());
    console.info(`huge backfill: ${rows[0]!.n} slices; stalest small account: ${worstAge.toFixed(1)} s`);
    expect(rows[0]!.n).toBeGreaterThanOrEqual(3);
    expect(worstAge).toBeGreaterThan(0);
    expect(worstAge).toBeLessThanOrEqual(FRESHNESS_BOUND_SECONDS);
    for (const slot of sandbox.accounts) expect(slot.maxConcurrency(), `account ${slot.index}`).toBeLessThanOrEqual(1);
  }, 360_000);
});
