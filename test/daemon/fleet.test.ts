/**
 * A fleet of daemons on one database: three daemons share many accounts through leases alone.
 * Every account is pulled and exact; no account ever has two requests in flight; a daemon killed
 * (SIGKILL) or stopped (SIGSTOP) longer than its lease has its accounts taken over by the others;
 * an account whose quota is spent is parked while the others stay fresh. The one end-to-end test of
 * the fleet (child processes, real signals); the rules it rests on are tested in-process in
 * test/fleet. It makes every account due at once where it would otherwise wait out an interval.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxEntity } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';
import { addSandboxAccounts } from '../support/sandbox.js';
import { fleetEnv, freshness as fleetFreshness, useDaemons, waitFor, type Daemon } from '../support/daemon.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const SECRET = 'a fleet test master secret, long enough';
const ACCOUNTS = 12;
const LEASE_SECONDS = 3;
const INTERVAL_SECONDS = 10;
const ENTITIES: SandboxEntity[] = ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'];
const KEY: Record<string, string> = { clients: 'clientnr' };

let sandbox: Sandbox;
const db = () => database.current.handle.db;

beforeAll(async () => {
  sandbox = await startSandbox({
    accounts: ACCOUNTS,
    seed: 5,
    latencyMs: 5,
    perEntity: { clients: 6, products: 5, quotations: 4, saved_invoices: 4, repeating_invoices: 2 },
  });
  // Account 1 is `default` (the settings: the sandbox's own credentials); the others are added.
  await addSandboxAccounts(db(), sandbox, SECRET, sandbox.accounts.slice(1));
});

afterAll(async () => {
  await sandbox?.close();
});

const startDaemon = useDaemons(() => ({
  ...fleetEnv(database.current.env, sandbox.url, SECRET, INTERVAL_SECONDS),
  LEASE_SECONDS: String(LEASE_SECONDS),
  ACCOUNT_CONCURRENCY: '4',
  DB_POOL_SIZE: '12',
  CONSOLE: 'false',
}));

const freshness = () => fleetFreshness(db());

/** Every account's pull due now, as SYNC_CRON's tick makes them: no interval waited out. */
async function allDue(): Promise<void> {
  await sql`update account_leases set due_at = now()`.execute(db());
}

/** Every account pulled (succeeded) since `since` seconds ago at most. */
async function allPulledWithin(seconds: number): Promise<boolean> {
  return [...(await freshness()).values()].every((age) => age <= seconds);
}

async function expectExact(): Promise<void> {
  const accounts = await db().selectFrom('accounts').select(['id', 'name']).orderBy('id').execute();
  for (const [i, account] of accounts.entries()) {
    const store = sandbox.accounts[i]!.store;
    for (const entity of ENTITIES) {
      const key = KEY[entity] ?? 'id';
      const { rows } = await sql<{ k: number }>`
        select ${sql.ref(key)} as k from ${sql.table(entity)} where account_id = ${account.id} and deleted_at is null order by 1`.execute(
        db(),
      );
      const upstream = store
        .list(entity)
        .map((record) => Number(record[key]))
        .sort((a, b) => a - b);
      expect(
        rows.map((row) => Number(row.k)),
        `${entity} of ${account.name}`,
      ).toEqual(upstream);
    }
  }
}

/** Whether the daemon holds a live lease on an account (it has work in flight). */
async function holding(daemon: Daemon): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from account_leases l join daemons d on d.id = l.daemon_id
     where d.pid = ${daemon.child.pid!} and l.leased_until > now()`.execute(db());
  return rows[0]!.n > 0;
}

function neverTwoAtOnce(): void {
  for (const slot of sandbox.accounts) expect(slot.maxConcurrency(), `account ${slot.index}`).toBeLessThanOrEqual(1);
}

describe('a fleet of daemons on one database', () => {
  // One story in three acts (the daemons are stopped after each test).
  it('three daemons share the accounts; a killed one and a stopped one leave theirs to the others; a spent quota parks only its account', async () => {
    const daemons = await Promise.all([startDaemon(), startDaemon(), startDaemon()]);
    await sharedAndExact();
    await takenOver(daemons);
    await parkedAlone();
  }, 240_000);
});

/** Act 1: every account is pulled and exact, one request per account at a time. */
async function sharedAndExact(): Promise<void> {
  {
    await waitFor('every account pulled', () => allPulledWithin(60), 60_000);
    await expectExact();
    neverTwoAtOnce();
    // The work was shared: more than one daemon pulled.
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from daemons where stopped_at is null`.execute(db());
    expect(rows[0]!.n).toBe(3);
  }
}

