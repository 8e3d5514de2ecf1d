/**
 * A role confined to one account (row-level security, `grant_account`) cannot reach the others
 * (issue 41): it cannot take or hold another account's pull, job or service lock, nor the
 * migrations' lock, by any means it has (the advisory keys the locks used to be, SELECT … FOR
 * UPDATE, LOCK TABLE, the lock functions), and meanwhile the other account's sync and job run;
 * `visible_accounts` answers for the calling role only; and it hears nothing of the mirror's
 * notifications, which carry nothing and cost their listeners one query each, forged ones too.
 */
import { resolveAccounts } from '../../src/accounts/resolve.js';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KyselyPlugin, OperationNode } from 'kysely';
import { sql } from 'kysely';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullAccount } from '../../src/accounts/pull.js';
import { sealKey } from '../../src/accounts/secret.js';
import type { Account } from '../../src/accounts/store.js';
import type { App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { attentionOptions } from '../../src/daemon/health.js';
import { FleetDaemon } from '../../src/daemon/fleet.js';
import { DaemonMetrics } from '../../src/daemon/metrics.js';
import { notificationChannel } from '../../src/db/channels.js';
import { lockHolder, releaseLease, serviceLock, takeLease, type DatabaseHandle } from '../../src/db/index.js';
import { readEvents } from '../../src/events/store.js';
import { eventsSettled } from '../support/events.js';
import { newDaemonIdentity } from '../../src/fleet/leases.js';
import { addJob, createAccountRunner, JobRunner } from '../../src/jobs/index.js';
import { logger } from '../../src/log.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createApiClient } from '../../src/service-client.js';
import { startDeliveryLoop } from '../../src/webhooks/loop.js';
import { runCli } from '../support/cli.js';
import { databaseUrl, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const SECRET = 'a test master secret of more than 32 characters';
const ROLE = `confined_one_${randomBytes(4).toString('hex')}`;
const quiet = logger.child({}, { level: 'silent' });
let box: Sandbox;
let app: App;
const ids = { one: 0, two: 0 };
const db = () => database.current.handle.db;
const account = (name: 'one' | 'two'): Promise<Account> => resolveAccounts(db(), name, { one: true });

/** A session logged in as the confined role itself (not SET ROLE: it cannot be reset). */
function confinedSession(): postgres.Sql {
  const url = new URL(databaseUrl());
  url.username = ROLE;
  url.password = 'confined-pw';
  return postgres(url.toString(), {
    max: 2,
    onnotice: () => undefined,
    connection: { search_path: database.current.schema },
  });
}

beforeAll(async () => {
  box = await startSandbox({ accounts: 2, perEntity: { clients: 8, products: 6, quotations: 4 }, records: 4 });
  const config = loadConfig({
    INVOICING_API_URL: box.url,
    ACCOUNTS_SECRET: SECRET,
    JOB_POLL_INTERVAL_MS: '60000',
    LEASE_SECONDS: '600',
  });
  app = {
    config: { ...config, schema: database.current.schema },
    database: database.current.handle,
    close: async () => {},
  };
  for (const [name, sandboxAccount] of [
    ['one', box.account(1)],
    ['two', box.account(2)],
  ] as const) {
    const row = await db()
      .insertInto('accounts')
      .values({
        name,
        api_url: box.url,
        api_user: sandboxAccount.user,
        api_key: sealKey(sandboxAccount.apiKey, SECRET),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids[name] = row.id;
  }
  await sql.raw(`create role ${ROLE} login password 'confined-pw'`).execute(db());
  await sql`select grant_account('one', ${ROLE})`.execute(db());
  for (const name of ['one', 'two'] as const) {
    const acc = await account(name);
    const client = createApiClient(app, acc);
    try {
      const outcome = await pullAccount(app, { account: acc, client, options: { kind: 'backfill' } });
      expect(outcome.status, name).toBe('succeeded');
    } finally {
      await client.close();
    }
  }
}, 60_000);

afterAll(async () => {
  await box?.close();
  await sql.raw(`drop owned by ${ROLE}`).execute(db());
  await sql.raw(`drop role ${ROLE}`).execute(db());
});

const cliEnv = () => ({
  DATABASE_URL: database.current.url,
  MIRROR_SCHEMA: database.current.schema,
  ACCOUNTS_SECRET: SECRET,
  INVOICING_API_URL: box.url,
});

describe("a role confined to account one, and account two's locks", () => {
  it('takes none of them by any means it has, holds what it can, and two’s sync and job run meanwhile', async () => {
    const schema = database.current.schema;
    const confined = confinedSession();
    const held = await confined.reserve();
    try {
      // Each in a transaction of its own, as a lock would be held.
      const refused = async (statement: string, why: RegExp) =>
        expect(
          confined.begin((tx) => tx.unsafe(statement)),
          statement,
        ).rejects.toThrow(why);
      for (const purpose of ['sync', 'jobs'])
        await refused(`select coordination_lock_take(${ids.two}, '${purpose}', true)`, /permission denied/);
      await refused(`select coordination_lock_wait(${ids.two}, 'service')`, /permission denied/);
      for (const clause of ['for update', 'for no key update', 'for share', 'for key share', 'for update skip locked'])
        await refused(`select * from coordination_locks where account_id = ${ids.two} ${clause}`, /permission denied/);
      await refused(`update coordination_locks set holder_pid = pg_backend_pid()`, /permission denied/);
      await refused(
        `insert into coordination_locks (account_id, purpose) values (${ids.two}, 'service')`,
        /permission denied/,
      );
      await refused('truncate coordination_locks', /permission denied/);
      for (const mode of ['row share', 'share', 'exclusive', 'access exclusive'])
        for (const table of ['coordination_locks', 'schema_migrations'])
          await refused(`lock table ${table} in ${mode} mode`, /permission denied/);
      // Its own account's rows it may see, no other.
      const visible = await confined`select distinct account_id from coordination_locks`;
      expect(visible.map((row) => row.account_id).filter((id) => id !== ids.one)).toEqual([]);

      // What it can take, it holds while account two works: the advisory keys the locks were,
      // the migrations' key, and in an open transaction every weak table lock it may take.
      for (const purpose of ['sync', 'jobs', 'service'])
        await held.unsafe(
          `select pg_advisory_lock(hashtextextended('invoice-mirror:${schema}:${purpose}:${ids.two}', 0))`,
        );
      await held.unsafe(`select pg_advisory_lock(hashtextextended('invoice-mirror:${schema}:migrate', 0))`);
      await held.unsafe('begin');
      for (const table of ['coordination_locks', 'schema_migrations', 'jobs', 'accounts', 'account_leases'])
        await held.unsafe(`lock table ${table} in access share mode`);
      await held.unsafe('select count(*) from coordination_locks, jobs, accounts');

      // A sync of account two, by the command (which migrates first), succeeds.
      const synced = await runCli(['sync', '--account', 'two'], { env: cliEnv() });
      expect(synced.stderr).toBe('');
      expect(synced.stdout).toMatch(/run \d+: succeeded/);
      // A job of account two runs.
      const { id: jobId } = await addJob(db(), ids.two, { kind: 'set_product_stock', payload: { id: 1, stock: 17 } });
      const open = createAccountRunner(app, await account('two'));
      try {
        expect(await open.runner.runUntilEmpty()).toEqual({ ran: 1, failed: 0 });
      } finally {
        await open.close();
      }
      const job = await db().selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow();
      expect(job.status).toBe('succeeded');
      expect(box.account(2).store.get('products', 1)?.stock).toBe(17);
      expect(await lockHolder(db(), ids.two, 'jobs')).toBeNull();
    } finally {
      await held.unsafe('rollback').catch(() => undefined);
      held.release();
      await confined.end();
    }
  }, 120_000);

  it('the sync lock is in force for who may take it: held by another session, the sync is refused', async () => {
    await db()
      .connection()
      .execute(async (conn) => {
        expect(await takeLease(conn, ids.two, 'sync')).toBe(true);
        try {
          const busy = await runCli(['sync', '--account', 'two'], { env: cliEnv() });
          expect(busy.code).not.toBe(0);
          expect(busy.stdout + busy.stderr).toMatch(/another sync or backfill of this account is running/);
        } finally {
          await releaseLease(conn, ids.two, 'sync');
        }
      });
    expect((await runCli(['sync', '--account', 'two'], { env: cliEnv() })).stdout).toMatch(/run \d+: succeeded/);
  }, 60_000);
});

describe('the service lock, a row lock in a transaction', () => {
  it('held, keeps another process waiting, and holds back no event meanwhile', async () => {
    const exclusive = serviceLock(database.current.handle, ids.two);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holding = exclusive(() => released);
    try {
      // Held (its transaction has begun and taken the row) before another session asks for it.
      for (let i = 0; i < 250 && (await lockHolder(db(), ids.two, 'service')) === null; i++) await sleep(20);
      // Another session waits for the row (as another process would for its request)...
      await expect(
        db()
          .transaction()
          .execute(async (trx) => {
            await sql`set local lock_timeout = '300ms'`.execute(trx);
            await sql`select coordination_lock_wait(${ids.two}, 'service')`.execute(trx);
          }),
      ).rejects.toThrow(/lock timeout/);
      expect(await lockHolder(db(), ids.two, 'service')).not.toBeNull();
      // ...while an event written now is readable as soon as the transactions of the test files
      // running beside this one have ended: the lock's open transaction, which writes none, holds
      // it back no longer (else the wait would time out).
      const { rows } = await sql<{ id: number }>`
        insert into jobs (kind, payload, account_id, status) values ('delete_client', '{"clientnr": 997}', ${ids.two}, 'running')
        returning id`.execute(db());
      await sql`update jobs set status = 'failed', last_error = 'made to fail' where id = ${rows[0]!.id}`.execute(db());
      await eventsSettled(db());
      const events = await readEvents(db(), { after: null, scope: 'all', limit: 10_000 });
      expect(events.some((e) => e.type === 'job.failed' && e.record_id === String(rows[0]!.id))).toBe(true);
      await sql`delete from jobs where id = ${rows[0]!.id}`.execute(db());
    } finally {
      release();
      await holding;
    }
    for (let i = 0; i < 50 && (await lockHolder(db(), ids.two, 'service')) !== null; i++) await sleep(20);
    expect(await lockHolder(db(), ids.two, 'service')).toBeNull();
  });
});

describe('visible_accounts', () => {
  it('answers the calling role for itself only; the owner may ask for any role', async () => {
    const confined = confinedSession();
    try {
      const [own] = await confined`select visible_accounts(current_user) as ids`;
      expect(own!.ids).toEqual([ids.one]);
      const owner = (await sql<{ owner: string }>`select current_user as owner`.execute(db())).rows[0]!.owner;
      for (const other of [owner, 'postgres', `${ROLE}_nobody`])
        await expect(confined`select visible_accounts(${other})`).rejects.toThrow(
          /visible_accounts answers only for the calling role/,
        );
      const everyone = await confined`select id from visible_account_ids`;
      expect(everyone.map((row) => row.id)).toEqual([ids.one]);
    } finally {
      await confined.end();
    }
    const { rows } = await sql<{ ids: number[] }>`select visible_accounts(${ROLE}) as ids`.execute(db());
    expect(rows[0]!.ids).toEqual([ids.one]);
  });
});

/** The queries a handle's Kysely runs, with when and their SQL text (raw ones) or kind. */
interface Seen {
  at: number;
  text: string;
  parameters: unknown[];
}

function counted(handle: DatabaseHandle): { handle: DatabaseHandle; seen: Seen[] } {
  const seen: Seen[] = [];
  const raw = (node: OperationNode) =>
    node.kind === 'RawNode'
      ? (node as unknown as { sqlFragments: string[]; parameters: { kind: string; value?: unknown }[] })
      : undefined;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      const rawNode = raw(args.node);
      seen.push({
        at: performance.now(),
        text: rawNode ? rawNode.sqlFragments.join('?') : args.node.kind,
        parameters: rawNode ? rawNode.parameters.map((p) => (p.kind === 'ValueNode' ? p.value : undefined)) : [],
      });
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { handle: { ...handle, db: handle.db.withPlugin(plugin) }, seen };
}

/** Waits until nothing has been asked for `quietMs`. */
async function settled(seen: { at: number }[], quietMs = 300): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const last = seen.at(-1)?.at ?? 0;
    if (performance.now() - last >= quietMs) return;
    await sleep(50);
  }
  throw new Error('the listeners never went quiet');
}

async function forge(purpose: 'jobs' | 'events'): Promise<void> {
  const channel = await notificationChannel(db(), purpose);
  await sql`select pg_notify(${channel}, '')`.execute(db());
}

describe('notifications', () => {
  it('carry nothing, on channels the confined role can neither read nor hear', async () => {
    const channels = await db()
      .selectNoFrom(sql<number>`(select count(*)::int from notification_channels)`.as('n'))
      .executeTakeFirstOrThrow();
    expect(channels.n).toBe(2);
    const confined = confinedSession();
    const heardByConfined: string[] = [];
    const heard: string[] = [];
    const unlisten: (() => Promise<void>)[] = [];
    try {
      expect(await confined`select * from notification_channels`).toHaveLength(0);
      const schema = database.current.schema;
      for (const name of [`${schema}_jobs`, `${schema}_events`, 'jobs', 'events']) {
        const { unlisten: stop } = await confined.listen(name, (payload) => heardByConfined.push(`${name}:${payload}`));
        unlisten.push(stop);
      }
      for (const purpose of ['jobs', 'events'] as const) {
        const channel = (await notificationChannel(db(), purpose))!;
        // No function, view or policy spells the channel out for a role to read in the catalogue. Views and
        // policies are read from the mirror's schema only, picked before they are decompiled (`offset 0` keeps
        // the planner from decompiling first): another test's view dropped meanwhile fails with "could not open
        // relation with OID".
        const { rows } = await sql<{ n: number }>`
          with own_views as (select oid from pg_class where relnamespace = current_schema()::regnamespace and relkind = 'v' offset 0),
               own_policies as (select p.polrelid, p.polqual, p.polwithcheck from pg_policy p
                                  join pg_class c on c.oid = p.polrelid
                                 where c.relnamespace = current_schema()::regnamespace offset 0)
          select (select count(*) from pg_proc where prosrc like '%' || ${channel} || '%')
               + (select count(*) from own_views where pg_get_viewdef(oid) like '%' || ${channel} || '%')
               + (select count(*) from own_policies
                   where concat(pg_get_expr(polqual, polrelid), ' ', pg_get_expr(polwithcheck, polrelid))
                         like '%' || ${channel} || '%') as n`.execute(db());
        expect(Number(rows[0]!.n), purpose).toBe(0);
        unlisten.push(await database.current.handle.listen(channel, (payload) => heard.push(`${purpose}:${payload}`)));
      }
      // A job of account two queued, and failed (an event); a job of account one queued by the confined role.
      const { rows: queued } = await sql<{ id: number }>`
        insert into jobs (kind, payload, account_id) values ('delete_client', '{"clientnr": 999}', ${ids.two})
        returning id`.execute(db());
      await sql`update jobs set status = 'failed', last_error = 'made to fail', finished_at = now() where id = ${queued[0]!.id}`.execute(
        db(),
      );
      await confined`insert into jobs (kind, payload) values ('delete_client', '{"clientnr": 998}')`;
      for (let i = 0; i < 100 && heard.length < 3; i++) await sleep(20);
      await sleep(300);
      expect(heard.sort()).toEqual(['events:', 'jobs:', 'jobs:']);
      expect(heardByConfined).toEqual([]);
      await sql`delete from jobs where payload->>'clientnr' in ('998', '999')`.execute(db());
    } finally {
      for (const stop of unlisten) await stop().catch(() => undefined);
      await confined.end();
    }
  });

  it("a forged one costs the job runners one query, waking no runner; a real one wakes only its account's", async () => {
    const { handle, seen } = counted(database.current.handle);
    const runners = await Promise.all(
      (['one', 'two'] as const).map(async (name) => {
        const acc = await account(name);
        const runner = new JobRunner({
          database: handle,
          account: acc,
          client: createApiClient(app, acc),
          config: app.config,
          logger: quiet,
        });
        runner.start();
        return runner;
      }),
    );
    try {
      await settled(seen);
      const before = seen.length;
      await forge('jobs');
      await sleep(500);
      expect(seen.slice(before).map((q) => q.text)).toEqual([expect.stringMatching(/from jobs j join accounts a/)]);

      const ran = new Promise((resolve) => runners[1]!.on('finished', resolve));
      const quietFrom = seen.length;
      await addJob(db(), ids.two, { kind: 'set_product_stock', payload: { id: 2, stock: 3 } });
      await ran;
      await settled(seen);
      const after = seen.slice(quietFrom).map((q) => q.text);
      expect(after.filter((text) => /from jobs j join accounts a/.test(text))).toHaveLength(1);
      // Only account two's runner woke: each pass begins by taking its account's lock.
      const takes = seen.slice(quietFrom).filter((q) => q.text.includes('coordination_lock_take'));
      expect(takes.length).toBeGreaterThan(0);
      expect(new Set(takes.map((q) => q.parameters[0]))).toEqual(new Set([ids.two]));
    } finally {
      await Promise.all(runners.map((runner) => runner.stop()));
    }
  }, 60_000);

  it('a forged one costs the fleet daemon one query and no claim; a real one is claimed at once', async () => {
    // No pull due, so the daemon only claims on its own every second.
    await sql`update account_leases set due_at = 'infinity'`.execute(db());
    const { handle, seen } = counted(database.current.handle);
    const fleetApp: App = { ...app, database: handle };
    const metrics = new DaemonMetrics(handle.db, 'test', () => attentionOptions({ periodMs: 60_000, startedAt: 0 }));
    const fleet = new FleetDaemon(fleetApp, newDaemonIdentity(), metrics, quiet);
    const isClaim = (text: string) => /with due as/.test(text);
    const isLook = (text: string) => /select distinct j\.account_id from jobs j/.test(text);
    await fleet.start();
    try {
      await settled(seen, 100).catch(() => undefined);
      // Right after a claim of its own, so that the next is a second away.
      const lastClaim = () => seen.filter((q) => isClaim(q.text)).at(-1)?.at ?? 0;
      const claimed = lastClaim();
      for (let i = 0; i < 60 && lastClaim() === claimed; i++) await sleep(20);
      await sleep(50);
      const before = seen.length;
      await forge('jobs');
      await sleep(400);
      expect(seen.slice(before).map((q) => q.text)).toEqual([expect.stringMatching(/select distinct j\.account_id/)]);

      const from = seen.length;
      const { id } = await addJob(db(), ids.one, { kind: 'set_product_stock', payload: { id: 2, stock: 4 } });
      for (let i = 0; i < 200; i++) {
        const row = await db().selectFrom('jobs').select('status').where('id', '=', id).executeTakeFirstOrThrow();
        if (row.status === 'succeeded') break;
        await sleep(25);
      }
      const reaction = seen.slice(from);
      expect(reaction.filter((q) => isLook(q.text)).length).toBeGreaterThanOrEqual(1);
      // The look found the job's account unclaimed and claimed it at once, not at the next tick.
      const look = reaction.find((q) => isLook(q.text))!;
      const claim = reaction.find((q) => isClaim(q.text) && q.at >= look.at)!;
      expect(claim.at - look.at).toBeLessThan(200);
    } finally {
      await fleet.stop();
    }
  }, 60_000);

  it('a forged events one costs the webhook deliveries one query', async () => {
    const { handle, seen } = counted(database.current.handle);
    const loop = await startDeliveryLoop({ ...app, database: handle }, quiet);
    try {
      await settled(seen);
      const before = seen.length;
      await forge('events');
      await sleep(500);
      expect(seen.slice(before).map((q) => q.text)).toEqual([expect.stringMatching(/from webhook_deliveries d/)]);
    } finally {
      await loop.stop();
    }
  }, 30_000);
});
