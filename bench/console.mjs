// Web console: server time of every page on a large mirror. Backfills BENCH_RECORDS (100,000)
// records from the sandbox into the schema bench_console (kept between runs: BENCH_REUSE=1 skips
// the backfill), queues BENCH_JOBS (5,000) jobs, then asks for each page BENCH_ROUNDS (5) times
// and prints the median and the slowest answer.
//
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/console.mjs
import { createServer } from 'node:http';
import { sql } from 'kysely';
import { request } from 'undici';
import { InvoicingClient } from '../dist/src/api/index.js';
import { REPORTS } from '../dist/src/catalog/index.js';
import { consoleListener } from '../dist/src/console/index.js';
import { migrate, openDatabase } from '../dist/src/db/index.js';
import { setLogLevel } from '../dist/src/log.js';
import { startSandbox } from '../dist/src/sandbox/index.js';
import { runSync } from '../dist/src/sync/index.js';
import { logger } from '../dist/src/log.js';
import { benchDatabaseUrl } from './database-url.mjs';

setLogLevel('warn');
const databaseUrl = benchDatabaseUrl(import.meta.url);
const records = Number(process.env.BENCH_RECORDS ?? 100_000);
const jobs = Number(process.env.BENCH_JOBS ?? 5_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const schema = 'bench_console';

const handle = await openDatabase({ databaseUrl, embeddedDbDir: '', schema, poolSize: 4 });
if (process.env.BENCH_REUSE !== '1') {
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
  await migrate(handle.db, schema);
  const sandbox = await startSandbox({ records, seed: 11 });
  const client = new InvoicingClient({ baseUrl: sandbox.url, user: 'sandbox', apiKey: 'sandbox', requestsPerHour: 0 });
  const started = performance.now();
  const outcome = await runSync(
    { account: { id: undefined, name: 'default' }, db: handle.db, client, schema, log: logger },
    {},
    { kind: 'backfill' },
  );
  console.log(
    `backfill of ${records.toLocaleString('en')} records: ${outcome.status} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  await client.close();
  await sandbox.close();
  await sql`insert into jobs (kind, payload, status, attempts, last_error, finished_at)
    select 'set_product_stock', jsonb_build_object('id', 1 + i % 100, 'stock', i), case when i % 10 = 0 then 'failed' else 'succeeded' end,
           1, case when i % 10 = 0 then 'PUT /products/1: 500 Server error' end, now()
      from generate_series(1, ${jobs}) as i`.execute(handle.db);
}
const counts =
  await sql`select (select count(*) from changes)::int as changes, (select count(*) from jobs)::int as jobs,
  (select count(*) from quotations)::int as quotations, (select count(*) from document_lines)::int as lines`.execute(
    handle.db,
  );
console.log('mirror:', counts.rows[0]);

const settings = { inDaemon: true, user: 'admin', password: undefined, token: undefined };
const server = createServer(consoleListener({ db: handle.db, settings, maxAttempts: 5 }));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
const { rows: sample } = await sql`select clientnr from clients order by clientnr limit 1 offset 500`.execute(
  handle.db,
);
const { rows: quotation } = await sql`select id from quotations order by id desc limit 1`.execute(handle.db);
const { rows: job } = await sql`select id from jobs order by id limit 1`.execute(handle.db);
const client = sample[0].clientnr;

const pages = [
  '/',
  '/jobs',
  '/jobs?status=failed&kind=set_product_stock',
  '/jobs?page=50',
  `/jobs/${job[0].id}`,
  '/jobs/new',
  '/changes',
  '/changes?entity=quotations&op=insert',
  `/changes?from=${new Date().toISOString().slice(0, 10)}`,
  '/changes?page=1000',
  `/changes/clients/${client}`,
  '/records',
  '/records/clients',
  '/records/clients?q=bakker',
  '/records/quotations?page=200',
  `/records/clients/${client}`,
  `/records/quotations/${quotation[0].id}`,
  '/reports',
  ...REPORTS.map((r) => `/reports/${r.name}`),
  ...REPORTS.map((r) => `/reports/${r.name}.csv`),
];
const rows = [];
for (const path of pages) {
  const times = [];
  let status = 0;
  let bytes = 0;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const answer = await request(base + path);
    const body = await answer.body.text();
    times.push(performance.now() - started);
    status = answer.statusCode;
    bytes = body.length;
  }
  times.sort((a, b) => a - b);
  rows.push({
    page: path,
    status,
    KB: Math.round(bytes / 1024),
    'median ms': Math.round(times[times.length >> 1]),
    'max ms': Math.round(times.at(-1)),
  });
}
console.table(rows);
const slow = rows.filter((r) => r['median ms'] > 200 && !r.page.endsWith('.csv'));
console.log(slow.length ? `over 200 ms: ${slow.map((r) => r.page).join(', ')}` : 'every page under 200 ms (median)');
server.close();
await handle.close();
