/**
 * A mirror schema, a sandbox and a filled mirror for the job tests, plus small helpers to queue
 * jobs by plain SQL and read them back. The mirror has one account, `default` (the test
 * database's), whose service is the sandbox: its jobs, runner and pulls are that account's.
 */
import { sql, type Insertable } from 'kysely';
import { beforeAll } from 'vitest';
import type { InvoicingClient } from '../../src/api/index.js';
import { DEFAULT_ACCOUNT } from '../../src/accounts/store.js';
import { loadConfig, type Config } from '../../src/config.js';
import { jsonb, type DatabaseHandle } from '../../src/db/index.js';
import type { JobsTable } from '../../src/db/schema.js';
import { JobRunner, type Backoff } from '../../src/jobs/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { runSync, type SyncOptions, type SyncOutcome } from '../../src/sync/index.js';
import { useSandbox } from '../support/sandbox.js';
import { testSession, useTestDatabase, type TestDatabase } from '../support/test-database.js';

export const PER_ENTITY = { clients: 20, products: 10, quotations: 20, saved_invoices: 40, repeating_invoices: 5 };
/** Quick retries, so retry tests do not wait out the real 5 s backoff. */
export const TEST_BACKOFF: Backoff = { baseMs: 150, maxMs: 400 };

export interface JobsEnv {
  database: { current: TestDatabase };
  box: { sandbox: Sandbox; client: InvoicingClient };
  /** The account of the tests, `default`. */
  account(): { id: number; name: string };
  config(): Config;
  runner(options?: { handle?: DatabaseHandle; client?: InvoicingClient; pollMs?: number }): JobRunner;
  /** A pull of the account from the sandbox (a failed one throws). */
  sync(options?: SyncOptions): Promise<SyncOutcome>;
}

/** Registers the hooks: a fresh schema, a sandbox (fast sends), and a backfilled mirror. */
export function useJobsEnv(options: { backfill?: boolean; sendMsPerInvoice?: number } = {}): JobsEnv {
  const database = useTestDatabase();
  const box = useSandbox(
    { perEntity: PER_ENTITY, sendMsPerInvoice: options.sendMsPerInvoice ?? 20 },
    { rateLimitPauseMs: 300 },
  );
  const config = () =>
    loadConfig({
      DATABASE_URL: database.current.url,
      MIRROR_SCHEMA: database.current.schema,
      INVOICING_API_URL: box.sandbox.url,
      JOB_POLL_INTERVAL_MS: '200',
    });
  const account = () => ({ id: database.current.accountId, name: DEFAULT_ACCOUNT });
  const sync = async (o: SyncOptions = { kind: 'sync' }) => {
    const { handle, schema } = database.current;
    const session = testSession({ db: handle.db, accountId: account().id, client: box.client, schema });
    const outcome = await runSync(session, {}, o);
    if (outcome.status !== 'succeeded') throw new Error(`${o.kind}: ${outcome.status} ${outcome.error ?? ''}`);
    return outcome;
  };
  beforeAll(async () => {
    if (options.backfill === false) return;
    await sync({ kind: 'backfill' });
    box.sandbox.clearCalls();
  });
  return {
    database,
    box,
    account,
    config,
    sync,
    runner: (o = {}) => {
      const base = config();
      return new JobRunner({
        database: o.handle ?? database.current.handle,
        account: account(),
        client: o.client ?? box.client,
        config: { ...base, jobs: { ...base.jobs, pollIntervalMs: o.pollMs ?? 200 } },
        backoff: TEST_BACKOFF,
      });
    },
  };
}

/**
 * Queues a job the way any program may: a plain INSERT (without an account, the trigger gives it
 * the only account; with several, name it in `extra.account_id`).
 */
export async function insertJob(
  handle: DatabaseHandle,
  kind: string,
  payload: unknown,
  extra: { max_attempts?: number; account_id?: number } = {},
): Promise<number> {
  // The program always names the account (schema.ts types it required); SQL may leave it out.
  const values = { kind, payload: jsonb(payload), ...extra } as Insertable<JobsTable>;
  const row = await handle.db.insertInto('jobs').values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function jobRow(handle: DatabaseHandle, id: number) {
  return handle.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** A record of the mirror (of one account, when `accountId` is given; the tests of one account need not). */
export async function mirrorRow(
  handle: DatabaseHandle,
  table: string,
  key: number,
  accountId?: number,
): Promise<Record<string, unknown> | undefined> {
  const keyName = table === 'clients' ? 'clientnr' : 'id';
  const account = accountId === undefined ? sql`true` : sql`account_id = ${accountId}`;
  const { rows } = await sql<Record<string, unknown>>`
    select * from ${sql.table(table)} where ${sql.ref(keyName)} = ${key} and ${account}`.execute(handle.db);
  return rows[0];
}

/** The service calls that change something (everything but reads). */
export function writeCalls(sandbox: Sandbox) {
  return sandbox.calls.filter((c) => c.method !== 'GET');
}
