/**
 * /healthz is liveness: one account's trouble (a key the service refused, a failed or stale pull)
 * never fails it, so that a liveness probe does not restart the daemon of every account for it;
 * that trouble is in the body of /healthz and /readyz (`accountProblems`) and in /metrics.
 * /readyz fails when the daemon gets nothing done: every served account stale (not one of them).
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { checkHealth, checkReadiness } from '../../src/daemon/health.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { addSandboxAccounts } from '../support/sandbox.js';
import { fleetEnv, useDaemons, waitFor } from '../support/daemon.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const PERIOD_MS = 15 * 60_000;
const SECRET = 'a liveness test master secret, long enough';
const db = () => database.current.handle.db;

/** No account and no run: each test makes its own. */
async function reset(): Promise<void> {
  await sql`delete from sync_runs`.execute(db());
  await sql`delete from accounts`.execute(db());
}

/** Two accounts, each with one pull that finished `minutesAgo` ago with `status`. */
async function twoAccounts(runs: Record<string, [status: string, minutesAgo: number]>): Promise<void> {
  await reset();
  for (const [name, [status, minutesAgo]] of Object.entries(runs)) {
    const { rows } = await sql<{ id: number }>`
      insert into accounts (name, created_at) values (${name}, now() - interval '1 day') returning id`.execute(db());
    await sql`insert into sync_runs (account_id, kind, status, entities, started_at, finished_at)
      values (${rows[0]!.id}, 'sync', ${status}, '{}', now() - make_interval(mins => ${minutesAgo + 1}),
              now() - make_interval(mins => ${minutesAgo}))`.execute(db());
  }
}

const options = () => ({ periodMs: PERIOD_MS, startedAt: performance.now() - 10 * PERIOD_MS });

describe('liveness and readiness of a daemon of several accounts', () => {
  it("one account's failed, stale or refused pulls fail neither; they are each account's problems", async () => {
    await twoAccounts({ fresh: ['succeeded', 5], stale: ['failed', 200] });
    await sql`update accounts set state = 'refused', state_reason = '401 on 2026-11-25' where name = 'fresh'`.execute(
      db(),
    );
    await sql`insert into accounts (name) values ('third')`.execute(db());
    await sql`insert into sync_runs (account_id, kind, status, entities, started_at, finished_at)
      select id, 'sync', 'succeeded', '{}', now() - interval '2 minutes', now() - interval '1 minute'
        from accounts where name = 'third'`.execute(db());
    const health = await checkHealth(db(), options());
    expect(health.status).toBe('ok');
    expect(health.problems).toEqual([]);
    expect(health.accountProblems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^account fresh: /),
        expect.stringMatching(/^account stale: the last sync \(run \d+\) failed$/),
        expect.stringMatching(/^account stale: no sync has succeeded in three schedule periods$/),
      ]),
    );
    const readiness = await checkReadiness(db(), options());
    expect(readiness).toMatchObject({ ready: true, problems: [] });
  });

  it('not ready once every served account is stale, naming each', async () => {
    await twoAccounts({ a: ['succeeded', 200], b: ['succeeded', 300] });
    const readiness = await checkReadiness(db(), options());
    expect(readiness.ready).toBe(false);
    expect(readiness.problems).toEqual([
      expect.stringMatching(/^account a: the mirror is stale: /),
      expect.stringMatching(/^account b: the mirror is stale: /),
    ]);
    expect((await checkHealth(db(), options())).status).toBe('ok');
  });
});

describe('a fleet daemon with one refused key', () => {
  const startDaemon = useDaemons(() => ({}));

  it('answers /healthz and /readyz 200, with the refused account in their bodies and in /metrics', async () => {
    await reset();
    const sandbox = await startSandbox({
      accounts: 2,
      seed: 3,
      perEntity: { clients: 3, products: 3, quotations: 2, saved_invoices: 2, repeating_invoices: 1 },
    });
    try {
      await addSandboxAccounts(db(), sandbox, SECRET);
      sandbox.accounts[1]!.refuseKey();
      const daemon = await startDaemon({
        ...fleetEnv(database.current.env, sandbox.url, SECRET, 10),
        CONSOLE: 'false',
      });
      await waitFor('client-2 to be refused and client-1 pulled', async () => {
        const { rows } = await sql<{ refused: boolean; pulled: boolean }>`
          select exists (select from accounts where name = 'client-2' and state = 'refused') as refused,
                 exists (select from sync_runs r join accounts a on a.id = r.account_id
                          where a.name = 'client-1' and r.status = 'succeeded') as pulled`.execute(db());
        return rows[0]!.refused && rows[0]!.pulled;
      });
      const health = await fetch(`${daemon.url}/healthz`);
      const report = (await health.json()) as { status: string; problems: string[]; accountProblems: string[] };
      expect(health.status).toBe(200);
      expect(report.status).toBe('ok');
      expect(report.problems).toEqual([]);
      expect(report.accountProblems).toEqual([expect.stringMatching(/^account client-2: .*401/)]);
      const ready = await fetch(`${daemon.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        ready: true,
        problems: [],
        accountProblems: [expect.stringMatching(/^account client-2: /)],
      });
      const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
      expect(metrics).toMatch(/^invoice_mirror_attention\{account="client-2",kind="account_refused"\} 1$/m);
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});
