// Sync benchmark: 100k records (20k per entity, documents with lines) pulled from the sandbox at
// zero latency into local Postgres. Prints, side by side: the floor (fetch + parse the same pages,
// no database), backfill, no-change resync, a naive row-by-row upsert baseline, peak RSS and
// requests made.
//
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/sync.mjs
//   options (environment): BENCH_PER_ENTITY=20000 BENCH_PAGE_SIZE=500 BENCH_NAIVE_RECORDS=10000
//   BENCH_ROUNDS=5 (floor, backfill and resync are each measured this many times; medians are
//   compared) BENCH_WRITERS=2 BENCH_LATENCY_MS=0 (added by the sandbox to every answer)
//
// The sandbox runs in a child process (as `invoice-mirror sandbox`), and so does every measured
// phase (`node bench/sync.mjs phase <name> <port>`): each starts from a fresh heap, so a phase's
// timing and peak RSS are its own, not left over from the phase or round before.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { InvoicingClient } from '../dist/src/api/index.js';
import { migrate, openDatabase, jsonb } from '../dist/src/db/index.js';
import { limitHeapGrowth } from '../dist/src/heap.js';
import { setLogLevel } from '../dist/src/log.js';
import { runSync } from '../dist/src/sync/index.js';
import { logger } from '../dist/src/log.js';
import { DEFINITIONS as ENTITIES, toStagedRow } from '../dist/src/sync/entities.js';
import { benchDatabaseUrl } from './database-url.mjs';

setLogLevel(process.env.LOG_LEVEL ?? 'warn');
const databaseUrl = benchDatabaseUrl(import.meta.url);
const perEntity = Number(process.env.BENCH_PER_ENTITY ?? 20000);
const pageSize = Number(process.env.BENCH_PAGE_SIZE ?? 500);
const naiveRecords = Number(process.env.BENCH_NAIVE_RECORDS ?? 10000);
const writers = Number(process.env.BENCH_WRITERS ?? 2);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 0);
const [, , command, phaseName, phasePort] = process.argv;
const port = command === 'phase' ? Number(phasePort) : 4100 + Math.floor(Math.random() * 800);
const cli = fileURLToPath(new URL('../dist/cli/cli.js', import.meta.url));

