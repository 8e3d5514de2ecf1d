// The performance table of one run: the `invoice-mirror` command as a user runs it (its own
// process, wall clock from spawn to exit, process start included) against the floor, for the two
// cases of the performance issue, plus requests per pull and peak RSS by size.
//
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/perf.mjs
//   options (environment): BENCH_ROUNDS=3 BENCH_MEMORY_SIZES=25000,100000,200000
//   BENCH_PAGE_SIZES=250,500,1000 BENCH_REQUEST_SIZES=10000,50000,100000 (records per entity)
//   BENCH_CASES=latency,cpu BENCH_FLEET_RECORDS=1000 BENCH_FLEET_SYNCS=10
//
// Each round runs, one after the other: `backfill` into a dropped schema, `sync` with nothing
// changed, and the floor: a fresh Node process that fetches (undici, one request in flight) and
// JSON.parses exactly the pages that sync asked for, in the same order, and nothing else. The
// sandbox runs in a child process of its own (`invoice-mirror sandbox --admin`); its call log
// gives the requests and the moment the first one arrived. Medians of the rounds are shown.
//
// The write floor of a round: PostgreSQL loading the very rows the backfill left (every table of
// its schema), by COPY from the bench process, into a fresh schema of the same migrations, foreign
// keys on and the tables' own triggers off (writeFloor). The backfill is compared with the sum of
// the two floors, and the write floor with the read floor.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startSandboxChild } from './sandbox-child.mjs';
import { benchDatabaseUrl } from './database-url.mjs';
import { dumpRows, freshSchema, loadRows } from './copy-rows.mjs';

const cli = fileURLToPath(new URL('../dist/cli/cli.js', import.meta.url));
const here = fileURLToPath(import.meta.url);
const now = () => performance.timeOrigin + performance.now();
const AUTH = `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}`;

// --- the floor, in a child process of its own: node bench/perf.mjs floor <base> <file of paths>
if (process.argv[2] === 'floor') {
  const [, , , base, listFile] = process.argv;
  for (const path of JSON.parse(readFileSync(listFile, 'utf8'))) {
    const answer = await request(base + path, { headers: { authorization: AUTH, accept: 'application/json' } });
    JSON.parse(await answer.body.text());
  }
  process.exit(0);
}

const databaseUrl = benchDatabaseUrl(import.meta.url);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const list = (name, fallback) => (process.env[name] ?? fallback).split(',').filter(Boolean);
const CASES = {
  latency: { title: '25k records, 40 ms per answer, pages of 250', records: 25_000, latencyMs: 40, pageSize: 250 },
  // 10k per list: the sandbox's five lists, the sent invoices and the countries (60k records).
  cpu: {
    title: '60k records (10k per list), zero latency, pages of 500',
    records: 50_000,
    sentInvoices: 10_000,
    latencyMs: 0,
    pageSize: 500,
    changedShare: 0.01,
  },
};
// BENCH_SCHEMA: another schema, so that two checkouts can run this on one server at once.
const schema = process.env.BENCH_SCHEMA ?? 'bench_perf';
const timeBinary = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
// Loaded here, not above: the floor (a process of this file) loads nothing but undici.
const { default: postgres } = await import('postgres');
const { InvoicingClient } = await import('../dist/src/api/index.js');
const sql = postgres(databaseUrl, { onnotice: () => {} });

function startSandbox(records, latencyMs, extra = []) {
  // Sent invoices default to the sandbox's own choice (as many as saved invoices, at most 500).
  return startSandboxChild(cli, [
    '--records',
    String(records),
    '--seed',
    '7',
    '--latency',
    String(latencyMs),
    ...extra,
  ]);
}

