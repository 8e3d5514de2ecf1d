#!/usr/bin/env node
/**
 * Job runner latency: how soon a started runner picks up a job inserted by plain SQL (pickup:
 * insert → started_at, via NOTIFY), and what the runner adds on top of the service's own time
 * (overhead: finished_at − started_at − the time of the job's calls in the sandbox's call log;
 * that includes the mirror checks, the progress writes and the refresh's merge).
 *
 *   npm run build
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/jobs-latency.mjs
 *
 * Settings: BENCH_JOBS (jobs per kind, default 50), BENCH_SEND_MS (sandbox send time per
 * invoice, default 100). The polling backstop is set to 60 s, so every pickup is by NOTIFY.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { accountNamed, ensureDefaultAccount } from '../dist/src/accounts/store.js';
import { InvoicingClient } from '../dist/src/api/index.js';
import { loadConfig } from '../dist/src/config.js';
import { migrate, openDatabase } from '../dist/src/db/index.js';
import { JobRunner } from '../dist/src/jobs/index.js';
import { setLogLevel } from '../dist/src/log.js';
import { startSandbox } from '../dist/src/sandbox/index.js';
import { runSync } from '../dist/src/sync/index.js';
import { logger } from '../dist/src/log.js';
import { benchDatabaseUrl } from './database-url.mjs';

const url = benchDatabaseUrl(import.meta.url);
const N = Number(process.env.BENCH_JOBS ?? 50);
const SEND_MS = Number(process.env.BENCH_SEND_MS ?? 100);
setLogLevel('warn');

const schema = `bench_jobs_${randomBytes(4).toString('hex')}`;
const sandbox = await startSandbox({
  seed: 3,
  perEntity: { clients: 50, products: 50, quotations: 10, saved_invoices: N + 10, repeating_invoices: 5 },
  sendMsPerInvoice: SEND_MS,
});
const handle = await openDatabase({ databaseUrl: url, embeddedDbDir: '', schema });
const plain = postgres(url, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
const client = new InvoicingClient({
  baseUrl: sandbox.url,
  user: sandbox.user,
  apiKey: sandbox.apiKey,
  requestsPerHour: 0,
});
let runner;
try {
  await migrate(handle.db, schema);
  await ensureDefaultAccount(handle.db);
  const account = await accountNamed(handle.db, 'default');
  await runSync(
    { account: { id: account.id, name: account.name }, db: handle.db, client, schema, log: logger },
    {},
    { kind: 'backfill' },
  );
  const config = loadConfig({
    DATABASE_URL: url,
    MIRROR_SCHEMA: schema,
    INVOICING_API_URL: sandbox.url,
    JOB_POLL_INTERVAL_MS: '60000',
  });
  runner = new JobRunner({ database: handle, account, client, config });
  const waiting = new Map();
  runner.on('finished', (job) => waiting.get(job.id)?.(job));
  runner.start();
  await new Promise((resolve) => setTimeout(resolve, 300)); // first (empty) pass done, LISTEN in place

  const kinds = [
    {
      name: `send_saved_invoices (1 id, ${SEND_MS} ms send)`,
      kind: 'send_saved_invoices',
      payload: (i) => ({ ids: [i + 1], delete: false }),
    },
    { name: 'set_product_stock', kind: 'set_product_stock', payload: (i) => ({ id: (i % 50) + 1, stock: i }) },
  ];
  const rows = [];
  for (const k of kinds) {
    const pickup = [];
    const overhead = [];
    const upstream = [];
    for (let i = 0; i < N; i++) {
      sandbox.clearCalls();
      const [{ id }] =
        await plain`insert into jobs (kind, payload) values (${k.kind}, ${plain.json(k.payload(i))}) returning id`;
      const job = await new Promise((resolve) => waiting.set(Number(id), resolve));
      waiting.delete(Number(id));
      if (job.status !== 'succeeded') throw new Error(`job ${id} ${job.status}: ${job.error}`);
      const [t] = await plain`
        select extract(epoch from started_at - created_at) * 1000 as pickup,
               extract(epoch from finished_at - started_at) * 1000 as run
        from jobs where id = ${id}`;
      const calls = sandbox.calls.reduce((sum, c) => sum + (c.endedAt - c.startedAt), 0);
      pickup.push(Number(t.pickup));
      upstream.push(calls);
      overhead.push(Number(t.run) - calls);
    }
    rows.push({
      kind: k.name,
      jobs: N,
      ...stats('pickup', pickup),
      ...stats('overhead', overhead),
      'upstream mean ms': mean(upstream).toFixed(1),
    });
  }
  console.log(
    `job runner latency: ${N} jobs per kind, inserted one at a time by plain SQL while a started runner waits (poll 60 s)`,
  );
  console.table(rows);
} finally {
  await runner?.stop();
  await client.close();
  await plain.end();
  await handle.db.schema.dropSchema(schema).ifExists().cascade().execute();
  await handle.close();
  await sandbox.close();
}

function quantile(sorted, q) {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}
function mean(values) {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
function stats(label, values) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    [`${label} p50 ms`]: quantile(sorted, 0.5).toFixed(1),
    [`${label} p95 ms`]: quantile(sorted, 0.95).toFixed(1),
    [`${label} max ms`]: sorted[sorted.length - 1].toFixed(1),
  };
}
