/**
 * When each account's work is due (`account_leases.work_due_at`, migration 0022), which the claim
 * reads as a range: it follows the jobs however they are written (plain SQL here), the parks, and
 * the account's state; and the claim re-checks the lease on a row another daemon took meanwhile,
 * so that two claims never return one account.
 */
import { sql } from 'kysely';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimDue, park } from '../../src/fleet/leases.js';
import { addAccounts, resetLeases } from '../support/leases.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const db = () => database.current.handle.db;
const ids: number[] = [];

beforeAll(async () => {
  ids.push(...(await addAccounts(db(), 'due', 8)));
});

beforeEach(async () => {
  await sql`update accounts set state = 'active'`.execute(db());
  await resetLeases(db(), ids, ['a', 'b', 'c', 'd']);
});

/** The account's lease row: when its work is due, and whether that equals `expected` (an SQL time). */
async function workDue(accountId: number): Promise<{ due: string | null; first_job: string | null }> {
  const { rows } = await sql<{ due: string | null; first_job: string | null }>`
    select work_due_at::text as due, first_job_at::text as first_job from account_leases where account_id = ${accountId}`.execute(
    db(),
  );
  return rows[0]!;
}

const at = async (expression: string): Promise<string> => {
  const { rows } = await sql<{ t: string }>`select (${sql.raw(expression)})::timestamptz::text as t`.execute(db());
  return rows[0]!.t;
};

describe('work_due_at', () => {
  it('follows the jobs written by plain SQL: queued, started, moved, deleted', async () => {
    const id = ids[0]!;
    await sql`update account_leases set due_at = 'infinity' where account_id = ${id}`.execute(db());
    expect(await workDue(id)).toEqual({ due: 'infinity', first_job: null });
    await sql`insert into jobs (account_id, kind, payload, run_after)
              values (${id}, 'set_product_stock', '{"id": 1, "stock": 1}', '2030-01-01T10:00:00Z'),
                     (${id}, 'set_product_stock', '{"id": 2, "stock": 1}', '2030-01-01T12:00:00Z')`.execute(db());
    expect(await workDue(id)).toEqual({
      due: await at(`'2030-01-01T10:00:00Z'`),
      first_job: await at(`'2030-01-01T10:00:00Z'`),
    });
    // The first one starts: the second is next; it is moved earlier; it finishes: nothing queued.
    await sql`update jobs set status = 'running' where account_id = ${id} and payload->>'id' = '1'`.execute(db());
    expect((await workDue(id)).due).toBe(await at(`'2030-01-01T12:00:00Z'`));
    await sql`update jobs set run_after = '2029-06-01T00:00:00Z' where account_id = ${id} and payload->>'id' = '2'`.execute(
      db(),
    );
    expect((await workDue(id)).due).toBe(await at(`'2029-06-01T00:00:00Z'`));
    await sql`delete from jobs where account_id = ${id} and payload->>'id' = '2'`.execute(db());
    expect(await workDue(id)).toEqual({ due: 'infinity', first_job: null });
    // A job of another account changes nothing here.
    await sql`insert into jobs (account_id, kind, payload) values (${ids[1]}, 'set_product_stock', '{"id": 3, "stock": 1}')`.execute(
      db(),
    );
    expect(await workDue(id)).toEqual({ due: 'infinity', first_job: null });
  });

  it('follows a park, a park of pulls only, and the account state', async () => {
    const id = ids[2]!;
    await sql`update account_leases set due_at = '2030-01-01T00:00:00Z' where account_id = ${id}`.execute(db());
    await sql`insert into jobs (account_id, kind, payload, run_after)
              values (${id}, 'set_product_stock', '{"id": 1, "stock": 1}', '2030-01-02T00:00:00Z')`.execute(db());
    expect((await workDue(id)).due).toBe(await at(`'2030-01-01T00:00:00Z'`));
    // Parked for a minute: nothing before the park's end, however overdue.
    await sql`update account_leases set due_at = now() - interval '1 hour' where account_id = ${id}`.execute(db());
    await park(db(), id, 60_000, 'quota spent');
    const { rows } = await sql<{ until: string }>`
      select parked_until::text as until from account_leases where account_id = ${id}`.execute(db());
    expect((await workDue(id)).due).toBe(rows[0]!.until);
    // Pulls only: its job is due when it may run, its pull not before the park's end.
    await park(db(), id, 60_000, 'budget kept for actions', true);
    const { rows: again } = await sql<{ until: string }>`
      select parked_until::text as until from account_leases where account_id = ${id}`.execute(db());
    expect((await workDue(id)).due).toBe(again[0]!.until);
    await sql`update jobs set run_after = now() - interval '1 minute' where account_id = ${id}`.execute(db());
    expect((await workDue(id)).due).toBe(await at(`(select run_after from jobs where account_id = ${id})`));
    // Not active: never due; active again: as before.
    await sql`update accounts set state = 'paused' where id = ${id}`.execute(db());
    expect((await workDue(id)).due).toBeNull();
    expect((await claimDue(db(), 'daemon a', 8, 30)).map((c) => c.accountId)).not.toContain(id);
    await sql`update accounts set state = 'active' where id = ${id}`.execute(db());
    expect((await workDue(id)).due).toBe(await at(`(select run_after from jobs where account_id = ${id})`));
  });

  it('a new account is due at once, and one made paused is not', async () => {
    const made = await db()
      .insertInto('accounts')
      .values([{ name: 'due-new' }, { name: 'due-paused', state: 'paused' } as never])
      .returning(['id', 'name'])
      .execute();
    expect((await workDue(made[0]!.id)).due).toBe('-infinity');
    expect((await workDue(made[1]!.id)).due).toBeNull();
    await sql`delete from accounts where id = any(${made.map((m) => m.id)}::int[])`.execute(db());
  });

  it('two transactions changing one account’s jobs at once leave it true: the second reads after the first', async () => {
    const id = ids[3]!;
    await sql`update account_leases set due_at = 'infinity' where account_id = ${id}`.execute(db());
    await sql`insert into jobs (account_id, kind, payload, run_after)
              values (${id}, 'set_product_stock', '{"id": 1, "stock": 1}', '2030-01-01T10:00:00Z')`.execute(db());
    let started: Promise<unknown> | undefined;
    await db()
      .transaction()
      .execute(async (trx) => {
        // A later job, not committed yet: the earliest stays the first one's.
        await sql`insert into jobs (account_id, kind, payload, run_after)
                  values (${id}, 'set_product_stock', '{"id": 2, "stock": 1}', '2030-01-01T12:00:00Z')`.execute(trx);
        // Meanwhile the first job starts, in another session: it waits for the lease row.
        started = sql`update jobs set status = 'running' where account_id = ${id} and payload->>'id' = '1'`.execute(
          db(),
        );
        await waitUntilBlocked();
      });
    await started;
    expect(await workDue(id)).toEqual({
      due: await at(`'2030-01-01T12:00:00Z'`),
      first_job: await at(`'2030-01-01T12:00:00Z'`),
    });
  });
});

