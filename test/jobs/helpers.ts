/**
 * A mirror schema, a sandbox and a filled mirror for the job tests, plus small helpers to queue
 * jobs by plain SQL and read them back.
 */
import { sql } from 'kysely';
import { beforeAll } from 'vitest';
import type { InvoicingClient } from '../../src/api/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import { jsonb, type DatabaseHandle } from '../../src/db/index.js';
import { JobRunner, type Backoff } from '../../src/jobs/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { runSync } from '../../src/sync/index.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase, type TestDatabase } from '../support/test-database.js';

export const PER_ENTITY = { clients: 20, products: 10, quotations: 20, saved_invoices: 40, repeating_invoices: 5 };
/** Quick retries, so retry tests do not wait out the real 5 s backoff. */
export const TEST_BACKOFF: Backoff = { baseMs: 150, maxMs: 400 };

export interface JobsEnv {
  database: { current: TestDatabase };
  box: { sandbox: Sandbox; client: InvoicingClient };
  config(): Config;
  runner(options?: { handle?: DatabaseHandle; client?: InvoicingClient; pollMs?: number }): JobRunner;
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
  beforeAll(async () => {
    if (options.backfill === false) return;
    const outcome = await runSync(
      { db: database.current.handle.db, client: box.client, schema: database.current.schema },
      { kind: 'backfill' },
    );
    if (outcome.status !== 'succeeded') throw new Error(`backfill: ${outcome.status} ${outcome.error ?? ''}`);
    box.sandbox.clearCalls();
  });
  return {
    database,
    box,
    config,
    runner: (o = {}) => {
      const base = config();
      return new JobRunner({
        database: o.handle ?? database.current.handle,
        client: o.client ?? box.client,
        config: { ...base, jobs: { ...base.jobs, pollIntervalMs: o.pollMs ?? 200 } },
        backoff: TEST_BACKOFF,
      });
    },
  };
}

/** Queues a job the way any program may: a plain INSERT. */
export async function insertJob(
  handle: DatabaseHandle,
  kind: string,
  payload: unknown,
  extra: { max_attempts?: number } = {},
): Promise<number> {
  const row = await handle.db
    .insertInto('jobs')
    .values({ kind, payload: jsonb(payload), ...extra })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function jobRow(handle: DatabaseHandle, id: number) {
  return handle.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function mirrorRow(
  handle: DatabaseHandle,
  table: string,
  key: number,
): Promise<Record<string, unknown> | undefined> {
  const keyName = table === 'clients' ? 'clientnr' : 'id';
  const { rows } = await sql<
    Record<string, unknown>
  >`select * from ${sql.table(table)} where ${sql.ref(keyName)} = ${key}`.execute(handle.db);
  return rows[0];
}

/** The service calls that change something (everything but reads). */
export function writeCalls(sandbox: Sandbox) {
  return sandbox.calls.filter((c) => c.method !== 'GET');
}
