// Size and time of `export xaf` for a year of about BENCH_XAF_INVOICES (10,000) sent invoices: the
// sandbox sends twice as many over its two years, a full pull puts them in the mirror, then the
// year 2026 is read (xafExport: invoices, lines, clients, payments) and written (writeXaf) to a
// file. Needs a Postgres (DATABASE_URL); run after a build:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/xaf.mjs
import { statSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { InvoicingClient } from '../dist/src/api/index.js';
import { migrate, openDatabase } from '../dist/src/db/index.js';
import { ensureDefaultAccount, accountNamed } from '../dist/src/accounts/store.js';
import { yearPeriod } from '../dist/src/exports/period.js';
import { xafExport } from '../dist/src/exports/run.js';
import { writeXaf } from '../dist/src/exports/xaf.js';
import { setLogLevel } from '../dist/src/log.js';
import { startSandbox } from '../dist/src/sandbox/index.js';
import { runSync } from '../dist/src/sync/index.js';
import { logger } from '../dist/src/log.js';
import { benchDatabaseUrl } from './database-url.mjs';

const databaseUrl = benchDatabaseUrl(import.meta.url);
const perYear = Number(process.env.BENCH_XAF_INVOICES ?? 10_000);
setLogLevel('error');

// Invoices are sent over the 700 days before `now`: a year holds about 365/700 of them (5 % more for chance).
const sandbox = await startSandbox({
  records: 500,
  sentInvoices: Math.ceil((perYear * 700 * 1.05) / 365),
  seed: 5,
  sendMsPerInvoice: 0,
  now: '2027-01-01T12:00:00Z',
});
const client = new InvoicingClient({
  baseUrl: sandbox.url,
  user: 'sandbox',
  apiKey: 'sandbox',
  pageSize: 500,
  requestsPerHour: 0,
});
const schema = 'bench_xaf';
const handle = await openDatabase({ databaseUrl, embeddedDbDir: '', schema, poolSize: 4 });
await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
await migrate(handle.db, schema);
await ensureDefaultAccount(handle.db);
const account = await accountNamed(handle.db, 'default');
await runSync(
  { account: { id: account.id, name: account.name }, db: handle.db, client, schema, log: logger },
  { writeConcurrency: 2 },
  { kind: 'backfill' },
);

const seller = { name: 'Bench B.V.', vatNumber: 'NL001234567B01', country: 'NL', address: {} };
const out = join(tmpdir(), `bench-xaf-${process.pid}.xaf`);
const started = performance.now();
const xaf = await xafExport(handle.db, account.id, yearPeriod('--year', '2026'), seller);
const read = performance.now();
const file = createWriteStream(out);
writeXaf(xaf.input, (chunk) => file.write(chunk));
await new Promise((resolve) => file.end(resolve));
const written = performance.now();
const lines = xaf.input.invoices.reduce((sum, invoice) => sum + invoice.lines.length, 0);
console.log(
  `XAF 2026: ${xaf.input.invoices.length} invoices (${lines} lines), ${xaf.input.payments.length} payments, ${xaf.problems.length} of them with an entry vat_entries cannot classify (booked under U codes, named); ` +
    `${(statSync(out).size / 1024 / 1024).toFixed(1)} MiB; read ${((read - started) / 1000).toFixed(2)} s, written ${((written - read) / 1000).toFixed(2)} s, ` +
    `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (${out})`,
);
// BENCH_XAF_KEEP=1 keeps the schema bench_xaf for a look at the queries.
if (process.env.BENCH_XAF_KEEP !== '1') await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
await handle.close();
await client.close();
await sandbox.close();