/** Act 2: a daemon killed mid-pull, and one stopped longer than its lease, leave their accounts to the others. */
async function takenOver(daemons: readonly Daemon[]): Promise<void> {
  {
    const [killed, stopped] = daemons;
    // Slow pulls, so that both have work in flight when they go.
    sandbox.knobs.latencyMs = 60;
    await allDue();
    await waitFor('both to hold accounts', async () => (await holding(killed!)) && (await holding(stopped!)), 30_000);
    killed!.child.kill('SIGKILL');
    stopped!.child.kill('SIGSTOP');
    const gone = performance.now();
    try {
      // Within a lease and an interval (plus the pulls' own time), every account is fresh again.
      await waitFor(
        'every account pulled again by the daemon left',
        async () => {
          const ages = await freshness();
          const since = (performance.now() - gone) / 1000;
          return [...ages.values()].every((age) => age < since);
        },
        (LEASE_SECONDS + INTERVAL_SECONDS) * 1000 + 40_000,
      );
      expect((performance.now() - gone) / 1000).toBeLessThan(LEASE_SECONDS + INTERVAL_SECONDS + 40);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from daemons where stopped_at is not null and stop_reason like 'no heartbeat%'`.execute(
        db(),
      );
      expect(rows[0]!.n).toBe(2);
    } finally {
      stopped!.child.kill('SIGCONT');
      sandbox.knobs.latencyMs = 5;
    }
    // The stopped daemon comes back: its sessions were ended, it starts again with nothing held.
    await waitFor('the stopped daemon to start again', async () =>
      stopped!.stderr().includes('found dead by the fleet'),
    );
    await allDue();
    await waitFor('every account pulled after that', () => allPulledWithin(INTERVAL_SECONDS + 20), 60_000);
    await expectExact();
    neverTwoAtOnce();
  }
}

/** Act 3: an account whose quota is spent is parked, and the others stay fresh. */
async function parkedAlone(): Promise<void> {
  {
    const spent = sandbox.accounts[2]!;
    spent.hourlyQuota = spent.calls.length; // the next call is a 403
    await waitFor(
      'the account to be parked',
      async () => {
        const { rows } = await sql<{ parked: boolean }>`
        select parked_until > now() as parked from account_leases l join accounts a on a.id = l.account_id
         where a.name = 'client-3'`.execute(db());
        return rows[0]?.parked === true;
      },
      30_000,
    );
    const started = performance.now();
    await allDue();
    await waitFor(
      'the other accounts to be pulled again meanwhile',
      async () => {
        const ages = await freshness();
        const parkedId = (
          await db().selectFrom('accounts').select('id').where('name', '=', 'client-3').executeTakeFirstOrThrow()
        ).id;
        const since = (performance.now() - started) / 1000;
        return [...ages.entries()].every(([id, age]) => id === parkedId || age < since);
      },
      40_000,
    );
    neverTwoAtOnce();
    // `status` says so: the daemons alive (the killed one is not), and the parked account with why.
    const status = await runCli(['status', '--account', 'client-3'], {
      env: { ...database.current.env, LEASE_SECONDS: String(LEASE_SECONDS) },
    });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Daemons: 2 daemons alive, /m);
    expect(status.stdout).toMatch(/^- client-3: parked until \S+ \(its hourly quota was spent \(403\); parked until/m);
    const list = await runCli(['accounts', 'list', '--format', 'json'], { env: database.current.env });
    const parked = (JSON.parse(list.stdout) as { name: string; parked_until: string | null; problems: string }[]).find(
      (row) => row.name === 'client-3',
    );
    expect(parked?.parked_until).not.toBeNull();
    expect(parked?.problems).toMatch(/^parked until /);
  }
}