/** Runs a command to its end; wall clock from spawn to exit, and its peak RSS where /usr/bin/time is there. */
function timed(args, env) {
  const rssFile = join(tmpdir(), `bench-perf-rss-${process.pid}`);
  const [command, ...rest] = timeBinary
    ? [timeBinary, '-f', '%M %U %S', '-o', rssFile, process.execPath, ...args]
    : [process.execPath, ...args];
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(command, rest, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let errors = '';
    child.stderr.on('data', (chunk) => (errors += chunk));
    child.on('exit', (code) => {
      const ended = now();
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}: ${errors.slice(-2000)}`));
      // Peak RSS in kB, then user and system CPU seconds.
      const [rssKb, user, system] = timeBinary ? readFileSync(rssFile, 'utf8').trim().split(/\s+/).map(Number) : [];
      if (timeBinary) rmSync(rssFile, { force: true });
      const cpuMs = timeBinary ? Math.round((user + system) * 1000) : undefined;
      resolve({ started, ms: ended - started, rssMb: timeBinary ? Math.round(rssKb / 1024) : undefined, cpuMs });
    });
  });
}

function mirrorCommand(command, sandbox, pageSize) {
  const env = {
    DATABASE_URL: databaseUrl,
    MIRROR_SCHEMA: schema,
    INVOICING_API_URL: sandbox.api,
    INVOICING_API_USER: 'sandbox',
    INVOICING_API_KEY: 'sandbox',
    PAGE_SIZE: String(pageSize),
    // The gate still counts every request; the budget only has to outlast the rounds.
    REQUESTS_PER_HOUR: '1000000',
    LOG_LEVEL: 'warn',
  };
  return async () => {
    await sandbox.admin('DELETE', 'calls');
    const run = await timed([cli, command], env);
    const calls = await sandbox.admin('GET', 'calls');
    return { ...run, calls, firstRequestMs: calls.length ? calls[0].startedAt - run.started : Number.NaN };
  };
}

const floorSchema = `${schema}_floor`;

/**
 * Copies every row the backfill left out of its schema (into memory), migrates a fresh schema,
 * turns its tables' own triggers off, and times COPY of those rows into it: what PostgreSQL needs
 * to hold them, foreign keys and indexes included. Returns the milliseconds and the rows.
 */
async function writeFloor() {
  const loads = await dumpRows(sql, postgres, databaseUrl, schema);
  await freshSchema(sql, databaseUrl, floorSchema, loads);
  const started = now();
  await loadRows(postgres, databaseUrl, floorSchema, loads);
  const ms = now() - started;
  const counted = await sql.unsafe(
    loads.map(({ table }) => `select count(*)::int as n from ${floorSchema}."${table}"`).join(' union all '),
  );
  await sql.unsafe(`drop schema if exists ${floorSchema} cascade`);
  return { ms, rows: counted.reduce((sum, row) => sum + row.n, 0) };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const x = (ratio) => `${ratio.toFixed(2)}×`;

async function measureCase(name) {
  const spec = CASES[name];
  const sandbox = await startSandbox(
    spec.records,
    spec.latencyMs,
    spec.sentInvoices === undefined ? [] : ['--sent-invoices', String(spec.sentInvoices)],
  );
  const listFile = join(tmpdir(), `bench-perf-pages-${process.pid}.json`);
  const results = [];
  try {
    for (let round = 0; round < rounds; round++) {
      await sql.unsafe(`drop schema if exists ${schema} cascade`);
      const backfill = await mirrorCommand('backfill', sandbox, spec.pageSize)();
      const resync = await mirrorCommand('sync', sandbox, spec.pageSize)();
      const changes = await sql.unsafe(
        `select count(*)::int as n from ${schema}.changes c join ${schema}.sync_runs r on r.id = c.sync_run_id
         where r.id = (select max(id) from ${schema}.sync_runs)`,
      );
      const paths = resync.calls.map(
        (call) => `${call.path.replace(/^\/api\/v1/, '')}${call.query ? `?${call.query}` : ''}`,
      );
      writeFileSync(listFile, JSON.stringify(paths));
      await sandbox.admin('DELETE', 'calls');
      const floor = await timed([here, 'floor', sandbox.api, listFile], {});
      // The backfill's rows, as the resync left them (it wrote none: 'sync writes').
      const written = name === 'cpu' || process.env.BENCH_WRITE_FLOOR === '1' ? await writeFloor() : undefined;
      // Then a share of the records changed upstream (churn: updates, inserts, deletes, restores).
      let changed;
      if (spec.changedShare) {
        await sandbox.admin('POST', 'churn', { count: Math.round(spec.records * spec.changedShare) });
        changed = await mirrorCommand('sync', sandbox, spec.pageSize)();
      }
      results.push({ backfill, resync, floor, written, changed, resyncChanges: changes[0].n });
      process.stderr.write(
        `  ${name} round ${round + 1}: floor ${s(floor.ms)}, backfill ${s(backfill.ms)}, sync ${s(resync.ms)} (first request ${Math.round(resync.firstRequestMs)} ms, ${resync.calls.length} requests, ${changes[0].n} changes)${written ? `, write floor ${s(written.ms)} (${written.rows} rows)` : ''}${changed ? `, ${spec.changedShare * 100} % changed ${s(changed.ms)}` : ''}\n`,
      );
    }
  } finally {
    rmSync(listFile, { force: true });
    sandbox.child.kill();
  }
  return {
    case: spec.title,
    floor: s(median(results.map((r) => r.floor.ms))),
    backfill: `${s(median(results.map((r) => r.backfill.ms)))} (${x(median(results.map((r) => r.backfill.ms / r.floor.ms)))})`,
    ...(results[0].written
      ? {
          'write floor': `${s(median(results.map((r) => r.written.ms)))} (${x(median(results.map((r) => r.written.ms / r.floor.ms)))} read; ${results[0].written.rows} rows)`,
          'backfill / (read + write)': x(median(results.map((r) => r.backfill.ms / (r.floor.ms + r.written.ms)))),
        }
      : {}),
    'no-change sync': `${s(median(results.map((r) => r.resync.ms)))} (${x(median(results.map((r) => r.resync.ms / r.floor.ms)))})`,
    ...(spec.changedShare
      ? {
          [`${spec.changedShare * 100} % changed`]: `${s(median(results.map((r) => r.changed.ms)))} (${x(median(results.map((r) => r.changed.ms / r.floor.ms)))})`,
        }
      : {}),
    'first request': `${Math.round(median(results.map((r) => r.resync.firstRequestMs)))} ms`,
    requests: `${results[0].backfill.calls.length} / ${results[0].resync.calls.length}`,
    'sync writes': median(results.map((r) => r.resyncChanges)),
    'peak RSS': `${median(results.map((r) => r.backfill.rssMb))} / ${median(results.map((r) => r.resync.rssMb))} MB`,
  };
}

/** Time, peak RSS and requests of a backfill by size and page size, zero latency. */
async function measureMemory(records, pageSizes) {
  const sandbox = await startSandbox(records, 0);
  const row = { records: records.toLocaleString('en') };
  try {
    for (const pageSize of pageSizes) {
      await sql.unsafe(`drop schema if exists ${schema} cascade`);
      const run = await mirrorCommand('backfill', sandbox, pageSize)();
      row[`pages of ${pageSize}`] = `${s(run.ms)}, ${run.rssMb} MB, ${run.calls.length} requests`;
    }
    return row;
  } finally {
    sandbox.child.kill();
  }
}

/**
 * The fleet's unit: CPU milliseconds of a no-change sync of an account of 1,000 records, zero
 * latency. Two figures: the `sync` command (its own process, start included) and a sync inside a
 * process that is already running (as in a daemon: runSync on an open database, median of
 * BENCH_FLEET_SYNCS after one warm-up sync).
 */
async function measureFleetUnit(records) {
  const sandbox = await startSandbox(records, 0);
  const { openDatabase } = await import('../dist/src/db/index.js');
  const { runSync } = await import('../dist/src/sync/index.js');
  const { logger } = await import('../dist/src/log.js');
  const { setLogLevel } = await import('../dist/src/log.js');
  setLogLevel('warn');
  try {
    await sql.unsafe(`drop schema if exists ${schema} cascade`);
    await mirrorCommand('backfill', sandbox, 500)();
    const commandCpu = [];
    for (let round = 0; round < rounds; round++) commandCpu.push((await mirrorCommand('sync', sandbox, 500)()).cpuMs);
    const handle = await openDatabase({ databaseUrl, embeddedDbDir: '', schema, poolSize: 4 });
    // The account the command synced (the one of INVOICING_API_*).
    const [{ id: accountId }] = await sql.unsafe(`select id from ${schema}.accounts order by id limit 1`);
    const client = new InvoicingClient({
      baseUrl: sandbox.api,
      user: 'sandbox',
      apiKey: 'sandbox',
      requestsPerHour: 0,
    });
    const inProcess = [];
    const syncs = Number(process.env.BENCH_FLEET_SYNCS ?? 10);
    for (let i = 0; i <= syncs; i++) {
      const before = process.cpuUsage();
      const outcome = await runSync(
        { account: { id: accountId, name: 'default' }, db: handle.db, client, schema, log: logger },
        {},
        { kind: 'sync' },
      );
      const used = process.cpuUsage(before);
      if (outcome.status !== 'succeeded') throw new Error(`sync ended ${outcome.status}: ${outcome.error}`);
      if (i > 0) inProcess.push((used.user + used.system) / 1000);
    }
    await client.close();
    await handle.close();
    return {
      records: records.toLocaleString('en'),
      'CPU ms, sync command': median(commandCpu),
      'CPU ms, sync in a running process': Math.round(median(inProcess)),
    };
  } finally {
    sandbox.child.kill();
  }
}

/** Requests of one full list at the client's default page size (PAGE_SIZE's default), for one entity of the given size. */
async function measureRequests(perEntity) {
  const sandbox = await startSandbox(perEntity * 5, 0, ['--sent-invoices', '0']);
  try {
    const client = new InvoicingClient({
      baseUrl: sandbox.api,
      user: 'sandbox',
      apiKey: 'sandbox',
      requestsPerHour: 0,
    });
    await sandbox.admin('DELETE', 'calls');
    for await (const _page of client.list('clients')) {
      // read every page
    }
    await client.close();
    const calls = (await sandbox.admin('GET', 'calls')).length;
    return { 'records per entity': perEntity.toLocaleString('en'), 'requests per list': calls };
  } finally {
    sandbox.child.kill();
  }
}

const caseRows = [];
for (const name of list('BENCH_CASES', 'latency,cpu')) caseRows.push(await measureCase(name));
const fleetRows = [await measureFleetUnit(Number(process.env.BENCH_FLEET_RECORDS ?? 1000))];
const memoryRows = [];
const pageSizes = list('BENCH_PAGE_SIZES', '250,500,1000').map(Number);
for (const size of list('BENCH_MEMORY_SIZES', '25000,100000,200000'))
  memoryRows.push(await measureMemory(Number(size), pageSizes));
const requestRows = [];
for (const size of list('BENCH_REQUEST_SIZES', '10000,50000,100000'))
  requestRows.push(await measureRequests(Number(size)));
await sql.unsafe(`drop schema if exists ${schema} cascade`);
await sql.end();

console.log(
  `\ninvoice-mirror as a user runs it (${rounds} rounds, medians; requests backfill / sync; RSS backfill / sync)`,
);
console.table(caseRows);
console.log('CPU per no-change sync of one account, zero latency (the fleet’s unit)');
console.table(fleetRows);
if (memoryRows.length > 0) {
  console.log('backfill by size and page size (zero latency): time, peak RSS, requests');
  console.table(memoryRows);
}
if (requestRows.length > 0) {
  console.log('requests per full list at the default page size (500; a pull reads six lists and the countries)');
  console.table(requestRows);
}
