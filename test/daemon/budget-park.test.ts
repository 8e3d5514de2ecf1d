/**
 * A spent hourly budget parks the account's pulls until the budget has come back, with one
 * warning: not one failed (or given-way) run per interval, as before (2,461 failed runs in 105
 * minutes for 5 accounts at SYNC_INTERVAL=10s). Its jobs still run meanwhile, within the
 * requests kept for actions, and each claim for them leaves the pull alone.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useDaemons, waitFor } from '../support/daemon.js';
import { insertJob, jobRow } from '../jobs/helpers.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({
  perEntity: { clients: 4, products: 4, quotations: 4, saved_invoices: 4, repeating_invoices: 2 },
});
const BUDGET = 18;
const RESERVE = 8;
const startDaemon = useDaemons(() => ({
  ...database.current.env,
  INVOICING_API_URL: env.sandbox.url,
  SYNC_CRON: undefined,
  SYNC_INTERVAL: '10s',
  REQUESTS_PER_HOUR: String(BUDGET),
  ACTION_RESERVE: String(RESERVE),
  CONSOLE: 'false',
}));

const db = () => database.current.handle.db;

async function lease() {
  const { rows } = await sql<{ parked: boolean; pulls_only: boolean; minutes: number; reason: string | null }>`
    select parked_until > now() as parked, parked_pulls_only as pulls_only, parked_reason as reason,
           extract(epoch from parked_until - now())::float8 / 60 as minutes
      from account_leases`.execute(db());
  return rows[0]!;
}

async function pulls(): Promise<{ status: string; error: string | null }[]> {
  return db().selectFrom('sync_runs').select(['status', 'error']).where('kind', '=', 'sync').orderBy('id').execute();
}

describe('a spent hourly budget', () => {
  it("parks the account's pulls until it comes back, with one warning; its jobs still run", async () => {
    const daemon = await startDaemon();
    const parked = await waitFor('the pulls to be parked', async () => {
      const row = await lease();
      return row.parked ? row : undefined;
    });
    expect(parked.pulls_only).toBe(true);
    // Until half of the budget is free again: an hour after the oldest requests were sent.
    expect(parked.minutes).toBeGreaterThan(50);
    expect(parked.minutes).toBeLessThanOrEqual(60);
    expect(parked.reason).toMatch(
      new RegExp(
        `^its hourly budget of ${BUDGET} requests \\(REQUESTS_PER_HOUR\\) is spent down to the ${RESERVE} kept for actions, .*; its pulls are parked until \\S+ \\(its jobs go on\\)$`,
      ),
    );
    const before = await pulls();
    expect(before.length).toBeGreaterThan(0);
    expect(before.filter((run) => run.status === 'failed')).toEqual([]);

    // Its pull is due (as at every interval, or a SYNC_CRON tick), and jobs are queued: each is
    // claimed and run, and the pull stays parked.
    await sql`update account_leases set due_at = now()`.execute(db());
    const products = env.sandbox.store.list('products').map((record) => Number(record.id));
    for (const [i, product] of products.slice(0, 2).entries()) {
      const id = await insertJob(database.current.handle, 'set_product_stock', { id: product, stock: 30 + i });
      await waitFor('the job to run', async () => (await jobRow(database.current.handle, id)).status === 'succeeded');
      expect(env.sandbox.store.get('products', product)!.stock).toBe(30 + i);
    }
    expect(await pulls()).toEqual(before);
    expect(daemon.stderr().match(/budget spent: the account's pulls are parked/g)).toHaveLength(1);

    const status = await runCli(['status'], { env: database.current.env });
    expect(status.stdout).toMatch(/^- default: parked until \S+ \(its hourly budget of 18 requests/m);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  }, 60_000);
});
