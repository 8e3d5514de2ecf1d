/**
 * Clocks: the daemon keeps its schedule and its jobs going when the wall clock steps hours either
 * way (only Date is stepped, real timers run: the daemon runs in this process), and /healthz and
 * /readyz report a gate that holds its slot far longer than it should.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { startDaemon, type DaemonHandle } from '../../src/daemon/index.js';
import { serviceLock } from '../../src/db/index.js';
import { clientFor, useSandbox } from '../support/sandbox.js';
import { useDaemons, waitFor } from '../support/daemon.js';
import { useTestDatabase } from '../support/test-database.js';

const HOUR_MS = 3_600_000;
const database = useTestDatabase();
const env = useSandbox({ perEntity: { clients: 10, products: 10, quotations: 5, saved_invoices: 5 } });

async function syncsStarted(): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from sync_runs where kind = 'sync'`.execute(
    database.current.handle.db,
  );
  return rows[0]!.n;
}

async function queueStockJob(stock: number): Promise<number> {
  const id = Number(env.sandbox.store.list('products')[0]!.id);
  const { rows } = await sql<{ id: number }>`
    insert into jobs (kind, payload) values ('set_product_stock', ${JSON.stringify({ id, stock })}::text::jsonb)
    returning id`.execute(database.current.handle.db);
  return Number(rows[0]!.id);
}

async function jobOnceDone(id: number, what: string) {
  return waitFor(
    what,
    async () => {
      const job = await database.current.handle.db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where('id', '=', id)
        .executeTakeFirst();
      return job && job.status !== 'queued' && job.status !== 'running' ? job : undefined;
    },
    20_000,
  );
}

describe('a wall clock that steps', () => {
  let app: App | undefined;
  let daemon: DaemonHandle | undefined;
  afterEach(async () => {
    await daemon?.stop('test over');
    await app?.close();
    vi.useRealTimers();
  });

  it('neither stops nor bunches the scheduled syncs, nor holds back a job waiting out its backoff', async () => {
    app = await openApp(
      loadConfig({
        ...database.current.env,
        INVOICING_API_URL: env.sandbox.url,
        SYNC_CRON: '*/2 * * * * *',
        HEALTH_PORT: '0',
        CONSOLE: 'false',
        JOB_POLL_INTERVAL_MS: '600000',
        // A failed request fails the job at once, which then waits out its backoff (about 5 s).
        MAX_RETRIES: '0',
      }),
    );
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    daemon = await startDaemon(app);
    const first = await syncsStarted();
    await waitFor('two scheduled syncs', async () => (await syncsStarted()) >= first + 2, 20_000);

    // Back 2 h, forward 2 h (the true time again), forward 2 h more (ahead of the database).
    for (const [i, step] of [-2 * HOUR_MS, 2 * HOUR_MS, 2 * HOUR_MS].entries()) {
      const hours = `${step > 0 ? '+' : ''}${step / HOUR_MS} h`;
      const before = await syncsStarted();
      const since = performance.now();
      vi.setSystemTime(Date.now() + step);

      await waitFor(
        `two scheduled syncs after a step of ${hours}`,
        async () => (await syncsStarted()) >= before + 2,
        20_000,
      );
      env.sandbox.failNext('500', 1, { method: 'PUT', pathPrefix: '/products/' });
      const job = await jobOnceDone(await queueStockJob(20 + i), `the job after a step of ${hours}`);
      expect(job).toMatchObject({ status: 'succeeded', attempts: 2 });

      // No catch-up: at most one sync per period of the time that really passed, plus the one under way.
      const periods = (performance.now() - since) / 2000;
      expect((await syncsStarted()) - before).toBeLessThanOrEqual(Math.floor(periods) + 2);
      const health = await fetch(`${daemon.healthUrl}/healthz`);
      expect(await health.json()).toMatchObject({ status: 'ok', problems: [] });
    }
  }, 120_000);
});

describe('health reports a stalled gate', () => {
  const startChildDaemon = useDaemons(() => ({ ...database.current.env, INVOICING_API_URL: env.sandbox.url }));

  it('answers 503 with the reason while another process holds the service lock far past our deadline, then ok again', async () => {
    const daemon = await startChildDaemon({ REQUEST_TIMEOUT_MS: '1000', SEND_MS_PER_INVOICE: '0', CONSOLE: 'false' });
    const db = database.current.handle.db;
    await waitFor('the first sync', async () => {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from sync_runs where kind = 'sync' and status = 'succeeded'`.execute(db);
      return rows[0]!.n > 0;
    });
    // And the daemon idle: no pull due or under way (the test before may have left one due).
    await waitFor('the daemon to have nothing due', async () => {
      const { rows } = await sql<{ idle: boolean }>`
        select bool_and(daemon_id is null and due_at > now()) as idle from account_leases`.execute(db);
      return rows[0]!.idle === true;
    });

    // Another process (this one) with a long deadline sends a request the sandbox holds for 12 s,
    // under the service lock every process on the mirror takes for each request.
    env.sandbox.knobs.hangMs = 12_000;
    env.sandbox.failNext('hang', 1, { method: 'GET', pathPrefix: '/products/' });
    const other = clientFor(env.sandbox, {
      timeoutMs: 60_000,
      maxRetries: 0,
      exclusive: serviceLock(database.current.handle, database.current.accountId),
    });
    const held = other.getProduct(Number(env.sandbox.store.list('products')[0]!.id)).catch((error: unknown) => error);
    try {
      await waitFor('the held request', async () => env.sandbox.calls.some((c) => c.fault === 'hang'));
      const jobId = await queueStockJob(99);

      // The daemon's job waits for the lock far longer than its 1 s deadline (plus the margin).
      const stalled = await waitFor('/healthz to report the stall', async () => {
        const answer = await fetch(`${daemon.url}/healthz`);
        const report = (await answer.json()) as { problems: string[] };
        return answer.status === 503 ? report : undefined;
      });
      expect(stalled.problems).toEqual([
        expect.stringMatching(
          /^the API gate is stalled: PUT \/products\/\d+ has been waiting for the service lock \(another process holds it\) for \d+ s \(expected at most 2 s\)$/,
        ),
      ]);
      const readiness = await fetch(`${daemon.url}/readyz`);
      expect(readiness.status).toBe(503);
      expect(((await readiness.json()) as { problems: string[] }).problems[0]).toMatch(/^the API gate is stalled: /);

      // The held request ends (dropped), the lock passes on, the job runs, and health is ok again.
      expect(await held).toBeInstanceOf(Error);
      expect(await jobOnceDone(jobId, 'the job')).toMatchObject({ status: 'succeeded' });
      const healthy = await waitFor('/healthz to be ok again', async () => {
        const answer = await fetch(`${daemon.url}/healthz`);
        return answer.status === 200 ? ((await answer.json()) as { problems: string[] }) : undefined;
      });
      expect(healthy.problems).toEqual([]);
      expect((await fetch(`${daemon.url}/readyz`)).status).toBe(200);
    } finally {
      await held;
      await other.close();
    }
  }, 60_000);
});
