/**
 * Within an account, outbound actions come first: a daemon's pull gives way to a job of its
 * account queued meanwhile (the job runs, then the pull goes on from its last page), and pulls
 * leave the last ACTION_RESERVE requests of the account's hourly budget to actions. The daemon runs
 * in the test's process; the test waits on what it says it does (`gave way`, `released`).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { waitFor } from '../support/daemon.js';
import { insertJob } from '../jobs/helpers.js';
import { useTestDatabase } from '../support/test-database.js';
import { nextEvent, useFleetDaemons } from './in-process.js';

const database = useTestDatabase();
const CLIENTS = 1000;
const PAGE = 10;

let sandbox: Sandbox;
const db = () => database.current.handle.db;

beforeAll(async () => {
  sandbox = await startSandbox({
    seed: 3,
    latencyMs: 30,
    perEntity: { clients: CLIENTS, products: 3, quotations: 0, saved_invoices: 0, repeating_invoices: 0 },
  });
});

afterAll(async () => {
  await sandbox?.close();
});

beforeEach(async () => {
  await sql`truncate clients, products, changes, entity_pulls, sync_runs, pull_cursors, jobs cascade`.execute(db());
  await sql`update account_leases set due_at = '-infinity', daemon_id = null, leased_until = null`.execute(db());
  sandbox.clearCalls();
});

const startDaemon = useFleetDaemons(
  () => database.current,
  () => ({
    INVOICING_API_URL: sandbox.url,
    SYNC_CRON: undefined,
    SYNC_INTERVAL: '10m',
    PAGE_SIZE: String(PAGE),
    CONSOLE: 'false',
  }),
);

/** Queues a job that sets a product's stock (a plain INSERT, as any program may). */
function queueStockJob(): Promise<number> {
  return insertJob(database.current.handle, 'set_product_stock', {
    id: Number(sandbox.store.list('products')[0]!.id),
    stock: 7,
  });
}

async function jobStatus(id: number): Promise<string> {
  const row = await db().selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirstOrThrow();
  return row.status;
}

const clientListCalls = () => sandbox.calls.filter((call) => call.method === 'GET' && call.path.endsWith('/clients'));
const startOf = (query: string) => Number(new URLSearchParams(query.replace(/^\?/, '')).get('start'));

describe('within an account, actions before pulls', () => {
  it('a pull gives way to a job queued meanwhile, and goes on from its last page after it', async () => {
    const { fleet } = await startDaemon({ REQUESTS_PER_HOUR: '0' });
    await waitFor('the clients pull to be under way', async () => clientListCalls().length >= 10, 30_000);
    const gaveWay = nextEvent(fleet, 'gave way');
    const job = await queueStockJob();
    const [, why] = await gaveWay;
    expect(why).toMatch(/a job of the account is waiting/);
    await waitFor('the job to succeed', async () => (await jobStatus(job)) === 'succeeded', 30_000);
    const jobCall = sandbox.calls.find((call) => call.method !== 'GET' && call.path.includes('/products'))!;
    expect(jobCall).toBeDefined();
    await waitFor(
      'the pull to complete',
      async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from sync_runs where kind = 'sync' and status = 'succeeded'`.execute(db());
        return rows[0]!.n > 0;
      },
      60_000,
    );
    // The job did not wait for the pull: the pull's list went on after it, from where it stood.
    const after = clientListCalls().filter((call) => call.startedAt > jobCall.endedAt);
    expect(after.length).toBeGreaterThan(0);
    expect(after.map((call) => startOf(call.query))).not.toContain(0);
    const { rows } = await sql<{ error: string }>`
      select error from sync_runs where error like '%gave way%' order by id`.execute(db());
    expect(rows[0]?.error).toMatch(/a job of the account is waiting/);
    const { rows: stored } = await sql<{ n: number }>`select count(*)::int as n from clients`.execute(db());
    expect(stored[0]!.n).toBe(CLIENTS);
  }, 120_000);

  it('pulls leave the last ACTION_RESERVE requests of the hour to actions', async () => {
    const { fleet } = await startDaemon({ REQUESTS_PER_HOUR: '40', ACTION_RESERVE: '20' });
    const released = nextEvent(fleet, 'released');
    const [, why] = await nextEvent(fleet, 'gave way');
    expect(why).toMatch(/kept for actions/);
    await waitFor(
      'the pull to give way to the reserve',
      async () => {
        const { rows } = await sql<{ error: string | null }>`
          select error from sync_runs where status <> 'running' order by id desc limit 1`.execute(db());
        return rows[0]?.error?.includes('kept for actions');
      },
      30_000,
    );
    const listed = clientListCalls().length;
    expect(sandbox.calls.length).toBeLessThanOrEqual(40 - 20 + 1);
    // The account is given back (just after its run ended) with its next pull an interval away;
    // a job still runs, on the reserve.
    expect((await released)[1]).toBe('interval');
    await waitFor('the account given back until its next interval', async () => {
      const { rows } = await sql<{ later: boolean }>`
        select due_at > now() + interval '5 minutes' and daemon_id is null as later from account_leases`.execute(db());
      return rows[0]!.later;
    });
    const job = await queueStockJob();
    await waitFor('the job to succeed', async () => (await jobStatus(job)) === 'succeeded', 30_000);
    expect(clientListCalls().length).toBe(listed);
  }, 90_000);
});
