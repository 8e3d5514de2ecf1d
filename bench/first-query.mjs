// How long a short command waits for its first query on the embedded database: a fresh process
// opens the database as `status` does (the build's openDatabase, create: false) and runs
// `select 1`; the time is from the process's start to the answer (module loading included). Also
// the wall time of `invoice-mirror status` itself. Both with the server already running (this
// script holds it open meanwhile) and not running (each run starts it; the script waits for it to
// stop between runs).
//
//   npm run build && node bench/first-query.mjs [path/to/dist]    (BENCH_ROUNDS=10)
//
// Pass the dist/ of another build (an older checkout's) to compare.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url)));
const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
const connect = pathToFileURL(join(dist, 'src', 'db', 'connect.js')).href;

if (process.argv[2] === '--child') {
  // The child: open, one query, print the milliseconds since this process started and since it
  // began to open the database.
  const { openDatabase } = await import(process.argv[3]);
  const opening = performance.now();
  const handle = await openDatabase({
    databaseUrl: undefined,
    embeddedDbDir: process.argv[4],
    schema: 'invoicing',
    create: false,
  });
  await handle.db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
  process.stdout.write(`${performance.now()} ${performance.now() - opening}\n`);
  await handle.close();
  process.exit(0);
}

function run(args, env = {}) {
  return new Promise((done, fail) => {
    const began = performance.now();
    const child = spawn(process.execPath, args, {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('close', (code) =>
      code === 0 ? done({ out, ms: performance.now() - began }) : fail(new Error(`${args.join(' ')}: ${code} ${err}`)),
    );
  });
}

/** Whether anything of the server is left: its postmaster, or a keeper (this build's lifecycle). */
function serverUp(dataDir) {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

async function stopped(dataDir) {
  const end = Date.now() + 60_000;
  while (serverUp(dataDir)) {
    if (Date.now() > end) throw new Error('the server did not stop within 60 s');
    await new Promise((done) => setTimeout(done, 50));
  }
  // A keeper outlives its postmaster by a moment.
  await new Promise((done) => setTimeout(done, 300));
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const parent = mkdtempSync(join(tmpdir(), 'bench-first-query-'));
chmodSync(parent, 0o755); // reachable by the server's own user when run as root
const dataDir = join(parent, 'db');
const cli = join(dist, 'cli', 'cli.js');
// A build with a keeper stops the server this long after the last command (a build without ignores it).
const env = { EMBEDDED_DB_DIR: dataDir, EMBEDDED_DB_IDLE_STOP: '1s' };
const self = fileURLToPath(import.meta.url);
try {
  await run([cli, 'migrate'], env);
  const results = {};
  for (const state of ['not running', 'running']) {
    const firstQuery = [];
    const opening = [];
    const status = [];
    let holder;
    if (state === 'running') {
      const { openDatabase } = await import(connect);
      holder = await openDatabase({
        databaseUrl: undefined,
        embeddedDbDir: dataDir,
        schema: 'invoicing',
        create: false,
      });
    }
    for (let i = 0; i < rounds; i++) {
      if (!holder) await stopped(dataDir);
      const [sinceStart, sinceOpening] = (await run([self, '--child', connect, dataDir], env)).out
        .split(' ')
        .map(Number);
      firstQuery.push(sinceStart);
      opening.push(sinceOpening);
      if (!holder) await stopped(dataDir);
      status.push((await run([cli, 'status'], env)).ms);
    }
    await holder?.close();
    results[state] = { firstQuery: median(firstQuery), opening: median(opening), status: median(status) };
  }
  console.log(dist);
  for (const [state, { firstQuery, opening, status }] of Object.entries(results)) {
    console.log(
      `server ${state.padEnd(12)} first query ${firstQuery.toFixed(0).padStart(5)} ms (opening the database ${opening.toFixed(0).padStart(4)} ms)   status ${status.toFixed(0).padStart(5)} ms`,
    );
  }
  console.log(`medians of ${rounds}`);
} finally {
  await stopped(dataDir).catch(() => undefined);
  if (existsSync(parent)) rmSync(parent, { recursive: true, force: true });
}
