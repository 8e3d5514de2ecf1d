// Requests and time per kind of invoices pull, for an account of BENCH_INVOICES (10,000) sent
// invoices at the default page size (250): the first, full pull; a sync with nothing new; a sync
// after a day's activity (new invoices sent, payments made); and a full, reconciling pull on a
// filled mirror. Needs a Postgres (DATABASE_URL); run after a build:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/invoices.mjs
// BENCH_LATENCY_MS (default 0) adds that latency to every answer of the sandbox.
import { sql } from 'kysely';
import { InvoicingClient } from '../dist/src/api/index.js';
import { migrate, openDatabase } from '../dist/src/db/index.js';
import { setLogLevel } from '../dist/src/log.js';
import { startSandbox } from '../dist/src/sandbox/index.js';
import { runSync } from '../dist/src/sync/index.js';
import { logger } from '../dist/src/log.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl)
  throw new Error('set DATABASE_URL to a Postgres this benchmark may write the schema bench_invoices to');
const invoices = Number(process.env.BENCH_INVOICES ?? 10_000);
const pageSize = Number(process.env.BENCH_PAGE_SIZE ?? 500);
const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 0);
setLogLevel('error');

const sandbox = await startSandbox({ records: 500, sentInvoices: invoices, seed: 5, sendMsPerInvoice: 0 });
const client = new InvoicingClient({
  baseUrl: sandbox.url,
  user: 'sandbox',
  apiKey: 'sandbox',
  pageSize,
  requestsPerHour: 0,
});
const schema = 'bench_invoices';
const handle = await openDatabase({ databaseUrl, embeddedDbDir: '', schema, poolSize: 4 });
await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
await migrate(handle.db, schema);

async function pull(label, options) {
  sandbox.knobs.latencyMs = latencyMs;
  sandbox.clearCalls();
  const started = performance.now();
  const outcome = await runSync(
    { account: { id: undefined, name: 'default' }, db: handle.db, client, schema, log: logger },
    { writeConcurrency: 2 },
    { kind: 'sync', entities: ['invoices'], ...options },
  );
  const seconds = (performance.now() - started) / 1000;
  sandbox.knobs.latencyMs = 0;
  if (outcome.status !== 'succeeded') throw new Error(`${label}: ${outcome.status}: ${outcome.error}`);
  const paths = sandbox.calls.map((c) => (c.query ? `${c.path}?${c.query.replace(/^\?/, '')}` : c.path));
  const e = outcome.entities.invoices;
  return {
    pull: label,
    kind: e.incremental ? 'incremental' : 'full',
    requests: paths.length,
    'list pages': paths.filter((p) => /\/invoices\?/.test(p)).length,
    'single reads': paths.filter((p) => /\/invoices\/\d+/.test(p)).length,
    fetched: e.fetched,
    written: e.inserted + e.updated,
    seconds: Number(seconds.toFixed(2)),
  };
}

const rows = [];
rows.push(await pull('first pull', {}));
rows.push(await pull('nothing new', {}));
// A day's activity: 20 invoices sent, 30 payments (half in full, so they leave the open list).
const saved = sandbox.store
  .list('saved_invoices')
  .slice(0, 20)
  .map((s) => Number(s.id));
await client.sendSavedInvoices(saved, { delete: true });
const open = sandbox.store.sentInvoices().filter((i) => Number(i.open) > 1 && i.uncollectible === '');
for (const [n, invoice] of open.slice(0, 30).entries()) {
  await client.registerPayment(Number(invoice.id), {
    amount: n % 2 === 0 ? 'full' : 1,
    date: '2026-11-01',
    method: 'bank',
  });
}
rows.push(await pull('after a day (20 sent, 30 paid)', {}));
rows.push(await pull('reconciling (sync --full)', { full: true }));

const openNow = sandbox.store.sentInvoices().filter((i) => Number(i.open) > 0 && i.uncollectible === '').length;
console.log(
  `invoices: ${invoices.toLocaleString('en')} sent (${openNow.toLocaleString('en')} open), pages of ${pageSize}, latency ${latencyMs} ms`,
);
console.table(rows);
await client.close();
await handle.close();
await sandbox.close();
