/**
 * The claim and lease rules of the fleet (src/fleet/leases.ts), in-process against the database,
 * with the database's clock moved by updating the rows instead of waiting: what is claimed, by whom,
 * in which order; what a heartbeat renews and what it finds lost; who is buried.
 */
import { sql } from 'kysely';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  buryDeadDaemons,
  claimDue,
  heartbeat,
  msUntilNextDue,
  park,
  registerDaemon,
  release,
  unregisterDaemon,
} from '../../src/fleet/leases.js';
import { addAccounts, resetLeases } from '../support/leases.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const db = () => database.current.handle.db;
const ids: number[] = [];
const identity = (id: string) => ({ id, host: 'test', pid: 1 });

beforeAll(async () => {
  ids.push(...(await addAccounts(db(), 'claims', 6)));
});

// Only the test's accounts are due, oldest first by their index; `default` never.
beforeEach(() => resetLeases(db(), ids, ['a', 'b']));

const holders = async () => {
  const { rows } = await sql<{ account_id: number; daemon_id: string | null }>`
    select account_id, daemon_id from account_leases where account_id = any(${ids}::int[]) order by account_id`.execute(
    db(),
  );
  return new Map(rows.map((row) => [Number(row.account_id), row.daemon_id]));
};

/**
 * A person's session: a job of the account queued in a transaction left open (the jobs trigger
 * locks the account's lease row until it ends). Resolves once the job is queued.
 */
async function jobQueuedInOpenTransaction(accountId: number): Promise<{ commit: () => Promise<void> }> {
  let end!: () => void;
  const open = new Promise<void>((resolve) => {
    end = resolve;
  });
  let queued!: () => void;
  const jobQueued = new Promise<void>((resolve) => {
    queued = resolve;
  });
  const session = db()
    .transaction()
    .execute(async (trx) => {
      await sql`insert into jobs (kind, payload, account_id) values ('delete_client', '{"clientnr": 5}', ${accountId})`.execute(
        trx,
      );
      queued();
      await open;
    });
  await jobQueued;
  return {
    commit: () => {
      end();
      return session;
    },
  };
}

/** What `work` gives, or 'waited' when it takes longer than `seconds`. */
const withinSeconds = <T>(seconds: number, work: Promise<T>) =>
  Promise.race([work, new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), seconds * 1000))]);

