// A fleet of daemons on one Postgres: the sandbox serving many accounts (BENCH_ACCOUNTS, default
// 1,000, of BENCH_RECORDS records each, 200) with BENCH_LATENCY_MS per answer (40), and 1, 2 and 4
// daemons (BENCH_DAEMONS=1,2,4) on this machine. For each: the time until every account is
// complete, then BENCH_WATCH_S seconds (default 240; the issue asks 1,200) of BENCH_INTERVAL
// (default 2m) targets: freshness p50 / p99 / max, requests per account per hour, CPU seconds and
// peak RSS per daemon, and the database connections. Then the claim query's p50 / p99 with
// 10,000 accounts in the table (BENCH_DAEMONS= empty: that alone).
//
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/fleet.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandboxChild } from './sandbox-child.mjs';
import { benchDatabaseUrl } from './database-url.mjs';

const cli = fileURLToPath(new URL('../dist/cli/cli.js', import.meta.url));
const databaseUrl = benchDatabaseUrl(import.meta.url);
const env = (name, fallback) => process.env[name] ?? fallback;
const ACCOUNTS = Number(env('BENCH_ACCOUNTS', 1000));
const RECORDS = Number(env('BENCH_RECORDS', 200));
const LATENCY = Number(env('BENCH_LATENCY_MS', 40));
const DAEMONS = env('BENCH_DAEMONS', '1,2,4').split(',').filter(Boolean).map(Number);
const WATCH_S = Number(env('BENCH_WATCH_S', 240));
const INTERVAL = env('BENCH_INTERVAL', '2m');
// Node options for the daemons alone, e.g. BENCH_DAEMON_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'.
const DAEMON_NODE_ARGS = env('BENCH_DAEMON_NODE_ARGS', '').split(' ').filter(Boolean);
const schema = 'bench_fleet';
const secret = 'a benchmark master secret, long enough for the check';
const { default: postgres } = await import('postgres');
const sql = postgres(databaseUrl, { onnotice: () => {} });
const work = mkdtempSync(join(tmpdir(), 'bench-fleet-'));

function startSandbox(csv) {
  const args = ['--records', String(RECORDS), '--seed', '7', '--accounts', String(ACCOUNTS)];
  return startSandboxChild(cli, [...args, '--accounts-csv', csv, '--latency', String(LATENCY)]);
}

const mirrorEnv = (sandbox) => ({
  ...process.env,
  DATABASE_URL: databaseUrl,
  MIRROR_SCHEMA: schema,
  INVOICING_API_URL: sandbox.api,
  ACCOUNTS_SECRET: secret,
  SYNC_INTERVAL: INTERVAL,
  ACCOUNT_CONCURRENCY: '8',
  DB_POOL_SIZE: '25',
  REQUESTS_PER_HOUR: '1000000',
  LOG_LEVEL: 'warn',
  CONSOLE: 'false',
});

