// What the schema costs to write: the write floor (PostgreSQL loading, by COPY, the very rows a
// backfill left, into a fresh schema of the same migrations, the tables' own triggers off) and the
// same load with one part of the schema taken away at a time, to see what each part costs. Issue
// 46's "measure and choose". The backfill is the CPU-bound case of bench/perf.mjs (60k records).
//
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/write-floor.mjs
//   options (environment): BENCH_ROUNDS=3 BENCH_RECORDS=50000 BENCH_SENT=10000
//
// Variants (each a fresh schema, medians of BENCH_ROUNDS loads):
//   as migrated        the floor itself: foreign keys, indexes, checks on
//   no account checks  the foreign keys to accounts, and the big tables' checks that stand for them, dropped
//   raw as json        every jsonb column stored as json (text kept as received, checked, not parsed)
//   indexes after      the secondary indexes dropped before the load and built after it (timed)
// (A fill's change rows hold no `after` since issue 46: bench/fill-write.mjs compares the two.)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startSandboxChild } from './sandbox-child.mjs';
import { benchDatabaseUrl } from './database-url.mjs';
import { accountChecks, dumpRows, freshSchema, loadRows } from './copy-rows.mjs';

const cli = fileURLToPath(new URL('../dist/cli/cli.js', import.meta.url));
const databaseUrl = benchDatabaseUrl(import.meta.url);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const { default: postgres } = await import('postgres');
const sql = postgres(databaseUrl, { onnotice: () => {}, max: 2 });
const source = 'bench_wf';
const target = 'bench_wf_floor';
const now = () => performance.now();
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function run(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    let errors = '';
    child.stderr.on('data', (chunk) => (errors += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')}: ${errors.slice(-1500)}`)),
    );
  });
}

const VARIANTS = {
  'as migrated': {},
  'no account checks': {
    async prepare() {
      const keys = await sql`
        select c.conname, t.relname from pg_constraint c join pg_class t on t.oid = c.conrelid
         join pg_namespace n on n.oid = t.relnamespace
         where n.nspname = ${target} and c.contype = 'f' and c.confrelid = ${`${target}.accounts`}::regclass`;
      for (const key of keys)
        await sql.unsafe(`alter table ${target}."${key.relname}" drop constraint "${key.conname}"`);
      // And the big tables' account checks, which stand for their keys (migration 0023).
      const checks = await accountChecks(sql, target);
      for (const check of checks) await sql.unsafe(`drop trigger ${check.name} on ${target}."${check.table}"`);
      return `${keys.length} keys and ${checks.length} account checks dropped`;
    },
  },
  'raw as json': {
    async prepare() {
      const columns = await sql`
        select c.table_name, c.column_name from information_schema.columns c
          join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
         where c.table_schema = ${target} and c.data_type = 'jsonb'`;
      let changed = 0;
      for (const column of columns) {
        try {
          await sql.unsafe(
            `alter table ${target}."${column.table_name}" alter column "${column.column_name}" type json`,
          );
          changed++;
        } catch {
          // A column a view, an index or a generated column reads as jsonb stays jsonb.
        }
      }
      return `${changed} of ${columns.length} jsonb columns as json`;
    },
  },
  'indexes after': {
    async prepare() {
      const indexes = await sql`
        select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
          from pg_index i join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = t.relnamespace
         where n.nspname = ${target} and not i.indisprimary and not i.indisunique
           and not exists (select from pg_constraint c where c.conindid = i.indexrelid)`;
      for (const index of indexes) await sql.unsafe(`drop index ${index.name}`);
      return { note: `${indexes.length} indexes built after`, after: indexes.map((index) => index.definition) };
    },
  },
};

async function load(loads, variant) {
  await freshSchema(sql, databaseUrl, target, loads);
  const prepared = variant.prepare ? await variant.prepare() : undefined;
  const after = typeof prepared === 'object' ? prepared.after : [];
  const started = now();
  await loadRows(postgres, databaseUrl, target, loads);
  for (const definition of after) await sql.unsafe(definition);
  const ms = now() - started;
  const size = await sql`select sum(pg_total_relation_size(c.oid))::bigint as bytes from pg_class c
    join pg_namespace n on n.oid = c.relnamespace where n.nspname = ${target} and c.relkind in ('r', 'p')`;
  return { ms, note: typeof prepared === 'object' ? prepared.note : prepared, mb: Number(size[0].bytes) / 2 ** 20 };
}

const sandbox = await startSandboxChild(cli, [
  '--records',
  process.env.BENCH_RECORDS ?? '50000',
  '--sent-invoices',
  process.env.BENCH_SENT ?? '10000',
  '--seed',
  '7',
  '--latency',
  '0',
]);
try {
  await sql.unsafe(`drop schema if exists ${source} cascade`);
  process.stderr.write(`backfill of the sandbox (${sandbox.api}) into ${source}\n`);
  const backfillStarted = now();
  await run([cli, 'backfill'], {
    DATABASE_URL: databaseUrl,
    MIRROR_SCHEMA: source,
    INVOICING_API_URL: sandbox.api,
    INVOICING_API_USER: 'sandbox',
    INVOICING_API_KEY: 'sandbox',
    PAGE_SIZE: '500',
    REQUESTS_PER_HOUR: '1000000',
    LOG_LEVEL: 'warn',
  });
  const backfillMs = now() - backfillStarted;
  process.stderr.write('dump of its rows\n');
  const loads = await dumpRows(sql, postgres, databaseUrl, source);
  const rows = await sql.unsafe(
    loads
      .map(({ table }) => `select '${table}' as t, count(*)::int as n from ${source}."${table}"`)
      .join(' union all '),
  );
  const total = rows.reduce((sum, row) => sum + row.n, 0);
  console.log(
    `backfill ${(backfillMs / 1000).toFixed(2)} s; ${total} rows in ${loads.length} tables: ${rows
      .filter((r) => r.n > 100)
      .map((r) => `${r.t} ${r.n}`)
      .join(', ')}`,
  );
  // Rounds outside, variants inside: a spell of load on the shared machine falls on every variant alike.
  const runs = new Map(Object.keys(VARIANTS).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++)
    for (const [name, variant] of Object.entries(VARIANTS)) {
      const result = await load(loads, variant);
      runs.get(name).push(result);
      process.stderr.write(`  round ${round + 1}, ${name}: ${(result.ms / 1000).toFixed(2)} s\n`);
    }
  const floor = median(runs.get('as migrated').map((r) => r.ms));
  console.table(
    [...runs].map(([name, results]) => ({
      variant: name,
      'load (median)': `${(median(results.map((r) => r.ms)) / 1000).toFixed(2)} s`,
      'of the floor': `${((median(results.map((r) => r.ms)) / floor) * 100).toFixed(0)} %`,
      runs: results.map((r) => (r.ms / 1000).toFixed(2)).join(' / '),
      'size MB': Math.round(median(results.map((r) => r.mb))),
      note: results[0].note ?? '',
    })),
  );
} finally {
  sandbox.child.kill();
  await sql.unsafe(`drop schema if exists ${target} cascade`);
  await sql.unsafe(`drop schema if exists ${source} cascade`);
  await sql.end();
}
