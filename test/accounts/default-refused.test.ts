/**
 * A 401 for `default`, whose credentials are each process's INVOICING_API_* settings, says
 * something about that process, not about the account (issue 41: one wrong key in a second
 * terminal set `default` to `refused` for every process, and the running daemon stopped serving
 * it). It fails that process's run with one line that says what to do (and that storing the key
 * needs ACCOUNTS_SECRET), and changes nothing shared: the account stays active, its jobs stay
 * queued with no attempt spent, and a daemon with the right key goes on serving it. A daemon
 * whose own key is refused leaves the account to others, without retrying at every claim. An
 * account's own stored key still refuses the account (test/jobs/accounts.test.ts,
 * test/sync/accounts.test.ts).
 */
import { resolveAccounts } from '../../src/accounts/resolve.js';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useDaemons, waitFor } from '../support/daemon.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({
  perEntity: { clients: 6, products: 6, quotations: 3, saved_invoices: 3, repeating_invoices: 2 },
});
const db = () => database.current.handle.db;
const base = () => ({
  ...database.current.env,
  // A URL on this machine: the sandbox's own credentials are implied, unless a key is given.
  INVOICING_API_URL: env.sandbox.url,
  INVOICING_API_USER: undefined,
  INVOICING_API_KEY: undefined,
  LOG_LEVEL: 'warn',
});
const WRONG = { INVOICING_API_KEY: 'not-the-key' };
const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
  runCli(args, { env: { ...base(), ...extra } });
const startDaemon = useDaemons(() => ({ ...base(), SYNC_CRON: undefined, SYNC_INTERVAL: '10s', LOG_LEVEL: 'info' }));

const REFUSED =
  "account default: the service refused the credentials of this process (INVOICING_API_USER and INVOICING_API_KEY, as the account has none of its own), so this run stops; nothing changed for the account or other processes: set them to the account's user and an active API key and run it again, or store the account's own with 'invoice-mirror accounts add default --api-user … --api-key-stdin' (that needs ACCOUNTS_SECRET, under which the key is then stored sealed)";

async function queueStock(id: number, stock: number): Promise<number> {
  const { rows } = await sql<{ id: number }>`
    insert into jobs (kind, payload) values ('set_product_stock', ${JSON.stringify({ id, stock })}::text::jsonb)
    returning id`.execute(db());
  return Number(rows[0]!.id);
}
const job = (id: number) => db().selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const unauthorized = () => env.sandbox.calls.filter((call) => call.status === 401).length;

describe('a 401 for default', () => {
  it('fails the sync and the jobs run of the process with the wrong key, and changes nothing shared', async () => {
    expect((await cli(['backfill'])).code).toBe(0);
    const id = await queueStock(1, 21);
    const sync = await cli(['sync'], WRONG);
    expect(sync.code).toBe(1);
    expect(sync.stdout).toContain(`\n${REFUSED}\n`);
    const run = await cli(['jobs', 'run'], WRONG);
    expect(run.code).toBe(1);
    // After the runner's own log line (an error: LOG_LEVEL is warn), the line for a person, then
    // the run's summary of the job it left queued.
    expect(run.stderr.split('\n').at(-3)).toBe(`invoice-mirror: ${REFUSED}; its jobs wait`);
    expect(run.stderr.split('\n').at(-2)).toMatch(/^invoice-mirror: 1 job not finished, still queued: 1 because /);
    const account = await resolveAccounts(db(), 'default', { one: true });
    expect({ state: account.state, reason: account.state_reason }).toEqual({ state: 'active', reason: null });
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 0 });
    expect((await job(id)).last_error).toMatch(
      /401 .*: the service refused the INVOICING_API_USER and INVOICING_API_KEY of the process that ran it; the job waits for a process whose key it accepts \(not counted as an attempt\)$/,
    );
    // The right key runs it at once.
    const right = await cli(['jobs', 'run']);
    expect(right.code).toBe(0);
    expect(env.sandbox.store.get('products', 1)?.stock).toBe(21);
  });

  it('a daemon with the right key goes on serving default while another terminal has the wrong one', async () => {
    const daemon = await startDaemon();
    const first = await queueStock(2, 31);
    await waitFor('the daemon to run the job', async () => (await job(first)).status === 'succeeded', 20_000);
    const wrong = await cli(['sync'], WRONG);
    expect(wrong.code).toBe(1);
    expect((await resolveAccounts(db(), 'default', { one: true })).state).toBe('active');
    const next = await queueStock(3, 41);
    await waitFor('the daemon to run the next job', async () => (await job(next)).status === 'succeeded', 20_000);
    expect(env.sandbox.store.get('products', 3)?.stock).toBe(41);
    const ready = await fetch(`${daemon.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(daemon.stderr()).not.toMatch(/refused/);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });

  it('a daemon whose own key is refused leaves default to others: nothing recorded, no retry at every claim', async () => {
    env.sandbox.clearCalls();
    const daemon = await startDaemon(WRONG);
    const id = await queueStock(4, 51);
    await waitFor('the daemon to try once', async () => unauthorized() > 0, 20_000);
    // Claims come every second; the account waits out SYNC_INTERVAL (10 s) before this daemon tries it again.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(unauthorized()).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 0 });
    expect((await resolveAccounts(db(), 'default', { one: true })).state).toBe('active');
    expect(daemon.stderr().match(/this daemon cannot serve the account/g)).toHaveLength(1);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    // Another daemon, with the right key, serves it.
    const right = await startDaemon();
    await waitFor('the right daemon to run the job', async () => (await job(id)).status === 'succeeded', 20_000);
    right.child.kill('SIGTERM');
    await right.exited;
  });
});