function run(args, envs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: envs, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

/** Starts a daemon; its CPU time and peak RSS are read from /proc while it runs. */
function startDaemon(envs, port) {
  const child = spawn(process.execPath, [...DAEMON_NODE_ARGS, cli, 'daemon'], {
    env: { ...envs, HEALTH_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return { rssKb: Number(/VmHWM:\s+(\d+)/.exec(status)[1]), cpuS: (Number(stat[11]) + Number(stat[12])) / 100 };
    } catch {
      return undefined;
    }
  };
  return { child, sample };
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

async function ages() {
  return (
    await sql.unsafe(`
      select extract(epoch from now() - max(r.finished_at))::float8 as age
        from ${schema}.accounts a left join ${schema}.sync_runs r
          on r.account_id = a.id and r.status = 'succeeded'
       group by a.id`)
  ).map((row) => (row.age === null ? Number.POSITIVE_INFINITY : row.age));
}

async function measure(daemons, sandbox) {
  const envs = mirrorEnv(sandbox);
  await sql.unsafe(`drop schema if exists ${schema} cascade`);
  await run(['migrate'], envs);
  await run(['accounts', 'import', join(work, 'accounts.csv')], envs);
  const began = performance.now();
  const fleet = Array.from({ length: daemons }, (_, i) => startDaemon(envs, 9700 + i));
  let complete = Number.NaN;
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if ((await ages()).every(Number.isFinite)) {
        complete = (performance.now() - began) / 1000;
        break;
      }
    }
    const callsAt = (await sandbox.admin('GET', 'accounts')).reduce((sum, a) => sum + a.calls, 0);
    const freshness = [];
    const connections = [];
    const watchEnd = performance.now() + WATCH_S * 1000;
    while (performance.now() < watchEnd) {
      await new Promise((resolve) => setTimeout(resolve, 5000));
      freshness.push(...(await ages()));
      const [{ n }] = await sql.unsafe(
        `select count(*)::int as n from pg_stat_activity where application_name like 'invoice-mirror daemon%'`,
      );
      connections.push(n);
    }
    const calls = (await sandbox.admin('GET', 'accounts')).reduce((sum, a) => sum + a.calls, 0) - callsAt;
    const samples = fleet.map((d) => d.sample()).filter(Boolean);
    return {
      daemons,
      complete,
      p50: quantile(freshness, 0.5),
      p99: quantile(freshness, 0.99),
      // Not Math.max(...freshness): twenty minutes of samples are more arguments than a call takes.
      max: freshness.reduce((most, age) => Math.max(most, age), 0),
      perAccountHour: (calls / ACCOUNTS) * (3600 / WATCH_S),
      cpu: samples.map((s) => s.cpuS.toFixed(1)).join('/'),
      rss: samples.map((s) => Math.round(s.rssKb / 1024)).join('/'),
      connections: Math.max(...connections),
    };
  } finally {
    for (const d of fleet) d.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/** The claim query with 10,000 accounts, none due but a few: its p50 and p99 over 500 claims. */
async function claimLatency() {
  await sql.unsafe(`drop schema if exists ${schema} cascade`);
  await run(['migrate'], mirrorEnv({ api: 'http://127.0.0.1:1/api/v1' }));
  await sql.unsafe(`set search_path = ${schema}`);
  await sql.unsafe(`insert into ${schema}.accounts (name) select 'a' || g from generate_series(1, 10000) g`);
  await sql.unsafe(`update ${schema}.account_leases set due_at = now() + random() * interval '15 minutes'`);
  const { claimDue } = await import('../dist/src/fleet/leases.js');
  const { openDatabase } = await import('../dist/src/db/index.js');
  const handle = await openDatabase({ databaseUrl, embeddedDbDir: '', schema, poolSize: 2 });
  const times = [];
  try {
    for (let i = 0; i < 500; i++) {
      const started = performance.now();
      const claimed = await claimDue(handle.db, 'bench', 8, 30);
      times.push(performance.now() - started);
      for (const c of claimed)
        await sql.unsafe(
          `update ${schema}.account_leases set daemon_id = null, leased_until = null, due_at = now() + interval '15 minutes' where account_id = ${c.accountId}`,
        );
    }
  } finally {
    await handle.close();
  }
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

const sandbox = await startSandbox(join(work, 'accounts.csv'));
try {
  console.log(
    `${ACCOUNTS} accounts of ${RECORDS} records, ${LATENCY} ms per answer, SYNC_INTERVAL ${INTERVAL}, ${WATCH_S} s watched, ACCOUNT_CONCURRENCY 8, DB_POOL_SIZE 25`,
  );
  console.log('daemons  all complete  fresh p50    p99    max  req/acct/h  CPU s      peak RSS MB  connections');
  for (const daemons of DAEMONS) {
    const r = await measure(daemons, sandbox);
    console.log(
      `${String(r.daemons).padStart(7)}  ${`${r.complete.toFixed(1)} s`.padStart(12)}  ${`${r.p50.toFixed(0)} s`.padStart(9)} ${`${r.p99.toFixed(0)} s`.padStart(6)} ${`${r.max.toFixed(0)} s`.padStart(6)}  ${r.perAccountHour.toFixed(0).padStart(10)}  ${r.cpu.padEnd(10)} ${r.rss.padEnd(12)} ${String(r.connections).padStart(11)}`,
    );
  }
  const claim = await claimLatency();
  console.log(`claim query with 10,000 accounts: p50 ${claim.p50.toFixed(2)} ms, p99 ${claim.p99.toFixed(2)} ms`);
} finally {
  sandbox.child.kill();
  await sql.end();
  rmSync(work, { recursive: true, force: true });
}
