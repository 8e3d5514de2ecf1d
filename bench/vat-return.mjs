// Time of one account's VAT return of one quarter (`report vat_return_nl --account A --period Q`, the
// console's VAT page, the exports), the query the report runner makes, on mirrors of different
// sizes:
//   - 1 account of BENCH_VAT_INVOICES (10,000) sent invoices;
//   - 3 accounts of a third of that each (the mirror of issue 44's tests);
//   - BENCH_VAT_ACCOUNTS (300) accounts of BENCH_VAT_PER_ACCOUNT (334) invoices each: 3 accounts
//     pulled from the sandbox, cloned in SQL (invoices and countries; ids kept, as each account has
//     its own) into the others.
// Each mirror is pulled from the sandbox by the real sync. Per mirror: the median of BENCH_ROUNDS
// (5) runs of vat_return_nl, vat_return_be, icp_return and vat_problems for one account and
// quarter, and the plan's execution time (EXPLAIN ANALYZE) of vat_return_nl.
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/vat-return.mjs
import { sql } from 'kysely';
import { InvoicingClient } from '../dist/src/api/index.js';
import { findReport } from '../dist/src/catalog/index.js';
import { migrate, openDatabase } from '../dist/src/db/index.js';
import { setLogLevel } from '../dist/src/log.js';
import { runReport } from '../dist/src/reports/index.js';
import { startSandbox } from '../dist/src/sandbox/index.js';
import { runSync } from '../dist/src/sync/index.js';
import { logger } from '../dist/src/log.js';
import { benchDatabaseUrl } from './database-url.mjs';