/** Waits until some session of this database waits on a lock. */
async function waitUntilBlocked(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()
         and query like '%update jobs set status%'`.execute(db());
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no session came to wait on the lock');
}

describe('claiming at the same moment', () => {
  it('a row another daemon took and committed while a claim was under way is checked again: not taken twice', async () => {
    // The slow claim (daemon b) stops after locking its first account, in its update, until let go;
    // meanwhile daemon a takes the second and commits. The slow claim then reaches the second.
    await sql`
      create function pause_claim() returns trigger language plpgsql as $$
      begin
        perform pg_advisory_xact_lock(4646);
        return new;
      end $$`.execute(db());
    await sql`create trigger pause_claim before update of daemon_id on account_leases for each row
              when (new.daemon_id = 'daemon b' and old.daemon_id is distinct from new.daemon_id)
              execute function pause_claim()`.execute(db());
    try {
      const [slow, fast] = await db()
        .connection()
        .execute(async (holder) => {
          await sql`select pg_advisory_lock(4646)`.execute(holder);
          const slowClaim = claimDue(db(), 'daemon b', 2, 30);
          await waitForAdvisoryWait();
          // The first account is locked by the slow claim: daemon a takes the next one.
          const fastClaim = await claimDue(db(), 'daemon a', 1, 30);
          await sql`select pg_advisory_unlock(4646)`.execute(holder);
          return [await slowClaim, fastClaim];
        });
      expect(fast.map((c) => c.accountId)).toEqual([ids[1]]);
      const taken = [...slow, ...fast].map((c) => c.accountId);
      expect(new Set(taken).size).toBe(taken.length);
      expect(slow.map((c) => c.accountId)).toContain(ids[0]);
      const { rows } = await sql<{ account_id: number; daemon_id: string }>`
        select account_id, daemon_id from account_leases where account_id = any(${ids.slice(0, 3)}::int[]) and daemon_id is not null
         order by account_id`.execute(db());
      expect(rows.find((r) => r.account_id === ids[1])?.daemon_id).toBe('daemon a');
    } finally {
      await sql`drop trigger pause_claim on account_leases`.execute(db());
      await sql`drop function pause_claim()`.execute(db());
    }
  });

  it('many claims at once, over and over, never return one account twice', async () => {
    for (let round = 0; round < 15; round++) {
      const claims = await Promise.all(['a', 'b', 'c', 'd'].map((name) => claimDue(db(), `daemon ${name}`, 3, 30)));
      const taken = claims.flat().map((c) => c.accountId);
      expect(new Set(taken).size, `round ${round}`).toBe(taken.length);
      expect(taken.length).toBeGreaterThan(0);
      const { rows } = await sql<{ account_id: number; daemon_id: string }>`
        select account_id, daemon_id from account_leases where daemon_id is not null`.execute(db());
      const holder = new Map(rows.map((r) => [Number(r.account_id), r.daemon_id]));
      for (const [i, claim] of claims.entries())
        for (const c of claim) expect(holder.get(c.accountId)).toBe(`daemon ${['a', 'b', 'c', 'd'][i]}`);
      await sql`update account_leases set daemon_id = null, leased_until = null`.execute(db());
    }
  });
});

async function waitForAdvisoryWait(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_locks
       where locktype = 'advisory' and objid = 4646 and not granted
         and database = (select oid from pg_database where datname = current_database())`.execute(db());
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the slow claim never came to wait');
}
