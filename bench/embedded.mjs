// The default (embedded) database, as a newcomer meets it: time and memory of the first start
// (creating the database), of a later start, of `demo`, and of a backfill of a 20k-record sandbox,
// plus `--version`, `--help` and `status` start-up. Every command runs as the user would run it,
// in a process of its own, with no DATABASE_URL and a fresh EMBEDDED_DB_DIR.
//
//   npm run build && node bench/embedded.mjs [path/to/dist/cli/cli.js]
//   options (environment): BENCH_RECORDS=20000 (the backfill's sandbox) BENCH_ROUNDS=3
//
// Peak memory is sampled every 50 ms from /proc (Linux only): the command's own RSS, and the
// proportional set size (PSS, shared pages split between the processes that map them) of the
// embedded PostgreSQL server's processes and its keeper's, when there are. Pass the CLI of another build (an
// older checkout) to compare.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist/cli/cli.js', import.meta.url)));
const records = Number(process.env.BENCH_RECORDS ?? 20000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

function readKb(path, field) {
  try {
    const match = readFileSync(path, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** PSS of every process whose command line mentions the data directory, and their children. */
function serverPssKb(dataDir) {
  const pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  const parentOf = new Map();
  const roots = new Set();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parentOf.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir)) roots.add(pid);
    } catch {
      // gone
    }
  }
  let total = 0;
  for (const pid of pids) {
    if (roots.has(pid) || roots.has(parentOf.get(pid))) total += readKb(`/proc/${pid}/smaps_rollup`, 'Pss');
  }
  return total;
}

/** Runs the CLI; returns seconds, its peak RSS and the server's peak PSS (MB). */
async function measure(args, env) {
  const began = performance.now();
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let rss = 0;
  let server = 0;
  const sample = () => {
    rss = Math.max(rss, readKb(`/proc/${child.pid}/status`, 'VmHWM'));
    if (env.EMBEDDED_DB_DIR) server = Math.max(server, serverPssKb(env.EMBEDDED_DB_DIR));
  };
  const timer = setInterval(sample, 50);
  const code = await new Promise((done) => {
    child.on('exit', () => sample());
    child.on('close', done);
  });
  clearInterval(timer);
  if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`);
  return { seconds: (performance.now() - began) / 1000, rssMb: rss / 1024, serverMb: server / 1024 };
}

async function startSandbox() {
  const child = spawn(process.execPath, [cli, 'sandbox', '--port', '0', '--records', String(records), '--seed', '42'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((done, fail) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = out.match(/https?:\/\/[^\s]+\/api\/v1/);
      if (found) done(found[0]);
    });
    child.on('exit', (code) => fail(new Error(`sandbox exited with ${code}`)));
  });
  return { child, url };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = [];
function record(name, results) {
  rows.push({
    name,
    seconds: median(results.map((r) => r.seconds)).toFixed(2),
    rss: median(results.map((r) => r.rssMb)).toFixed(0),
    server: median(results.map((r) => r.serverMb)).toFixed(0),
  });
}

const sandbox = await startSandbox();
try {
  const first = [];
  const later = [];
  const demo = [];
  const backfill = [];
  for (let round = 0; round < rounds; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-embedded-'));
    chmodSync(dir, 0o755); // reachable by the server's own user when run as root
    // Each step starts the server (and its keeper) as a first command would: none lingers after the last.
    const env = { EMBEDDED_DB_DIR: join(dir, 'db'), EMBEDDED_DB_IDLE_STOP: '0' };
    try {
      first.push(await measure(['migrate'], env));
      later.push(await measure(['migrate'], env));
      demo.push(await measure(['demo'], env));
      backfill.push(await measure(['backfill'], { ...env, INVOICING_API_URL: sandbox.url }));
    } finally {
      // The keeper and its server stop once the last command has gone.
      for (let waited = 0; serverPssKb(env.EMBEDDED_DB_DIR) > 0 && waited < 30_000; waited += 100) {
        await new Promise((done) => setTimeout(done, 100));
      }
      rmSync(dir, { recursive: true, force: true });
    }
  }
  record('first start (migrate, creating the database)', first);
  record('later start (migrate, nothing to do)', later);
  record('demo', demo);
  record(`backfill of ${records.toLocaleString('en')} records`, backfill);
  const startup = async (args) => {
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await measure(args, {}));
    return runs;
  };
  record('--version', await startup(['--version']));
  record('--help', await startup(['--help']));
} finally {
  sandbox.child.kill();
}

console.log(`${cli}\n`);
console.log(`${'step'.padEnd(48)} ${'seconds'.padStart(8)} ${'RSS MB'.padStart(7)} ${'server MB'.padStart(10)}`);
for (const row of rows) {
  console.log(`${row.name.padEnd(48)} ${row.seconds.padStart(8)} ${row.rss.padStart(7)} ${row.server.padStart(10)}`);
}
console.log(
  `\nmedians of ${rounds} rounds (start-up: of 5); server MB is the PSS of the embedded server's processes and its keeper`,
);