const databaseUrl = benchDatabaseUrl(import.meta.url);
const total = Number(process.env.BENCH_VAT_INVOICES ?? 10_000);
const manyAccounts = Number(process.env.BENCH_VAT_ACCOUNTS ?? 300);
const perAccount = Number(process.env.BENCH_VAT_PER_ACCOUNT ?? 334);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
// BENCH_VAT_KEEP=1 keeps the schemas (bench_vat_one, bench_vat_three, bench_vat_many) for a look at the plans.
const keep = process.env.BENCH_VAT_KEEP === '1';
const only = (process.env.BENCH_VAT_ONLY ?? 'one,three,many').split(',');
setLogLevel('error');

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A schema with `accounts` sandbox accounts of `invoices` sent invoices each, pulled by the sync. */
async function pulledMirror(schema, accounts, invoices) {
  const sandbox = await startSandbox({
    accounts,
    seed: 44,
    perEntity: { clients: 400, products: 5, quotations: 0, saved_invoices: 5, repeating_invoices: 0 },
    sentInvoices: invoices,
    sendMsPerInvoice: 0,
    now: '2027-01-10T12:00:00Z',
  });
  const handle = await openDatabase({ databaseUrl, embeddedDbDir: '', schema, poolSize: 4 });
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
  await migrate(handle.db, schema);
  for (const slot of sandbox.accounts) {
    const { id } = await handle.db
      .insertInto('accounts')
      .values({ name: `client-${slot.index}`, vat_country: slot.index === 3 ? 'BE' : 'NL' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const client = new InvoicingClient({
      baseUrl: sandbox.url,
      user: slot.user,
      apiKey: slot.apiKey,
      pageSize: 500,
      requestsPerHour: 0,
    });
    await runSync(
      { account: { id, name: `bench${id}` }, db: handle.db, client, schema, log: logger },
      { writeConcurrency: 2 },
      { kind: 'backfill' },
    );
    await client.close();
  }
  await sandbox.close();
  return handle;
}

/** Clones the three pulled accounts (their invoices and countries) until there are `count` accounts. */
async function cloneAccounts(db, count) {
  const { rows: templates } = await sql`select id, vat_country from accounts order by id`.execute(db);
  const columns = async (table) => {
    const { rows } = await sql`
      select column_name from information_schema.columns
       where table_schema = current_schema() and table_name = ${table} and column_name <> 'account_id'
         and is_generated = 'NEVER' order by ordinal_position`.execute(db);
    return rows.map((row) => sql.ref(row.column_name));
  };
  const invoiceColumns = await columns('invoices');
  const countryColumns = await columns('countries');
  for (let i = templates.length + 1; i <= count; i++) {
    const template = templates[(i - 1) % templates.length];
    const { rows } = await sql`
      insert into accounts (name, vat_country) values (${`client-${i}`}, ${template.vat_country}) returning id`.execute(
      db,
    );
    const id = rows[0].id;
    for (const [table, list] of [
      ['countries', countryColumns],
      ['invoices', invoiceColumns],
    ])
      await sql`insert into ${sql.table(table)} (account_id, ${sql.join(list)})
                select ${id}, ${sql.join(list)} from ${sql.table(table)} where account_id = ${template.id}`.execute(db);
  }
  await sql`analyze`.execute(db);
}

/** The median milliseconds of a report of one account and period, and the rows it gave. */
async function timeReport(db, schema, name, accountId, period) {
  const report = findReport(name);
  const times = [];
  let rows = 0;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const result = await runReport(db, schema, report, { scope: { ids: [accountId] }, period });
    times.push(performance.now() - started);
    rows = result.rows.length;
  }
  return { ms: median(times), rows };
}

async function explainMs(db, accountId, period) {
  const { rows } = await sql`
    explain (analyze, format json) select * from vat_return_nl
     where account_id = any(${[accountId]}::int[]) and period = ${period}`.execute(db);
  return rows[0]['QUERY PLAN'][0]['Execution Time'];
}

async function measure(label, schema, db) {
  const { rows: sizes } = await sql`
    select count(distinct account_id)::int as accounts, count(*)::int as invoices from invoices`.execute(db);
  const { rows: nl } = await sql`select id from accounts where vat_country = 'NL' order by id limit 1`.execute(db);
  const { rows: be } = await sql`select id from accounts where vat_country = 'BE' order by id limit 1`.execute(db);
  // The account's busiest quarter.
  const { rows: quarter } = await sql`
    select to_char(sent, 'YYYY-"Q"Q') as q from invoices where account_id = ${nl[0].id} and sent is not null
     group by 1 order by count(*) desc, 1 desc limit 1`.execute(db);
  const period = quarter[0].q;
  const figures = [];
  for (const [name, account] of [
    ['vat_return_nl', nl[0]],
    ['vat_return_be', be[0]],
    ['icp_return', nl[0]],
    ['vat_problems', nl[0]],
  ]) {
    if (!account) continue;
    const { ms, rows } = await timeReport(db, schema, name, account.id, period);
    figures.push(`${name} ${ms.toFixed(0)} ms (${rows} rows)`);
  }
  const plan = median(await Promise.all(Array.from({ length: 3 }, () => explainMs(db, nl[0].id, period))));
  console.log(
    `${label}: ${sizes[0].accounts} accounts, ${sizes[0].invoices} invoices; one account's ${period}: ${figures.join(', ')}; vat_return_nl plan ${plan.toFixed(0)} ms`,
  );
}

async function done(handle, schema) {
  if (!keep) await sql`drop schema ${sql.id(schema)} cascade`.execute(handle.db);
  await handle.close();
}

if (only.includes('one')) {
  const one = await pulledMirror('bench_vat_one', 1, total);
  await measure('1 account', 'bench_vat_one', one.db);
  await done(one, 'bench_vat_one');
}
if (only.includes('three')) {
  const three = await pulledMirror('bench_vat_three', 3, Math.ceil(total / 3));
  await measure('3 accounts', 'bench_vat_three', three.db);
  await done(three, 'bench_vat_three');
}
if (only.includes('many')) {
  const many = await pulledMirror('bench_vat_many', 3, perAccount);
  await cloneAccounts(many.db, manyAccounts);
  await measure(`${manyAccounts} accounts`, 'bench_vat_many', many.db);
  await done(many, 'bench_vat_many');
}