describe('claiming', () => {
  it('takes the most overdue first, up to the limit, and leases them to the claimer', async () => {
    const claimed = await claimDue(db(), 'daemon a', 2, 30);
    expect(claimed).toEqual([
      { accountId: ids[0], pullDue: true },
      { accountId: ids[1], pullDue: true },
    ]);
    const held = await holders();
    expect([held.get(ids[0]!), held.get(ids[1]!), held.get(ids[2]!)]).toEqual(['daemon a', 'daemon a', null]);
    expect(await claimDue(db(), 'daemon a', 0, 30)).toEqual([]);
  });

  it('daemons claiming at the same moment never take the same account', async () => {
    const rounds = await Promise.all(
      ['a', 'b', 'c', 'd'].map((name) => claimDue(database.current.handle.db, `daemon ${name}`, 2, 30)),
    );
    const taken = rounds.flat().map((item) => item.accountId);
    expect(new Set(taken).size).toBe(taken.length);
    // Skipped rows are left to the next claim, never waited for: all six, or those not locked meanwhile.
    expect(taken.length).toBeGreaterThanOrEqual(6);
    expect(taken.every((id) => ids.includes(id))).toBe(true);
  });

  it('leaves a live lease of another daemon alone, takes one run out, and one of its own it no longer works on', async () => {
    await claimDue(db(), 'daemon a', 6, 30);
    expect(await claimDue(db(), 'daemon b', 6, 30)).toEqual([]);
    // Still working on the first: the others it holds but dropped are free to it again.
    const again = await claimDue(db(), 'daemon a', 6, 30, [ids[0]!]);
    expect(again.map((item) => item.accountId)).toEqual(ids.slice(1));
    await sql`update account_leases set leased_until = now() - interval '1 second' where account_id = ${ids[0]}`.execute(
      db(),
    );
    expect((await claimDue(db(), 'daemon b', 6, 30)).map((item) => item.accountId)).toEqual([ids[0]]);
  });

  it('skips the accounts set aside, the parked ones, and those whose pull is not due unless a job waits', async () => {
    await park(db(), ids[0]!, 60_000, 'quota spent');
    await park(db(), ids[1]!, 60_000, 'budget kept for actions', true);
    await sql`update account_leases set due_at = now() + interval '1 hour' where account_id = ${ids[3]}`.execute(db());
    await db()
      .insertInto('jobs')
      .values([
        { account_id: ids[1]!, kind: 'set_product_stock', payload: JSON.stringify({ id: 1, stock: 1 }) },
        { account_id: ids[3]!, kind: 'set_product_stock', payload: JSON.stringify({ id: 1, stock: 1 }) },
      ] as never)
      .execute();
    const claimed = await claimDue(db(), 'daemon a', 6, 30, [], [ids[2]!]);
    // Pulls-only parked: claimed for its job, its pull not due; not due but a job waits: claimed for the job.
    expect(claimed).toEqual(
      expect.arrayContaining([
        { accountId: ids[1], pullDue: false },
        { accountId: ids[3], pullDue: false },
        { accountId: ids[4], pullDue: true },
        { accountId: ids[5], pullDue: true },
      ]),
    );
    expect(claimed.map((item) => item.accountId)).not.toContain(ids[0]);
    expect(claimed.map((item) => item.accountId)).not.toContain(ids[2]);
    expect(claimed).toHaveLength(4);
  });

  it('gives an account back with its next pull due an interval later, at once behind the others, or as it was', async () => {
    await claimDue(db(), 'daemon a', 3, 30);
    await release(db(), 'daemon a', ids[0]!, 'interval', 600_000);
    await release(db(), 'daemon a', ids[1]!, 'now', 600_000);
    await release(db(), 'daemon a', ids[2]!, null, 600_000);
    // Not its own: a release by another daemon changes nothing.
    await release(db(), 'daemon b', ids[3]!, 'interval', 600_000);
    const { rows } = await sql<{ account_id: number; later: boolean; due_now: boolean; held: boolean }>`
      select account_id, due_at > now() + interval '9 minutes' as later, due_at <= now() as due_now, daemon_id is not null as held
        from account_leases where account_id = any(${ids.slice(0, 4)}::int[]) order by account_id`.execute(db());
    expect(rows.map(({ later, due_now, held }) => ({ later, due_now, held }))).toEqual([
      { later: true, due_now: false, held: false },
      { later: false, due_now: true, held: false },
      { later: false, due_now: true, held: false },
      { later: false, due_now: true, held: false },
    ]);
    // Given way (`now`): behind every account already waiting.
    const next = await claimDue(db(), 'daemon b', 6, 30);
    expect(next.map((item) => item.accountId).at(-1)).toBe(ids[1]);
  });

  it('counts the interval from the start of the pull: one that took 4 minutes of 10 is due 6 minutes after it ended', async () => {
    await claimDue(db(), 'daemon a', 1, 30);
    await release(db(), 'daemon a', ids[0]!, 'interval', 600_000, 240_000);
    const { rows } = await sql<{ minutes: number }>`
      select extract(epoch from due_at - now())::float8 / 60 as minutes from account_leases where account_id = ${ids[0]!}`.execute(
      db(),
    );
    expect(rows[0]!.minutes).toBeGreaterThan(5.9);
    expect(rows[0]!.minutes).toBeLessThanOrEqual(6);
  });

  it('says how long until the next account falls due, if it does within the time asked, for a claim then', async () => {
    // Every test account is due already, `default` never: nothing is to come.
    expect(await msUntilNextDue(db(), 10_000)).toBeNull();
    await sql`update account_leases set due_at = now() + interval '4 seconds' where account_id = ${ids[0]!}`.execute(
      db(),
    );
    await sql`update account_leases set due_at = now() + interval '7 seconds' where account_id = ${ids[1]!}`.execute(
      db(),
    );
    const ms = await msUntilNextDue(db(), 10_000);
    expect(ms).toBeGreaterThan(1000);
    expect(ms).toBeLessThanOrEqual(4000);
    expect(await msUntilNextDue(db(), 1000), 'not within a second').toBeNull();
  });
});