async function startSandboxProcess() {
  const child = spawn(
    process.execPath,
    [
      cli,
      'sandbox',
      '--port',
      String(port),
      '--records',
      String(perEntity * 5),
      '--seed',
      '42',
      '--latency',
      String(latencyMs),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('listening')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return child;
}

const seconds = (ms) => (ms / 1000).toFixed(2);
const rate = (n, ms) => Math.round((n * 1000) / ms).toLocaleString('en');

function newClient() {
  return new InvoicingClient({
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    user: 'sandbox',
    apiKey: 'sandbox',
    pageSize,
    requestsPerHour: 0,
  });
}

async function floor() {
  const client = newClient();
  const started = performance.now();
  let records = 0;
  for (const entity of ENTITIES) {
    for await (const page of client.list(entity.name)) {
      records += page.records.length;
      // Mapping to rows is part of the floor too: everything but the database.
      for (const record of page.records) toStagedRow(entity, record);
    }
  }
  const ms = performance.now() - started;
  const requests = client.requestsMade;
  await client.close();
  return { ms, records, requests };
}

async function freshSchema(name) {
  const handle = await openDatabase({ databaseUrl, embeddedDbDir: '', schema: name, poolSize: 4 });
  await sql`drop schema if exists ${sql.id(name)} cascade`.execute(handle.db);
  await migrate(handle.db, name);
  return handle;
}

async function timedSync(handle, schema, kind) {
  const client = newClient();
  const started = performance.now();
  const outcome = await runSync(
    { account: { id: undefined, name: 'default' }, db: handle.db, client, schema, log: logger },
    { writeConcurrency: writers },
    { kind },
  );
  const ms = performance.now() - started;
  await client.close();
  const records = Object.values(outcome.entities).reduce((sum, e) => sum + e.fetched, 0);
  if (outcome.status !== 'succeeded') throw new Error(`${kind} ended ${outcome.status}: ${outcome.error}`);
  return { ms, records, requests: outcome.requestsMade, outcome };
}

/** The baseline: one upsert statement per record (and per document's lines), one transaction per record. */
async function naive(handle, limit) {
  const client = newClient();
  const started = performance.now();
  let records = 0;
  outer: for (const entity of ENTITIES) {
    for await (const page of client.list(entity.name)) {
      for (const read of page.records) {
        const row = toStagedRow(entity, read);
        const record = read.record;
        const names = entity.columns.map((c) => c.name);
        const columnValue = (c) => {
          const v = record[c.field ?? c.name];
          return (c.subfield ? v?.[c.subfield] : v) ?? null;
        };
        await handle.db.transaction().execute(async (trx) => {
          const before =
            await sql`select raw from ${sql.table(entity.name)} where ${sql.ref(entity.key)} = ${row.key}`.execute(trx);
          const values = entity.columns.map((c) => (c.type === 'jsonb' ? jsonb(columnValue(c)) : columnValue(c)));
          await sql`insert into ${sql.table(entity.name)} (${sql.join(names.map((n) => sql.ref(n)))}, raw)
            values (${sql.join(values)}, ${jsonb(record.raw)})
            on conflict (${sql.ref(entity.key)}) do update set ${sql.join(names.map((n) => sql`${sql.ref(n)} = excluded.${sql.ref(n)}`))}, raw = excluded.raw`.execute(
            trx,
          );
          await sql`insert into changes (entity, entity_id, op, after) values (${entity.name}, ${String(row.key)}, ${before.rows.length ? 'update' : 'insert'}, ${jsonb(record.raw)})`.execute(
            trx,
          );
          if (entity.documentType) {
            await sql`delete from document_lines where document_type = ${entity.documentType} and document_id = ${row.key}`.execute(
              trx,
            );
            for (const [index, line] of (record.lines ?? []).entries()) {
              await sql`insert into document_lines (document_type, document_id, position, amount, amount_desc, description, tax_rate, price, discount_pct, linetotal)
                values (${entity.documentType}, ${row.key}, ${index + 1}, ${line.amount}, ${line.amount_desc}, ${line.description}, ${line.tax_rate}, ${line.price}, ${line.discount_pct}, ${line.linetotal})`.execute(
                trx,
              );
            }
          }
        });
        if (++records >= limit) break outer;
      }
    }
  }
  const ms = performance.now() - started;
  await client.close();
  return { ms, records };
}

/** Runs one phase in this process and prints its figures as JSON (called by the orchestrator below). */
async function runPhase(name) {
  let result;
  if (name === 'floor') result = await floor();
  else if (name === 'backfill' || name === 'resync') {
    const handle =
      name === 'backfill'
        ? await freshSchema('bench_sync')
        : await openDatabase({ databaseUrl, embeddedDbDir: '', schema: 'bench_sync', poolSize: 4 });
    const run = await timedSync(handle, 'bench_sync', name === 'backfill' ? 'backfill' : 'sync');
    const { rows: lines } = await sql`select count(*)::int as n from document_lines`.execute(handle.db);
    const { rows: changes } =
      await sql`select count(*)::int as n from changes where sync_run_id = ${run.outcome.runId}`.execute(handle.db);
    await handle.close();
    result = { ms: run.ms, records: run.records, requests: run.requests, lines: lines[0].n, changes: changes[0].n };
  } else if (name === 'naive') {
    const handle = await freshSchema('bench_naive');
    result = await naive(handle, naiveRecords);
    await sql`drop schema bench_naive cascade`.execute(handle.db);
    await handle.close();
  } else throw new Error(`unknown phase ${name}`);
  console.log(JSON.stringify({ ...result, rssMb: Math.round(process.resourceUsage().maxRSS / 1024) }));
}

/** Runs a phase in a child process and returns what it printed. */
function phase(name) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'phase', name, String(port)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').pop()))
        : reject(new Error(`phase ${name} exited with ${code}`)),
    );
  });
}

