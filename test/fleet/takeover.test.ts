/**
 * Daemons of the fleet in one process, on one database and the sandbox: the first daemon leads;
 * a dead leader (its heartbeat and its lease run out, as after SIGKILL) is buried by the daemon
 * that takes the lead from it, and its accounts are claimed and pulled; a leader that stops hands
 * the lead over at the next heartbeat; /metrics says who leads and counts the duties' turns.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentLeader } from '../../src/fleet/leader.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { addSandboxAccounts } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';
import { nextEvent, useFleetDaemons } from './in-process.js';

const database = useTestDatabase();
const SECRET = 'a fleet test master secret, long enough';
const db = () => database.current.handle.db;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({
    accounts: 3,
    seed: 8,
    latencyMs: 2,
    perEntity: { clients: 3, products: 2, quotations: 1, saved_invoices: 1, repeating_invoices: 1 },
  });
  await addSandboxAccounts(db(), sandbox, SECRET, sandbox.accounts.slice(1));
});

afterAll(async () => {
  await sandbox?.close();
});

const startDaemon = useFleetDaemons(
  () => database.current,
  () => ({
    INVOICING_API_URL: sandbox.url,
    ACCOUNTS_SECRET: SECRET,
    SYNC_CRON: undefined,
    SYNC_INTERVAL: '10m',
    LEASE_SECONDS: '3',
    CONSOLE: 'false',
  }),
);

const accountIds = async () =>
  (await db().selectFrom('accounts').select('id').orderBy('id').execute()).map((row) => row.id);

describe('the leader of the fleet', () => {
  it('a daemon takes the lead from a dead one, buries it, and claims and pulls the accounts it held', async () => {
    const dead = 'invoice-mirror daemon dead:1:000000';
    await sql`insert into daemons (id, host, pid, version, heartbeat_at) values (${dead}, 'dead', 1, 'test', now() - interval '1 minute')`.execute(
      db(),
    );
    await sql`insert into fleet_leader (duty, daemon_id, expires_at) values ('maintenance', ${dead}, now() - interval '1 second')`.execute(
      db(),
    );
    await sql`update account_leases set daemon_id = ${dead}, leased_until = now() - interval '1 second', due_at = '-infinity'`.execute(
      db(),
    );
    const ids = await accountIds();
    const pulled = new Set<number>();
    let buried: string[] = [];
    let tookLead = false;
    let done!: () => void;
    const pulledAll = new Promise<void>((resolve) => (done = resolve));
    // Heard from its first moment: the lead, the burial, and each account given back after its pull.
    const { fleet, metrics } = await startDaemon({}, (fleet) => {
      fleet.on('leader taken', () => (tookLead = true));
      fleet.on('buried', (daemons) => (buried = daemons));
      fleet.on('released', (id) => {
        pulled.add(id);
        if (pulled.size === ids.length) done();
      });
    });
    await pulledAll;
    if (buried.length === 0) [buried] = await nextEvent(fleet, 'buried');
    expect(tookLead).toBe(true);
    expect(buried).toEqual([dead]);
    expect((await currentLeader(db()))?.daemonId).toBe(fleet.id);
    expect([...pulled].sort()).toEqual(ids);
    const { rows } = await sql<{ stop_reason: string }>`select stop_reason from daemons where id = ${dead}`.execute(
      db(),
    );
    expect(rows[0]!.stop_reason).toMatch(/^no heartbeat/);
    const text = await metrics.render();
    expect(text).toMatch(/^invoice_mirror_fleet_leader 1$/m);
    expect(text).toMatch(/^invoice_mirror_duty_runs_total\{duty="bury",outcome="ran"\} [1-9]/m);
    expect(text).toMatch(/^invoice_mirror_duty_runs_total\{duty="heartbeat",outcome="ran"\} [1-9]/m);
  });

  it('one of two daemons leads; when it stops the other takes the lead at its next heartbeat', async () => {
    const first = await startDaemon();
    const second = await startDaemon();
    // The first asked at its start with no live leader (the last test's gave the lead up as it stopped).
    expect(first.fleet.elector.leads).toBe(true);
    expect(second.fleet.elector.leads).toBe(false);
    const secondMetrics = await second.metrics.render();
    expect(secondMetrics).toMatch(/^invoice_mirror_fleet_leader 0$/m);
    // Maintenance is the leader's: the other daemon skips its turns.
    const taken = nextEvent(second.fleet, 'leader taken', undefined, 5000);
    const began = performance.now();
    await first.fleet.stop();
    await taken;
    // Within a heartbeat (a third of the 3-second lease), not a lease.
    expect(performance.now() - began).toBeLessThan(3000);
    expect((await currentLeader(db()))?.daemonId).toBe(second.fleet.id);
    expect(await second.metrics.render()).toMatch(/^invoice_mirror_fleet_leader 1$/m);
  });
});
