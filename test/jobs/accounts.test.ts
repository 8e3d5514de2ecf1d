/**
 * Jobs of many accounts in one mirror. Two accounts, A and B, each with its own service (a sandbox
 * of its own, accepting only that account's user and key, with data of its own under the same
 * ids) and its key stored sealed: a job of A runs with A's credentials against A's data and never
 * touches B's mirror; the accounts' jobs run side by side, one at a time within each; a key the
 * service refuses stops only its account (refused, the job queued with its attempt unspent);
 * idempotency keys, pre-checks and orphan recovery are per account.
 */
import { resolveAccounts } from '../../src/accounts/resolve.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullAccount } from '../../src/accounts/pull.js';
import { sealKey } from '../../src/accounts/secret.js';
import { setAccountState, type Account } from '../../src/accounts/store.js';
import type { App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { UsageError } from '../../src/errors.js';
import {
  addJob,
  createAccountRunner,
  PrecheckError,
  type AccountRefused,
  type AccountRunner,
  type JobFinished,
} from '../../src/jobs/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createApiClient } from '../../src/service-client.js';
import { runCli } from '../support/cli.js';
import { useTestDatabase } from '../support/test-database.js';
import { insertJob, jobRow, mirrorRow, PER_ENTITY, TEST_BACKOFF, writeCalls } from './helpers.js';

const database = useTestDatabase();
const SECRET = 'a test master secret of more than 32 characters';
const boxes: Record<'a' | 'b', Sandbox> = {} as Record<'a' | 'b', Sandbox>;
let app: App;
const db = () => database.current.handle.db;
const account = (name: 'a' | 'b'): Promise<Account> => resolveAccounts(db(), name, { one: true });

beforeAll(async () => {
  // Two services with different credentials and different data under the same ids.
  boxes.a = await startSandbox({ seed: 7, perEntity: PER_ENTITY, sendMsPerInvoice: 20 });
  boxes.b = await startSandbox({
    seed: 8,
    perEntity: PER_ENTITY,
    sendMsPerInvoice: 20,
    user: 'sandbox-2',
    apiKey: 'sandbox-2-key',
  });
  const config = loadConfig({
    INVOICING_API_URL: boxes.a.url,
    ACCOUNTS_SECRET: SECRET,
    MAX_RETRIES: '1',
    JOB_POLL_INTERVAL_MS: '60000',
  });
  app = {
    config: { ...config, schema: database.current.schema },
    database: database.current.handle,
    close: async () => {},
  };
  for (const [name, box] of Object.entries(boxes)) {
    await db()
      .insertInto('accounts')
      .values({ name, api_url: box.url, api_user: box.user, api_key: sealKey(box.apiKey, SECRET) })
      .execute();
    const acc = await account(name as 'a' | 'b');
    const client = createApiClient(app, acc);
    try {
      const outcome = await pullAccount(app, { account: acc, client, options: { kind: 'backfill' } });
      if (outcome.status !== 'succeeded') throw new Error(`backfill of ${name}: ${outcome.error}`);
    } finally {
      await client.close();
    }
    box.clearCalls();
  }
});

afterAll(async () => {
  await boxes.a?.close();
  await boxes.b?.close();
});

/** A runner of the account as `jobs run` makes it (the account's own client), with quick retries. */
async function runnerOf(name: 'a' | 'b'): Promise<AccountRunner> {
  return createAccountRunner(app, await account(name), { backoff: TEST_BACKOFF });
}

async function drain(name: 'a' | 'b') {
  const open = await runnerOf(name);
  try {
    return await open.runner.runUntilEmpty();
  } finally {
    await open.close();
  }
}

/** What the mirror holds of an account: its rows in every table that records changes, as counts. */
async function footprint(name: 'a' | 'b') {
  const { id } = await account(name);
  const { rows } = await sql<Record<string, number>>`
    select (select count(*)::int from changes where account_id = ${id}) as changes,
           (select count(*)::int from sync_runs where account_id = ${id}) as runs,
           (select count(*)::int from jobs where account_id = ${id}) as jobs`.execute(db());
  return rows[0]!;
}

describe('jobs of two accounts in one mirror', () => {
  it("a job of A runs with A's credentials against A's service and A's rows, and touches nothing of B", async () => {
    const [a, b] = [await account('a'), await account('b')];
    const clientB = await mirrorRow(database.current.handle, 'clients', 3, b.id);
    const before = await footprint('b');
    const { id } = await addJob(db(), a.id, {
      kind: 'update_client',
      payload: { clientnr: 3, changes: { city: 'Zwolle' } },
    });

    expect(await drain('b')).toEqual({ ran: 0, failed: 0 });
    expect(await drain('a')).toEqual({ ran: 1, failed: 0 });

    const job = await jobRow(database.current.handle, id);
    expect(job.status).toBe('succeeded');
    // Only A's service was called (it accepts only A's user and key), and it holds the change.
    expect(writeCalls(boxes.a).map((c) => `${c.method} ${c.path}`)).toEqual(['PUT /api/v1/clients/3']);
    expect(boxes.b.calls).toHaveLength(0);
    expect(boxes.a.store.get('clients', 3)).toMatchObject({ city: 'Zwolle' });
    expect(boxes.b.store.get('clients', 3)?.city).not.toBe('Zwolle');
    // A's mirror row was refreshed through a run of A; B's row, runs and changes are as they were.
    expect(await mirrorRow(database.current.handle, 'clients', 3, a.id)).toMatchObject({ city: 'Zwolle' });
    expect(await mirrorRow(database.current.handle, 'clients', 3, b.id)).toEqual(clientB);
    const run = await db()
      .selectFrom('sync_runs')
      .select(['account_id', 'kind'])
      .where('id', '=', (job.result as { refresh: { run_id: number } }).refresh.run_id)
      .executeTakeFirstOrThrow();
    expect(run).toEqual({ account_id: a.id, kind: 'refresh' });
    expect(await footprint('b')).toEqual(before);
    boxes.a.clearCalls();
  });

  it("the checks before a job read the job's account's mirror only", async () => {
    const [a, b] = [await account('a'), await account('b')];
    await addJob(db(), a.id, { kind: 'delete_saved_invoice', payload: { id: 5 } });
    expect(await drain('a')).toEqual({ ran: 1, failed: 0 });
    expect((await mirrorRow(database.current.handle, 'saved_invoices', 5, a.id))?.deleted_at).not.toBeNull();
    expect((await mirrorRow(database.current.handle, 'saved_invoices', 5, b.id))?.deleted_at).toBeNull();

    // Saved invoice 5 is gone in A, not in B: the same action is refused for A, queued for B.
    const again = { kind: 'delete_saved_invoice', payload: { id: 5 } };
    await expect(addJob(db(), a.id, again)).rejects.toThrow(PrecheckError);
    await expect(addJob(db(), a.id, again)).rejects.toThrow(/saved invoice 5 no longer exists/);
    const forB = await addJob(db(), b.id, again);
    expect(forB.created).toBe(true);
    expect(await drain('b')).toEqual({ ran: 1, failed: 0 });
    expect(boxes.b.store.get('saved_invoices', 5)).toBeUndefined();
    boxes.a.clearCalls();
    boxes.b.clearCalls();
  });

  it('the accounts run side by side, one job at a time within each', async () => {
    const [a, b] = [await account('a'), await account('b')];
    for (const box of Object.values(boxes)) box.knobs.latencyMs = 60;
    const ids: Record<'a' | 'b', number[]> = { a: [], b: [] };
    for (let i = 0; i < 4; i++) {
      ids.a.push((await addJob(db(), a.id, { kind: 'set_product_stock', payload: { id: 1 + i, stock: 10 + i } })).id);
      ids.b.push((await addJob(db(), b.id, { kind: 'set_product_stock', payload: { id: 1 + i, stock: 20 + i } })).id);
    }
    try {
      const [ranA, ranB] = await Promise.all([drain('a'), drain('b')]);
      expect(ranA).toEqual({ ran: 4, failed: 0 });
      expect(ranB).toEqual({ ran: 4, failed: 0 });
    } finally {
      for (const box of Object.values(boxes)) box.knobs.latencyMs = 0;
    }
    // One call at a time to each service, and each account's jobs one after another…
    expect(boxes.a.maxConcurrency()).toBe(1);
    expect(boxes.b.maxConcurrency()).toBe(1);
    const spans = async (list: number[]) =>
      (await Promise.all(list.map((id) => jobRow(database.current.handle, id))))
        .map((r) => [new Date(r.started_at!).getTime(), new Date(r.finished_at!).getTime()] as const)
        .sort((x, y) => x[0] - y[0]);
    const [spansA, spansB] = [await spans(ids.a), await spans(ids.b)];
    for (const list of [spansA, spansB])
      for (let i = 1; i < list.length; i++) expect(list[i]![0]).toBeGreaterThanOrEqual(list[i - 1]![1]);
    // …while a job of A and a job of B were running at the same time.
    expect(spansA.some(([startA, endA]) => spansB.some(([startB, endB]) => startA < endB && startB < endA))).toBe(true);
    // Each service got its own account's values.
    expect(boxes.a.store.get('products', 4)?.stock).toBe(13);
    expect(boxes.b.store.get('products', 4)?.stock).toBe(23);
    boxes.a.clearCalls();
    boxes.b.clearCalls();
  });

  it('a refused key refuses its account, leaves its job queued with the attempt unspent, and stops only its runner', async () => {
    const [a, b] = [await account('a'), await account('b')];
    const goodKey = b.api_key!;
    await db()
      .updateTable('accounts')
      .set({ api_key: sealKey('not-the-key', SECRET) })
      .where('id', '=', b.id)
      .execute();
    const jobB = (await addJob(db(), b.id, { kind: 'set_product_stock', payload: { id: 6, stock: 66 } })).id;
    const jobsA = [
      (await addJob(db(), a.id, { kind: 'set_product_stock', payload: { id: 6, stock: 61 } })).id,
      (await addJob(db(), a.id, { kind: 'set_product_stock', payload: { id: 7, stock: 71 } })).id,
    ];
    const [runA, runB] = [await runnerOf('a'), await runnerOf('b')];
    const refusals: AccountRefused[] = [];
    runB.runner.on('refused', (refused) => refusals.push(refused));
    let outcomes: Awaited<ReturnType<typeof runA.runner.runUntilEmpty>>[];
    try {
      outcomes = await Promise.all([runA.runner.runUntilEmpty(), runB.runner.runUntilEmpty()]);
    } finally {
      await Promise.all([runA.close(), runB.close()]);
    }
    expect(outcomes[0]).toEqual({ ran: 2, failed: 0 });
    expect(outcomes[1]).toMatchObject({ ran: 1, failed: 0, refused: expect.stringMatching(/401 Unauthorized/) });

    // B: refused, with when and why; its job queued again, its attempt not spent, the 401 on record.
    const refusedB = await account('b');
    expect(refusedB.state).toBe('refused');
    expect(refusedB.state_reason).toMatch(
      new RegExp(
        `^the service answered 401 Unauthorized to job ${jobB} \\(set_product_stock\\) at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC$`,
      ),
    );
    expect(refusals).toEqual([{ accountId: b.id, account: 'b', reason: refusedB.state_reason }]);
    const row = await jobRow(database.current.handle, jobB);
    expect(row).toMatchObject({ status: 'queued', attempts: 0 });
    expect(row.errors).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'retry', error: expect.stringMatching(/401/) }),
    ]);
    expect(boxes.b.store.get('products', 6)?.stock).not.toBe(66);
    // A: its jobs went through.
    for (const id of jobsA) expect((await jobRow(database.current.handle, id)).status).toBe('succeeded');
    expect((await account('a')).state).toBe('active');

    // A runner of a refused account claims nothing: the key is not tried again…
    boxes.b.clearCalls();
    expect(await drain('b')).toEqual({ ran: 0, failed: 0 });
    expect(boxes.b.calls).toHaveLength(0);
    // …until the key is good again and a person resumes the account: then the job runs, as its first attempt.
    await db().updateTable('accounts').set({ api_key: goodKey }).where('id', '=', b.id).execute();
    await setAccountState(db(), b.id, 'active', null);
    expect(await drain('b')).toEqual({ ran: 1, failed: 0 });
    expect(await jobRow(database.current.handle, jobB)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(boxes.b.store.get('products', 6)?.stock).toBe(66);
    boxes.a.clearCalls();
    boxes.b.clearCalls();
  });

  it('an idempotency key is per account: the same key in A and B is two jobs', async () => {
    const [a, b] = [await account('a'), await account('b')];
    const job = { kind: 'set_product_stock', payload: { id: 8, stock: 5 }, idempotencyKey: 'stock-8' };
    const inA = await addJob(db(), a.id, job);
    const inB = await addJob(db(), b.id, job);
    expect(inA.created).toBe(true);
    expect(inB.created).toBe(true);
    expect(inB.id).not.toBe(inA.id);
    expect(await addJob(db(), a.id, job)).toEqual({ id: inA.id, created: false });
    expect(await addJob(db(), b.id, job)).toEqual({ id: inB.id, created: false });
    // A different action under A's key is refused in A only.
    await expect(addJob(db(), a.id, { ...job, payload: { id: 8, stock: 6 } })).rejects.toThrow(/already used by job/);
    expect(await Promise.all([drain('a'), drain('b')])).toEqual([
      { ran: 1, failed: 0 },
      { ran: 1, failed: 0 },
    ]);
    boxes.a.clearCalls();
    boxes.b.clearCalls();
  });

  it("a runner recovers only its own account's orphans", async () => {
    const [a, b] = [await account('a'), await account('b')];
    // A job of B left running by a worker that died (no one holds B's job lock).
    const orphan = await insertJob(
      database.current.handle,
      'set_product_stock',
      { id: 9, stock: 9 },
      { account_id: b.id },
    );
    await db().updateTable('jobs').set({ status: 'running', attempts: 1 }).where('id', '=', orphan).execute();
    await addJob(db(), a.id, { kind: 'set_product_stock', payload: { id: 9, stock: 1 } });
    expect(await drain('a')).toEqual({ ran: 1, failed: 0 });
    expect((await jobRow(database.current.handle, orphan)).status).toBe('running');
    // B's runner recovers it (repeatable: queued again) and runs it.
    expect(await drain('b')).toEqual({ ran: 1, failed: 0 });
    expect(await jobRow(database.current.handle, orphan)).toMatchObject({ status: 'succeeded', attempts: 2 });
    boxes.a.clearCalls();
    boxes.b.clearCalls();
  });

  it("started runners of both accounts are woken at once by their own account's new jobs", async () => {
    const [a, b] = [await account('a'), await account('b')];
    const [runA, runB] = [await runnerOf('a'), await runnerOf('b')];
    const finished: JobFinished[] = [];
    for (const open of [runA, runB]) open.runner.on('finished', (job) => finished.push(job));
    runA.runner.start();
    runB.runner.start();
    try {
      await sleep(100); // their first (empty) passes
      const queuedAt = Date.now();
      const forB = (await addJob(db(), b.id, { kind: 'set_product_stock', payload: { id: 10, stock: 2 } })).id;
      const forA = (await addJob(db(), a.id, { kind: 'set_product_stock', payload: { id: 10, stock: 1 } })).id;
      while (finished.length < 2 && Date.now() - queuedAt < 5000) await sleep(10);
      // The polling interval is a minute: only NOTIFY can have woken them this soon.
      expect(Date.now() - queuedAt).toBeLessThan(2000);
      expect(finished.map((job) => [job.account, job.id, job.status]).sort()).toEqual(
        [
          ['a', forA, 'succeeded'],
          ['b', forB, 'succeeded'],
        ].sort(),
      );
    } finally {
      await Promise.all([runA.close(), runB.close()]);
    }
  });

  it('a new job is for the account named; with several accounts, naming one is required', async () => {
    expect((await resolveAccounts(db(), 'b', { one: true })).name).toBe('b');
    await expect(resolveAccounts(db(), undefined, { one: true })).rejects.toThrow(UsageError);
    await expect(resolveAccounts(db(), undefined, { one: true })).rejects.toThrow(
      /--account: required, as the mirror holds 3 accounts \(a, b, default\)/,
    );
    await expect(resolveAccounts(db(), 'nope', { one: true })).rejects.toThrow(/no account named 'nope'/);
    // A plain INSERT without an account is refused when there are several (the migration's trigger).
    await expect(insertJob(database.current.handle, 'set_product_stock', { id: 1, stock: 1 })).rejects.toThrow(
      /jobs.account_id is required: 3 accounts exist/,
    );
  });
});

