/**
 * A job a dead daemon left `running` is recovered without waiting for a claim of its account
 * (before, with nothing else of the account queued and its pull not due, it stayed `running` for
 * good, and `jobs retry` refuses running jobs): a send whose daemon was stopped (SIGSTOP) becomes
 * `interrupted` once the lease has run out and the daemon's sessions are ended, and a stock update
 * whose daemon was killed (SIGKILL) is queued again and run. The sweep touches a row only once the
 * job lock shows no live worker: while the stopped daemon still holds it, the send stays running.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { insertJob, jobRow } from '../jobs/helpers.js';
import { useDaemons, waitFor, type Daemon } from '../support/daemon.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({
  perEntity: { clients: 4, products: 4, quotations: 4, saved_invoices: 6, repeating_invoices: 2 },
});
const LEASE_SECONDS = 3;
const startDaemon = useDaemons(() => ({
  ...database.current.env,
  INVOICING_API_URL: env.sandbox.url,
  SYNC_CRON: undefined,
  // One pull at start, the next an hour later: no claim of the account for its pull meanwhile.
  SYNC_INTERVAL: '1h',
  LEASE_SECONDS: String(LEASE_SECONDS),
  SEND_MS_PER_INVOICE: '30000',
  CONSOLE: 'false',
}));

const handle = () => database.current.handle;

/** The account's first pull is done, its next not due for long, and no job queued: nothing brings a claim. */
async function idle(): Promise<void> {
  const lease = await waitFor(
    'the first pull, and the account given back',
    async () => {
      const { rows } = await sql<{ minutes: number; queued: number }>`
        select extract(epoch from due_at - now())::float8 / 60 as minutes,
               (select count(*)::int from jobs where status = 'queued') as queued
          from account_leases where daemon_id is null and due_at > now() and due_at < 'infinity'`.execute(handle().db);
      return rows[0];
    },
    30_000,
  );
  expect(lease.minutes).toBeGreaterThan(50);
  expect(lease.queued).toBe(0);
}

/** The daemon working on the account's job now (the holder of its lease), among those given. */
async function holder(daemons: readonly Daemon[]): Promise<Daemon> {
  const { rows } = await sql<{ pid: number }>`
    select d.pid from account_leases l join daemons d on d.id = l.daemon_id where l.leased_until > now()`.execute(
    handle().db,
  );
  const found = daemons.find((daemon) => daemon.child.pid === rows[0]?.pid);
  if (!found) throw new Error(`no daemon of the test holds the account (holder pid ${rows[0]?.pid})`);
  return found;
}

describe('orphaned running jobs', () => {
  it('a stopped daemon’s send becomes interrupted within the lease and a sweep; a killed one’s stock update runs again', async () => {
    const knobs = { sendMsPerInvoice: env.sandbox.knobs.sendMsPerInvoice, hangMs: env.sandbox.knobs.hangMs };
    env.sandbox.knobs.sendMsPerInvoice = 20_000;
    env.sandbox.knobs.hangMs = 20_000;
    try {
      const first = await startDaemon();
      await idle();
      const saved = Number(env.sandbox.store.list('saved_invoices')[0]!.id);
      const send = await insertJob(handle(), 'send_saved_invoices', { ids: [saved], delete: false });
      await waitFor('the send to be in flight', async () => {
        const job = await jobRow(handle(), send);
        return job.status === 'running' && JSON.stringify(job.result ?? {}).includes('"sending"');
      });
      first.child.kill('SIGSTOP');
      const stoppedAt = performance.now();
      const second = await startDaemon();
      // While the stopped daemon's session holds the job lock (its lease has not run out), the send is left alone.
      expect((await jobRow(handle(), send)).status).toBe('running');
      const interrupted = await waitFor(
        'the send to be recovered',
        async () => {
          const job = await jobRow(handle(), send);
          return job.status === 'running' ? undefined : job;
        },
        30_000,
      );
      const seconds = (performance.now() - stoppedAt) / 1000;
      expect(interrupted.status).toBe('interrupted');
      expect(interrupted.last_error).toMatch(/may have been sent/);
      // Once the stopped daemon's last heartbeat is a lease old; within that, a heartbeat to find it
      // dead, and the second daemon's start.
      expect(seconds).toBeGreaterThan(LEASE_SECONDS - 1);
      expect(seconds).toBeLessThan(LEASE_SECONDS + 15);
      await waitFor('the sweep to say so', async () =>
        second.stderr().includes('recovered a job left running by a worker that stopped'),
      );
      first.child.kill('SIGKILL');

      // An idempotent job whose daemon is killed during its call: queued again, and run.
      const third = await startDaemon();
      const product = Number(env.sandbox.store.list('products')[0]!.id);
      env.sandbox.failNext('hang', 1, { method: 'PUT', pathPrefix: `/products/${product}` });
      const stock = await insertJob(handle(), 'set_product_stock', { id: product, stock: 44 });
      await waitFor('the update to be in flight', async () =>
        env.sandbox.calls.some((call) => call.method === 'PUT' && call.fault === 'hang'),
      );
      const running = await holder([second, third]);
      running.child.kill('SIGKILL');
      const done = await waitFor(
        'the update to be run again',
        async () => {
          const job = await jobRow(handle(), stock);
          return job.status === 'succeeded' ? job : undefined;
        },
        30_000,
      );
      // The attempt the dead worker lost is recorded, and (as for any orphan of a kind safe to repeat) not counted.
      expect(done.errors).toEqual([
        expect.objectContaining({
          outcome: 'retry',
          error: expect.stringMatching(/^the worker stopped during attempt 1/),
        }),
      ]);
      expect(env.sandbox.store.get('products', product)!.stock).toBe(44);
    } finally {
      Object.assign(env.sandbox.knobs, knobs);
    }
  }, 120_000);
});
