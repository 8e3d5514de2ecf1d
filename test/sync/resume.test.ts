/**
 * Full pulls that resume (sync/resume.ts): a pull that gives way, is stopped or fails before the
 * end of a list goes on from its last page at the next run, and the pass over several runs sweeps exactly what one pull would: the records not seen anywhere in the pass, and nothing
 * when the list shifted while the pull was away.
 */
import { sql } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { runSync, type SyncOptions } from '../../src/sync/index.js';
import { clientFor, useSandbox } from '../support/sandbox.js';
import { pullOf, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const PAGE = 5;
const env = useSandbox({ perEntity: { clients: 40, products: 12 } }, { pageSize: PAGE });
const db = () => database.current.handle.db;

const pull = (options: Partial<SyncOptions> = {}, client = env.client) =>
  runSync(...pullOf(database, client), { kind: 'sync', entities: ['clients', 'products'], ...options });

/** Gives way the `n`th time it is asked (after the `n`th page of a full pull). */
function giveWayAfter(n: number): () => string | null {
  let asked = 0;
  return () => (++asked >= n ? 'the test says so' : null);
}

/** The `start=` of each list request for `path` since the calls were cleared. */
function starts(path: string): number[] {
  return env.sandbox.calls
    .filter((c) => c.path.endsWith(path))
    .map((c) => Number(new URLSearchParams(c.query.replace(/^\?/, '')).get('start')));
}

async function liveClients(): Promise<number[]> {
  const { rows } = await sql<{ k: number }>`
    select clientnr as k from clients where account_id = ${database.current.accountId} and deleted_at is null order by 1`.execute(
    db(),
  );
  return rows.map((row) => Number(row.k));
}

const upstreamClients = () =>
  env.sandbox.store
    .list('clients')
    .map((c) => Number(c.clientnr))
    .sort((a, b) => a - b);

async function cursors(): Promise<{ entity: string; next_start: number; seen: number }[]> {
  const { rows } = await sql<{ entity: string; next_start: number; seen: number }>`
    select entity, next_start, cardinality(seen_keys) as seen from pull_cursors order by entity`.execute(db());
  return rows;
}

beforeEach(async () => {
  await sql`truncate clients, products, changes, events, rejected_values, held_deletes, entity_pulls, sync_runs, pull_cursors cascade`.execute(
    db(),
  );
  env.sandbox.knobs.hourlyQuota = Number.POSITIVE_INFINITY;
  env.sandbox.resetQuota();
  env.sandbox.clearCalls();
});

describe('a full pull that stops before the end of its list', () => {
  it('gives way after a page, and the next run goes on from that page instead of from the start', async () => {
    const first = await pull({ giveWay: giveWayAfter(3) });
    expect(first.gaveWay).toBe('the test says so');
    expect(first.status).toBe('partial');
    expect(first.error).toMatch(
      /clients: gave way after 3 page\(s\) \(the test says so\); the pull goes on from there/,
    );
    expect(first.entities.products).toBeUndefined(); // the run ended with the page
    expect(await cursors()).toEqual([{ entity: 'clients', next_start: 3 * PAGE, seen: 0 }]);

    env.sandbox.clearCalls();
    const second = await pull();
    expect(second.status).toBe('succeeded');
    // The last page read again (to prove nothing moved), then the pages after it; never start=0.
    expect(starts('/clients')).toEqual([10, 15, 20, 25, 30, 35, 40]);
    expect(await liveClients()).toEqual(upstreamClients());
    expect(await cursors()).toEqual([]);
    // A fill, in slices or not, writes no `created` events (EVENTS_ON_BACKFILL is off).
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from events where type = 'client.created'`.execute(db());
    expect(rows[0]!.n).toBe(0);
  });

  it('a pass over several runs pulls each entity once: what it completed is not pulled again', async () => {
    // Clients are 8 pages and an empty one; products' second page is the 11th page of the run.
    const first = await pull({ giveWay: giveWayAfter(10) });
    expect(first.entities.clients?.complete).toBe(true);
    expect(first.gaveWay).not.toBeNull();
    expect((await cursors()).map((c) => c.entity)).toEqual(['products']);
    env.sandbox.clearCalls();
    const second = await pull();
    expect(second.status).toBe('succeeded');
    expect(starts('/clients')).toEqual([]);
    expect(starts('/products')).toEqual([5, 10, 12]);
    expect(second.entities.clients).toBeUndefined();
    // The pass is over: the next run pulls everything again.
    env.sandbox.clearCalls();
    await pull();
    expect(starts('/clients')[0]).toBe(0);
  });

  it('stopped by a signal or a failing list, it goes on from its last page too', async () => {
    const stop = new AbortController();
    let pages = 0;
    const stopped = await pull({
      signal: stop.signal,
      onProgress: (progress) => {
        if (progress.state === 'pulling' && ++pages === 2) stop.abort('the test stops it');
      },
    });
    expect(stopped.status).toBe('interrupted');
    expect((await cursors())[0]).toMatchObject({ entity: 'clients', next_start: 10 });

    // The list fails at the next call (a maintenance page; a spent quota ends a pull the same
    // way, and parks the account in a fleet: test/daemon/fleet.test.ts): the cursor stays.
    env.sandbox.failNext('html200', 1, { pathPrefix: '/clients' });
    const once = clientFor(env.sandbox, { pageSize: PAGE, maxRetries: 0 });
    const failed = await pull({}, once).finally(() => once.close());
    expect(failed.status).not.toBe('succeeded');
    expect(failed.entities.clients?.error).toMatch(/HTML page/);
    expect((await cursors())[0]).toMatchObject({ entity: 'clients', next_start: 10 });

    env.sandbox.clearCalls();
    const done = await pull();
    expect(done.status, done.error ?? '').toBe('succeeded');
    expect(starts('/clients')[0]).toBe(5);
    expect(await liveClients()).toEqual(upstreamClients());
  });
});

describe('what a pass over several runs sweeps', () => {
  it('the records missing upstream, and none of those seen by an earlier run of the pass', async () => {
    expect((await pull()).status).toBe('succeeded');
    const gone = upstreamClients().at(-1)!; // on the last page: no record moves
    env.sandbox.store.delete('clients', gone);
    const first = await pull({ giveWay: giveWayAfter(3) });
    expect(first.gaveWay).not.toBeNull();
    // It changed nothing, but it did not fail either: its pass goes on.
    expect(first.status).toBe('partial');
    expect((await cursors())[0]).toMatchObject({ entity: 'clients', seen: 3 * PAGE });
    const second = await pull();
    expect(second.status).toBe('succeeded');
    expect(second.entities.clients).toMatchObject({ deleted: 1, complete: true });
    expect(await liveClients()).toEqual(upstreamClients());
  });

  it('nothing when the list shifted while the pull was away; the next complete pass does', async () => {
    expect((await pull()).status).toBe('succeeded');
    const first = await pull({ giveWay: giveWayAfter(3) });
    expect(first.gaveWay).not.toBeNull();
    // A record before the resume point goes: every later record moves one place up, so one of
    // them is now before the resume point, where the resumed pull does not look.
    const gone = upstreamClients()[2]!;
    env.sandbox.store.delete('clients', gone);
    const resumed = await pull();
    expect(resumed.entities.clients).toMatchObject({ deleted: 0, complete: false });
    expect(resumed.entities.clients?.error).toMatch(/the list changed while the pull was away/);
    expect(await liveClients()).toContain(gone);
    expect(await cursors()).toEqual([]);

    const next = await pull();
    expect(next.status).toBe('succeeded');
    expect(next.entities.clients).toMatchObject({ deleted: 1 });
    expect(await liveClients()).toEqual(upstreamClients());
  });
});
