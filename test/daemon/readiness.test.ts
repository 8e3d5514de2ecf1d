/** /readyz: not ready only when the mirror is stale or the database does not answer; one failed sync is not enough. */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ensureDefaultAccount } from '../../src/accounts/store.js';
import { checkReadiness } from '../../src/daemon/health.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const PERIOD_MS = 15 * 60_000;

/** A pull of the mirror's one account (`default`, made on the first run recorded). */
async function run(status: string, finishedMinutesAgo: number): Promise<void> {
  const db = database.current.handle.db;
  await ensureDefaultAccount(db);
  await sql`insert into sync_runs (account_id, kind, status, entities, started_at, finished_at)
    values ((select id from accounts), 'sync', ${status}, '{}', now() - make_interval(mins => ${finishedMinutesAgo + 1}),
            now() - make_interval(mins => ${finishedMinutesAgo}))`.execute(db);
}

describe('readiness', () => {
  it('a daemon that just started is ready; one that never succeeded in three periods is not', async () => {
    const db = database.current.handle.db;
    await ensureDefaultAccount(db);
    expect((await checkReadiness(db, { periodMs: PERIOD_MS, startedAt: performance.now() })).ready).toBe(true);
    // An account added a minute ago gets its three periods too, however long the daemon has run.
    const added = await checkReadiness(db, { periodMs: PERIOD_MS, startedAt: performance.now() - 4 * PERIOD_MS });
    expect(added.ready).toBe(true);
    await sql`update accounts set created_at = now() - interval '1 day'`.execute(db);
    const old = await checkReadiness(db, { periodMs: PERIOD_MS, startedAt: performance.now() - 4 * PERIOD_MS });
    expect(old).toEqual({
      ready: false,
      problems: ['no sync has succeeded in three schedule periods'],
      lastSuccessAt: null,
    });
  });

  it('stays ready after a failed sync while the last success is recent, and turns stale after three periods', async () => {
    const db = database.current.handle.db;
    const startedAt = performance.now() - 10 * PERIOD_MS;
    await run('succeeded', 20);
    await run('failed', 5);
    const fresh = await checkReadiness(db, { periodMs: PERIOD_MS, startedAt });
    expect(fresh.ready).toBe(true);
    expect(fresh.lastSuccessAt).not.toBeNull();
    await sql`update sync_runs set finished_at = now() - interval '50 minutes' where status = 'succeeded'`.execute(db);
    const stale = await checkReadiness(db, { periodMs: PERIOD_MS, startedAt });
    expect(stale.ready).toBe(false);
    expect(stale.problems[0]).toMatch(/^the mirror is stale: the last successful sync finished 3\d{3} s ago/);
  });
});
