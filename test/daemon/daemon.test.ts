import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useDaemons, waitFor } from '../support/daemon.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({
  perEntity: { clients: 40, products: 40, quotations: 40, saved_invoices: 40, repeating_invoices: 20 },
  sendMsPerInvoice: 50,
});
const startDaemon = useDaemons(() => ({ ...database.current.env, INVOICING_API_URL: env.sandbox.url }));

describe('invoice-mirror daemon', () => {
  it('syncs at start, runs a job inserted by plain SQL at once, answers /healthz and /metrics, and stops cleanly', async () => {
    const { db } = database.current.handle;
    const daemon = await startDaemon();
    await waitFor(
      'the first sync',
      async () =>
        (await db
          .selectFrom('sync_runs')
          .select('status')
          .where('kind', '=', 'sync')
          .where('status', '=', 'succeeded')
          .executeTakeFirst()) ?? false,
    );

    const product = Number(env.sandbox.store.list('products')[0]!.id);
    const inserted = await sql<{ id: number; created_at: Date }>`
      insert into jobs (kind, payload) values ('set_product_stock', ${JSON.stringify({ id: product, stock: 7 })}::text::jsonb) returning id, created_at`.execute(
      db,
    );
    const jobId = inserted.rows[0]!.id;
    const done = await waitFor('the job', async () => {
      const job = await db
        .selectFrom('jobs')
        .select(['status', 'started_at', 'created_at'])
        .where('id', '=', jobId)
        .executeTakeFirst();
      return job?.status === 'succeeded' ? job : undefined;
    });
    // Picked up long before the 10-minute poll: NOTIFY woke the runner.
    expect(done.started_at!.getTime() - done.created_at.getTime()).toBeLessThan(2000);
    expect(env.sandbox.store.get('products', product)!.stock).toBe(7);

    const health = await fetch(`${daemon.url}/healthz`);
    expect(health.status).toBe(200);
    const report = (await health.json()) as {
      status: string;
      database: string;
      lastSync: { status: string };
      queue: Record<string, number>;
    };
    expect(report).toMatchObject({
      status: 'ok',
      database: 'ok',
      lastSync: { status: 'succeeded' },
      queue: { succeeded: 1 },
    });

    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(metrics).toMatch(/^invoice_mirror_jobs\{account="default",status="succeeded"\} 1$/m);
    expect(metrics).toMatch(/^invoice_mirror_sync_runs_total\{account="default",kind="sync",status="succeeded"\} 1$/m);
    expect(metrics).toMatch(
      /^invoice_mirror_last_sync_records\{account="default",entity="clients",outcome="fetched"\} 40$/m,
    );
    expect(metrics).toMatch(
      /^invoice_mirror_api_requests_total\{account="default",method="GET",endpoint="\/clients",status="200"\} \d+$/m,
    );
    expect(metrics).toMatch(
      /^invoice_mirror_api_requests_total\{account="default",method="PUT",endpoint="\/products\/\{id\}",status="200"\} 1$/m,
    );
    expect(metrics).toMatch(/^invoice_mirror_rate_limit_remaining\{account="default"\} \d+$/m);
    expect(metrics).toMatch(/^invoice_mirror_build_info\{version="\d+\.\d+\.\d+",node_version="v\d+\.\d+\.\d+"\} 1$/m);
    expect(metrics).toMatch(
      /^invoice_mirror_last_sync_success_timestamp_seconds\{account="default"\} \d{10}(\.\d+)?$/m,
    );
    expect(metrics).toMatch(/^invoice_mirror_fleet\{what="daemons_alive"\} 1$/m);
    expect(metrics).toMatch(/^invoice_mirror_fleet\{what="accounts_overdue"\} 0$/m);
    expect(metrics).toMatch(/^process_cpu_user_seconds_total /m);
    expect(metrics).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(metrics).not.toMatch(/NaN/);
    // Times are timestamps (an age goes stale between scrapes), but for the spread of the
    // accounts' freshness: a distribution over accounts has no timestamp to give.
    expect(metrics.replace(/^.*invoice_mirror_account_pull_age_seconds.*$/gm, '')).not.toMatch(/_age_seconds/);
    expect(metrics).toMatch(/^invoice_mirror_account_pull_age_seconds_count 1$/m);
    expect((await fetch(`${daemon.url}/livez`)).status).toBe(200);
    const ready = await fetch(`${daemon.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, problems: [] });
    expect(metrics).toMatch(
      /^invoice_mirror_job_duration_seconds_count\{account="default",kind="set_product_stock"\} 1$/m,
    );
    expect((await fetch(`${daemon.url}/nothing`)).status).toBe(404);
    const consolePage = await fetch(`${daemon.url}/`); // the web console beside them
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toContain('<h1>Overview</h1>');

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(daemon.stderr()).toContain('daemon stopped');
  });

  it('lets the send in progress finish on SIGTERM, then exits 0', async () => {
    const { db } = database.current.handle;
    env.sandbox.knobs.sendMsPerInvoice = 800;
    try {
      const daemon = await startDaemon();
      const ids = env.sandbox.store
        .list('saved_invoices')
        .slice(0, 2)
        .map((r) => Number(r.id));
      const inserted = await sql<{ id: number }>`
        insert into jobs (kind, payload) values ('send_saved_invoices', ${JSON.stringify({ ids, delete: false })}::text::jsonb) returning id`.execute(
        db,
      );
      const jobId = inserted.rows[0]!.id;
      await waitFor('the send to start', async () =>
        env.sandbox.calls.some((c) => c.method === 'POST' && c.endedAt === Infinity),
      );
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
      const job = await db
        .selectFrom('jobs')
        .select(['status', 'result'])
        .where('id', '=', jobId)
        .executeTakeFirstOrThrow();
      expect(job.status).toBe('succeeded');
      const sends = env.sandbox.calls.filter((c) => c.method === 'POST');
      expect(sends.at(-1)!.status).toBe(200);
    } finally {
      env.sandbox.knobs.sendMsPerInvoice = 50;
    }
  });

  it('two daemons on one database never run two syncs or two jobs at once, nor call the service at once', async () => {
    const { db } = database.current.handle;
    // Every minute would be slow; start both behind schedule so both try to sync at start.
    await db.deleteFrom('sync_runs').execute();
    await sql`update account_leases set due_at = '-infinity'`.execute(db);
    env.sandbox.knobs.latencyMs = 20;
    env.sandbox.clearCalls();
    try {
      const [a, b] = await Promise.all([startDaemon(), startDaemon()]);
      const products = env.sandbox.store
        .list('products')
        .slice(0, 6)
        .map((r) => Number(r.id));
      for (const [i, id] of products.entries()) {
        await sql`insert into jobs (kind, payload) values ('set_product_stock', ${JSON.stringify({ id, stock: 100 + i })}::text::jsonb)`.execute(
          db,
        );
      }
      await waitFor('all jobs', async () => {
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from jobs where status = 'queued' or status = 'running'`.execute(db);
        return rows[0]!.n === 0;
      });
      // Jobs go before the account's pull: the queue can drain before either daemon has synced.
      await waitFor('a sync run', async () => {
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from sync_runs where kind = 'sync' and finished_at is not null`.execute(db);
        return rows[0]!.n > 0;
      });
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      expect(await a.exited).toBe(0);
      expect(await b.exited).toBe(0);

      const runs = await db
        .selectFrom('sync_runs')
        .select(['started_at', 'finished_at'])
        .where('kind', '=', 'sync')
        .orderBy('started_at')
        .execute();
      expect(runs.length).toBeGreaterThanOrEqual(1);
      for (let i = 1; i < runs.length; i++)
        expect(runs[i]!.started_at.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.finished_at!.getTime());
      const jobs = await db
        .selectFrom('jobs')
        .select(['started_at', 'finished_at', 'status'])
        .where('kind', '=', 'set_product_stock')
        .where('status', '=', 'succeeded')
        .orderBy('started_at')
        .execute();
      expect(jobs.length).toBeGreaterThanOrEqual(6);
      for (let i = 1; i < jobs.length; i++)
        expect(jobs[i]!.started_at!.getTime()).toBeGreaterThanOrEqual(jobs[i - 1]!.finished_at!.getTime());
      // And the service saw every call, syncs' and jobs' of both daemons, one at a time.
      expect(env.sandbox.calls.filter((c) => c.method === 'PUT').length).toBeGreaterThanOrEqual(6);
      expect(env.sandbox.maxConcurrency()).toBe(1);
    } finally {
      env.sandbox.knobs.latencyMs = 0;
    }
  });

  it('status prints the last runs, the mirror, the queue and the rate-limit budget', async () => {
    const text = await runCli(['status'], { env: { ...database.current.env, INVOICING_API_URL: env.sandbox.url } });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Last sync runs');
    expect(text.stdout).toMatch(/products\s+40\s+0/);
    expect(text.stdout).toMatch(/Rate limit: [\d,]+ requests? left this hour, as seen \d+ (s|min) ago \(\d{4}-/);
    expect(text.stdout).toMatch(/^\s*\d+\s+\d+ (s|min) ago\s+refresh\s+succeeded/m); // ages, not timestamps
    expect(text.stdout).toMatch(/^Mirror in the database at .+, schema /);
    const json = await runCli(['status', '--json'], { env: database.current.env });
    const parsed = JSON.parse(json.stdout) as {
      runs: unknown[];
      mirror: Array<{ table: string; live: number }>;
      queue: Array<{ status: string; jobs: number }>;
      rateLimit: { remaining: number };
    };
    expect(parsed.mirror.find((m) => m.table === 'clients')!.live).toBe(40);
    expect(parsed.queue.find((q) => q.status === 'succeeded')!.jobs).toBeGreaterThanOrEqual(7);
    expect(parsed.rateLimit.remaining).toBeGreaterThan(0);
  });
});
