#!/usr/bin/env node
// The database's part of a fill (issue 46): the same pages written by two builds' `insert`-mode
// statement, one page at a time, alternating page by page (so both meet the same load), each
// into a freshly migrated schema of its own (with its own build's triggers). Prints per round the
// statements' summed time for each build, the medians, and the size of `changes` after a round.
//
//   node bench/fill-write.mjs OTHER_DIST   # OTHER_DIST: e.g. another checkout's dist, built
//
// BENCH_RECORDS (50000: the sandbox's five lists) and BENCH_SENT_INVOICES (10000): the sizes of
// bench/perf.mjs's CPU-bound case; BENCH_ROUNDS (3), BENCH_PAGE_SIZE (500).
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { benchDatabaseUrl } from './database-url.mjs';
import { startSandboxChild } from './sandbox-child.mjs';

const databaseUrl = benchDatabaseUrl(import.meta.url);
const other = process.argv[2];
if (!other) {
  console.error('usage: node bench/fill-write.mjs OTHER_DIST (the dist directory of the build to compare with)');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const pageSize = Number(process.env.BENCH_PAGE_SIZE ?? 500);
const cli = fileURLToPath(new URL('../dist/cli/cli.js', import.meta.url));
const builds = [
  { name: 'this', dist: fileURLToPath(new URL('../dist', import.meta.url)), schema: 'bench_fill_this' },
  { name: 'other', dist: resolve(other), schema: 'bench_fill_other' },
];
for (const build of builds) {
  const load = (path) => import(pathToFileURL(`${build.dist}/src/${path}`).href);
  build.db = await load('db/index.js');
  build.merge = await load('sync/merge.js');
  build.store = await load('accounts/store.js');
}
const { InvoicingClient } = await import('../dist/src/api/index.js');
const { DEFINITIONS, toStagedRow } = await import('../dist/src/sync/entities.js');
const { encodePage } = await import('../dist/src/sync/page-text.js');
const { setLogLevel } = await import('../dist/src/log.js');
setLogLevel('warn');

const sandbox = await startSandboxChild(cli, [
  '--records',
  String(Number(process.env.BENCH_RECORDS ?? 50_000)),
  '--sent-invoices',
  String(Number(process.env.BENCH_SENT_INVOICES ?? 10_000)),
  '--seed',
  '7',
]);
const client = new InvoicingClient({
  baseUrl: sandbox.api,
  user: 'sandbox',
  apiKey: 'sandbox',
  requestsPerHour: 0,
  pageSize,
});
// Every page, read once and encoded as the pull would (the encoding is the same in both builds).
const pages = [];
for (const definition of DEFINITIONS)
  for await (const page of client.list(definition.name))
    pages.push({
      definition,
      text: encodePage(
        definition,
        page.records.map((read) => toStagedRow(definition, read)),
      ),
    });
await client.close();
sandbox.child.kill();
const records = pages.reduce((n, page) => n + page.text.size, 0);

async function freshSchema(build) {
  const handle = await build.db.openDatabase({ databaseUrl, embeddedDbDir: '', schema: build.schema, poolSize: 2 });
  await sql`drop schema if exists ${sql.id(build.schema)} cascade`.execute(handle.db);
  await build.db.migrate(handle.db, build.schema);
  await build.store.ensureDefaultAccount(handle.db);
  const { rows } = await sql`
    insert into sync_runs (account_id, kind) select id, 'backfill' from accounts order by id limit 1 returning id, account_id`.execute(
    handle.db,
  );
  return { handle, runId: Number(rows[0].id), accountId: Number(rows[0].account_id) };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const results = builds.map(() => []);
const sizes = builds.map(() => []);
for (let round = 0; round < rounds; round++) {
  const targets = [];
  for (const build of builds) targets.push(await freshSchema(build));
  const spent = builds.map(() => 0);
  for (const [n, page] of pages.entries()) {
    // Alternating which goes first, so neither always meets a warmer cache.
    for (const i of n % 2 ? [1, 0] : [0, 1]) {
      const { handle, runId, accountId } = targets[i];
      const started = performance.now();
      const written = await builds[i].merge.writePage(
        handle.db,
        accountId,
        page.definition,
        page.text,
        runId,
        'insert',
      );
      spent[i] += performance.now() - started;
      if (written.mode !== 'insert') throw new Error(`${builds[i].name}: a page was merged, not inserted`);
    }
  }
  for (const [i, { handle }] of targets.entries()) {
    const { rows } = await sql`
      select pg_total_relation_size('changes')::bigint as bytes, count(*)::int as n, count(after)::int as afters from changes`.execute(
      handle.db,
    );
    results[i].push(spent[i]);
    sizes[i].push(rows[0]);
    await sql`drop schema ${sql.id(builds[i].schema)} cascade`.execute(handle.db);
    await handle.close();
  }
  process.stderr.write(
    `  round ${round + 1}: ${builds.map((b, i) => `${b.name} ${(spent[i] / 1000).toFixed(2)} s`).join(', ')}\n`,
  );
}
console.log(`\n${records.toLocaleString('en')} records in ${pages.length} pages of ${pageSize}, ${rounds} rounds`);
console.table(
  builds.map((build, i) => ({
    build: `${build.name} (${build.dist})`,
    'statements, median': `${(median(results[i]) / 1000).toFixed(2)} s`,
    rounds: results[i].map((ms) => (ms / 1000).toFixed(2)).join(' / '),
    'changes rows': sizes[i][0].n,
    'with after': sizes[i][0].afters,
    'changes size': `${(Number(sizes[i][0].bytes) / 1024 / 1024).toFixed(1)} MB`,
  })),
);