describe('the heartbeat and the dead', () => {
  it('renews the others at once while a transaction that queued a job of one account stays open, and keeps that one', async () => {
    await claimDue(db(), 'daemon a', 2, 30);
    await sql`update account_leases set leased_until = now() + interval '1 second' where account_id = any(${ids.slice(0, 2)}::int[])`.execute(
      db(),
    );
    const person = await jobQueuedInOpenTransaction(ids[0]!);
    try {
      const beat = await withinSeconds(5, heartbeat(db(), 'daemon a', [ids[0]!, ids[1]!], 30));
      expect(beat).toEqual({ lost: [], declaredDead: false });
      const { rows } = await sql<{ account_id: number; renewed: boolean }>`
        select account_id, leased_until > now() + interval '20 seconds' as renewed from account_leases
         where account_id = any(${ids.slice(0, 2)}::int[]) order by account_id`.execute(db());
      expect(rows.map((row) => row.renewed)).toEqual([false, true]);
    } finally {
      await person.commit();
    }
    expect(await heartbeat(db(), 'daemon a', [ids[0]!, ids[1]!], 30)).toEqual({ lost: [], declaredDead: false });
  });

  it('renews the leases held, reports those taken over, and says when the fleet found the daemon dead', async () => {
    await claimDue(db(), 'daemon a', 2, 30);
    await sql`update account_leases set leased_until = now() + interval '1 second' where account_id = ${ids[0]}`.execute(
      db(),
    );
    // Another daemon took the second over (its lease had run out).
    await sql`update account_leases set daemon_id = 'daemon b' where account_id = ${ids[1]}`.execute(db());
    const beat = await heartbeat(db(), 'daemon a', [ids[0]!, ids[1]!], 30);
    expect(beat).toEqual({ lost: [ids[1]], declaredDead: false });
    const { rows } = await sql<{ renewed: boolean }>`
      select leased_until > now() + interval '20 seconds' as renewed from account_leases where account_id = ${ids[0]}`.execute(
      db(),
    );
    expect(rows[0]!.renewed).toBe(true);

    await sql`update daemons set heartbeat_at = now() - interval '31 seconds' where id = 'daemon a'`.execute(db());
    expect(await buryDeadDaemons(db(), 30)).toEqual(['daemon a']);
    expect(await buryDeadDaemons(db(), 30)).toEqual([]);
    expect((await heartbeat(db(), 'daemon a', [], 30)).declaredDead).toBe(true);
    await registerDaemon(db(), identity('daemon a'), 'test');
    expect((await heartbeat(db(), 'daemon a', [], 30)).declaredDead).toBe(false);
  });

  it('buries only daemons whose heartbeat is older than the lease, and ends their database sessions', async () => {
    await sql`update daemons set heartbeat_at = now() - interval '29 seconds' where id = 'daemon b'`.execute(db());
    expect(await buryDeadDaemons(db(), 30)).toEqual([]);
    await sql`update daemons set heartbeat_at = now() - interval '31 seconds' where id = 'daemon b'`.execute(db());
    expect(await buryDeadDaemons(db(), 30)).toEqual(['daemon b']);
    const { rows } = await sql<{ stop_reason: string }>`select stop_reason from daemons where id = 'daemon b'`.execute(
      db(),
    );
    expect(rows[0]!.stop_reason).toMatch(/^no heartbeat/);
  });

  it('a daemon that stops gives back everything it holds', async () => {
    await claimDue(db(), 'daemon a', 6, 30);
    await unregisterDaemon(db(), 'daemon a');
    expect([...(await holders()).values()].every((holder) => holder === null)).toBe(true);
    expect((await claimDue(db(), 'daemon b', 6, 30)).length).toBe(6);
  });

  it('stops without waiting for a transaction that holds one lease row locked; that lease runs out', async () => {
    await claimDue(db(), 'daemon a', 2, 30);
    const person = await jobQueuedInOpenTransaction(ids[0]!);
    try {
      const stopped = await withinSeconds(
        5,
        unregisterDaemon(db(), 'daemon a').then(() => 'stopped'),
      );
      expect(stopped).toBe('stopped');
      const held = await holders();
      expect([held.get(ids[0]!), held.get(ids[1]!)]).toEqual(['daemon a', null]);
    } finally {
      await person.commit();
    }
  });
});