describe('the command line with two accounts (runs dist/: needs npm run build)', () => {
  const cliEnv = () => ({
    ...database.current.env,
    ACCOUNTS_SECRET: SECRET,
    // No INVOICING_API_* settings: account `default` has no credentials here.
    INVOICING_API_URL: undefined,
    INVOICING_API_USER: undefined,
    INVOICING_API_KEY: undefined,
    LOG_LEVEL: 'silent',
  });
  const cli = (...args: string[]) => runCli(args, { env: cliEnv() });

  it('jobs add needs --account, jobs list shows and filters the account, jobs run takes --account', async () => {
    const [a, b] = [await account('a'), await account('b')];
    const payload = (stock: number) => JSON.stringify({ id: 2, stock });
    expect(await cli('jobs', 'add', 'set_product_stock', payload(7))).toMatchObject({
      code: 2,
      stderr: 'invoice-mirror: --account: required, as the mirror holds 3 accounts (a, b, default); name one\n',
    });
    const toB = await cli('jobs', 'add', 'set_product_stock', payload(7), '--account', 'b');
    const toA = await cli('jobs', 'add', 'set_product_stock', payload(8), '--account', 'a');
    expect([toB.code, toA.code]).toEqual([0, 0]);
    const [idB, idA] = [Number(toB.stdout), Number(toA.stdout)];
    expect((await jobRow(database.current.handle, idB)).account_id).toBe(b.id);
    expect((await jobRow(database.current.handle, idA)).account_id).toBe(a.id);

    const listed = await cli('jobs', 'list', '--account', 'b', '--format', 'json');
    const rows = JSON.parse(listed.stdout) as { id: number; account: string }[];
    expect(rows.map((row) => Number(row.id))).toContain(idB);
    expect(new Set(rows.map((row) => row.account))).toEqual(new Set(['b']));

    // One account: its lines as ever; A's job waits.
    const runB = await cli('jobs', 'run', '--account', 'b');
    expect(runB).toMatchObject({ code: 0, stderr: '' });
    expect(runB.stdout).toMatch(new RegExp(`^job ${idB} set_product_stock: succeeded$`, 'm'));
    expect((await jobRow(database.current.handle, idA)).status).toBe('queued');
    expect(boxes.b.store.get('products', 2)?.stock).toBe(7);

    // Every active account: `default` cannot be served (no credentials) and is named; the others run.
    const runAll = await cli('jobs', 'run');
    expect(runAll.code).toBe(1);
    expect(runAll.stderr).toMatch(
      /^invoice-mirror: account default: INVOICING_API_USER: is required.*; its jobs wait\n$/,
    );
    expect(runAll.stdout).toMatch(new RegExp(`^a: job ${idA} set_product_stock: succeeded$`, 'm'));
    expect(boxes.a.store.get('products', 2)?.stock).toBe(8);
  });
});
