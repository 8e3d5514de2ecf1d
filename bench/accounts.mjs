// Many accounts in one mirror: for 1, 10 and 100 accounts of 1,000 records each in the sandbox,
// the `invoice-mirror` command as a user runs it (its own process, wall clock from spawn to exit):
// backfill time, no-change sync time, requests, peak RSS and the database's size.
//
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/accounts.mjs
//   options (environment): BENCH_ACCOUNTS=1,10,100 BENCH_RECORDS=1000 BENCH_LATENCY_MS=0 DB_POOL_SIZE=10
//
// The sandbox runs in a child process of its own (`invoice-mirror sandbox --accounts N --admin`)
// and writes the accounts' credentials to a CSV that `invoice-mirror accounts import` reads; its
// call log gives the requests. Each size starts from a dropped schema.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandboxChild } from './sandbox-child.mjs';
import { benchDatabaseUrl } from './database-url.mjs';

const cli = fileURLToPath(new URL('../dist/cli/cli.js', import.meta.url));
const databaseUrl = benchDatabaseUrl(import.meta.url);
const sizes = (process.env.BENCH_ACCOUNTS ?? '1,10,100').split(',').map(Number);
const records = Number(process.env.BENCH_RECORDS ?? 1000);
const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 0);
const schema = 'bench_accounts';
const secret = 'a benchmark master secret, long enough for the check';
const timeBinary = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const { default: postgres } = await import('postgres');
const sql = postgres(databaseUrl, { onnotice: () => {} });
const work = mkdtempSync(join(tmpdir(), 'bench-accounts-'));

function startSandbox(accounts, csv) {
  const args = ['--records', String(records), '--seed', '7', '--accounts', String(accounts)];
  return startSandboxChild(cli, [...args, '--accounts-csv', csv, '--latency', String(latencyMs)]);
}

/** Runs a command to its end; wall clock from spawn to exit, and its peak RSS where /usr/bin/time is there. */
function timed(args, env) {
  const rssFile = join(work, 'rss');
  const [command, ...rest] = timeBinary
    ? [timeBinary, '-f', '%M', '-o', rssFile, process.execPath, ...args]
    : [process.execPath, ...args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, rest, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let errors = '';
    child.stderr.on('data', (chunk) => (errors += chunk));
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}: ${errors.slice(-2000)}`));
      const rssMb = timeBinary ? Math.round(Number(readFileSync(rssFile, 'utf8').trim()) / 1024) : undefined;
      resolve({ ms, rssMb });
    });
  });
}

async function measure(accounts) {
  const csv = join(work, `accounts-${accounts}.csv`);
  const sandbox = await startSandbox(accounts, csv);
  const env = {
    DATABASE_URL: databaseUrl,
    MIRROR_SCHEMA: schema,
    INVOICING_API_URL: sandbox.api,
    ACCOUNTS_SECRET: secret,
    REQUESTS_PER_HOUR: '1000000',
    DB_POOL_SIZE: process.env.DB_POOL_SIZE ?? '10',
    LOG_LEVEL: 'warn',
  };
  try {
    await sql.unsafe(`drop schema if exists ${schema} cascade`);
    await timed([cli, 'migrate'], env);
    await timed([cli, 'accounts', 'import', csv], env);
    await sandbox.admin('DELETE', 'calls');
    const backfill = await timed([cli, 'backfill'], env);
    const backfillCalls = await totalCalls(sandbox);
    const sync = await timed([cli, 'sync'], env);
    const syncCalls = (await totalCalls(sandbox)) - backfillCalls;
    const [{ bytes }] = await sql.unsafe(
      `select sum(pg_total_relation_size(c.oid))::bigint as bytes from pg_class c
        where c.relnamespace = '${schema}'::regnamespace and c.relkind in ('r', 'm')`,
    );
    const [{ rows }] = await sql.unsafe(`select count(*)::int as rows from ${schema}.clients`);
    return { accounts, backfill, sync, backfillCalls, syncCalls, mb: Number(bytes) / 1024 / 1024, clients: rows };
  } finally {
    sandbox.child.kill();
  }
}

/** Requests the sandbox answered, over every account. */
async function totalCalls(sandbox) {
  const accounts = await sandbox.admin('GET', 'accounts');
  return accounts.reduce((sum, account) => sum + account.calls, 0);
}

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
console.log(
  `${records} records per account, ${latencyMs} ms per answer, DB_POOL_SIZE ${process.env.DB_POOL_SIZE ?? 10}`,
);
console.log('accounts  backfill  requests  peak RSS   no-change sync  requests  peak RSS   database');
try {
  for (const size of sizes) {
    const r = await measure(size);
    console.log(
      `${String(r.accounts).padStart(8)}  ${s(r.backfill.ms).padStart(8)}  ${String(r.backfillCalls).padStart(8)}  ${`${r.backfill.rssMb ?? '?'} MB`.padStart(8)}   ${s(r.sync.ms).padStart(14)}  ${String(r.syncCalls).padStart(8)}  ${`${r.sync.rssMb ?? '?'} MB`.padStart(8)}   ${r.mb.toFixed(1).padStart(6)} MB`,
    );
  }
} finally {
  await sql.end();
  rmSync(work, { recursive: true, force: true });
}