/** The middle value (the lower middle for an even count). */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

if (command === 'phase') {
  limitHeapGrowth(); // as the invoice-mirror command does
  await runPhase(phaseName);
  process.exit(0);
}

const sandbox = await startSandboxProcess();
try {
  console.log(
    `sync benchmark: ${perEntity.toLocaleString('en')} records per sandbox entity (+ countries), page size ${pageSize}, ${rounds} round(s), Postgres ${new URL(databaseUrl).host}`,
  );
  await phase('floor'); // warm-up: the sandbox serializes records on first read
  // Each round measures the floor, a backfill into a fresh schema and a resync back to back, so
  // that a slow spell of the machine (these VMs share their cores) hits all three alike.
  const measured = [];
  for (let round = 1; round <= rounds; round++) {
    const floorRun = await phase('floor');
    const backfill = await phase('backfill');
    const resync = await phase('resync');
    measured.push({ floorRun, backfill, resync });
    console.log(
      `round ${round}: floor ${seconds(floorRun.ms)} s, backfill ${seconds(backfill.ms)} s (${(backfill.ms / floorRun.ms).toFixed(2)}x, peak RSS ${backfill.rssMb} MB), resync ${seconds(resync.ms)} s (${(resync.ms / floorRun.ms).toFixed(2)}x, peak RSS ${resync.rssMb} MB)`,
    );
  }
  const naiveRun = await phase('naive');
  const peakRssMb = Math.max(...measured.flatMap((m) => [m.backfill.rssMb, m.resync.rssMb]));

  const floorMs = median(measured.map((m) => m.floorRun.ms));
  const backfillMs = median(measured.map((m) => m.backfill.ms));
  const resyncMs = median(measured.map((m) => m.resync.ms));
  // Ratios are taken within a round (measured minutes apart at most), then their median.
  const backfillRatio = median(measured.map((m) => m.backfill.ms / m.floorRun.ms));
  const resyncRatio = median(measured.map((m) => m.resync.ms / m.floorRun.ms));
  const { records, requests } = measured[0].floorRun;
  const table = [
    [
      'phase (median of rounds)',
      'records',
      'seconds',
      'records/s',
      'requests',
      "vs floor (median of the rounds' ratios)",
    ],
    ['floor: fetch + parse only', records, seconds(floorMs), rate(records, floorMs), requests, '1.00x'],
    [
      'backfill (empty mirror)',
      measured[0].backfill.records,
      seconds(backfillMs),
      rate(measured[0].backfill.records, backfillMs),
      measured[0].backfill.requests,
      `${backfillRatio.toFixed(2)}x`,
    ],
    [
      'resync, nothing changed',
      measured[0].resync.records,
      seconds(resyncMs),
      rate(measured[0].resync.records, resyncMs),
      measured[0].resync.requests,
      `${resyncRatio.toFixed(2)}x`,
    ],
    [
      `naive row-by-row (first ${naiveRun.records})`,
      naiveRun.records,
      seconds(naiveRun.ms),
      rate(naiveRun.records, naiveRun.ms),
      '-',
      '-',
    ],
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => String(row[i]).length)));
  for (const row of table)
    console.log(
      row.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  '),
    );
  const speedup = naiveRun.ms / naiveRun.records / (backfillMs / measured[0].backfill.records);
  console.log(
    `document lines written: ${measured[0].backfill.lines}; changes rows written by the resyncs: ${measured.map((m) => m.resync.changes).join(', ')}`,
  );
  console.log(
    `backfill is ${speedup.toFixed(1)}x faster per record than the naive baseline; peak RSS of a backfill or resync ${peakRssMb} MB (floor: ${Math.max(...measured.map((m) => m.floorRun.rssMb))} MB)`,
  );
  console.log(
    `targets: backfill <= 2x floor (${backfillRatio.toFixed(2)}x), resync <= 1.3x floor (${resyncRatio.toFixed(2)}x), >= 10x naive (${speedup.toFixed(1)}x), RSS < 300 MB (${peakRssMb} MB)`,
  );
} finally {
  sandbox.kill('SIGTERM');
}
