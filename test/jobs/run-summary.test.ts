/**
 * What a run of the queue says about what it did: it counts jobs, not attempts (a job retried
 * within the run counts once, by its last outcome); `jobs run` exits 1 when jobs it tried are left
 * queued, saying in one line how many and why; a send the service could not be reached for is
 * shown as that ("not sent: the service could not be reached"), not as refused, by `jobs show` and
 * the console's job page.
 */
import { describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../src/console/index.js';
import type { JobFinished } from '../../src/jobs/index.js';
import { runCli } from '../support/cli.js';
import { insertJob, jobRow, useJobsEnv } from './helpers.js';

const env = useJobsEnv();

describe('a run of the queue', () => {
  it('counts jobs, not attempts: a job retried within the run counts once', async () => {
    const handle = env.database.current.handle;
    const retried = await insertJob(handle, 'set_product_stock', { id: 1, stock: 11 });
    const others = [
      await insertJob(handle, 'set_product_stock', { id: 2, stock: 12 }),
      await insertJob(handle, 'set_product_stock', { id: 3, stock: 13 }),
      await insertJob(handle, 'set_product_stock', { id: 4, stock: 14 }),
    ];
    // The first job's first attempt fails (the client's three tries); its retry is due before the
    // others are done (they take a while each), so it runs again in the same run.
    env.box.sandbox.failNext('500', 3, { method: 'PUT', pathPrefix: '/products/1' });
    env.box.sandbox.knobs.latencyMs = 150;
    const runner = env.runner();
    const attempts: JobFinished[] = [];
    runner.on('finished', (job) => attempts.push(job));
    try {
      const ran = await runner.runUntilEmpty();
      const jobs = new Set(attempts.map((job) => job.id));
      expect(attempts.filter((job) => job.id === retried).map((job) => job.status)).toEqual(['queued', 'succeeded']);
      expect(attempts.length).toBeGreaterThan(jobs.size);
      expect(ran).toEqual({ ran: jobs.size, failed: 0 });
      expect([...jobs].sort((a, b) => a - b)).toEqual([retried, ...others]);
    } finally {
      env.box.sandbox.knobs.latencyMs = 0;
    }
  });

  it('jobs run: exits 1 with one line saying how many are left queued and why; a send not sent for a network failure says so', async () => {
    const handle = env.database.current.handle;
    const saved = env.box.sandbox.store
      .list('saved_invoices')
      .slice(0, 2)
      .map((record) => Number(record.id));
    const send = await insertJob(handle, 'send_saved_invoices', { ids: saved, delete: false });
    const stock = await insertJob(handle, 'set_product_stock', { id: 5, stock: 15 });
    // The service is gone (the last test of the file): every call is refused before anything is sent.
    await env.box.sandbox.close();
    const runEnv = { ...env.database.current.env, INVOICING_API_URL: env.box.sandbox.url, MAX_RETRIES: '0' };
    const result = await runCli(['jobs', 'run'], { env: runEnv });
    expect(result.code, result.stderr).toBe(1);
    const attempted = new Set([...result.stdout.matchAll(/^job (\d+) \w+: /gm)].map((m) => Number(m[1])));
    expect([...attempted].sort((a, b) => a - b)).toEqual([send, stock]);
    expect(result.stdout).toContain(
      `ran ${attempted.size} jobs: 0 succeeded, 0 failed, 0 interrupted, ${attempted.size} to be retried later\n`,
    );
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^invoice-mirror: ${attempted.size} jobs not finished, still queued: ${attempted.size} because the service could not be reached \\(.*ECONNREFUSED.*\\); they run once due`,
      ),
    );
    for (const id of attempted) expect((await jobRow(handle, id)).status).toBe('queued');

    const show = await runCli(['jobs', 'show', String(send)], { env: env.database.current.env });
    expect(show.stdout).toContain(`ids by state:\n  not sent: the service could not be reached: ${saved.join(', ')}\n`);
    expect(show.stdout).not.toContain('refused');
    const console = createConsoleApp({ db: handle.db, settings: consoleSettings, maxAttempts: 1, worker: true });
    const page = await (await console.request(`/jobs/${send}`)).text();
    expect(page).toContain(`<td>not sent: the service could not be reached</td><td>${saved.join(', ')}</td>`);
    expect(page).toContain(
      '<span class="badge failed">failed</span> <span class="muted">the service could not be reached</span>',
    );
    expect(page).not.toContain('refused (not sent)');
  });
});

const consoleSettings = { inDaemon: false, user: 'admin', password: undefined, token: undefined };
