// List throughput of the sandbox over HTTP (100k records by default).
// Build first: npm run build ; then: node bench/sandbox-list.mjs [records]
// The sandbox runs in a child process (its own event loop, as a real service would), and then
// once more in this process (as the tests use it, client and server sharing one thread).
import { fork } from 'node:child_process';
import { request } from 'undici';
import { startSandbox } from '../dist/src/sandbox/index.js';

const RECORDS = Number(process.argv[2] ?? 100_000);
/** Records per entity: `records` split evenly, the remainder to the first ones (as the sandbox does). */
const totalsFor = (records) =>
  Object.fromEntries(Object.keys(PATHS).map((e, i) => [e, Math.floor(records / 5) + (i < records % 5 ? 1 : 0)]));
const PATHS = {
  clients: 'clients',
  products: 'products',
  quotations: 'quotations',
  saved_invoices: 'invoices_saved',
  repeating_invoices: 'invoices_repeated',
};

async function pullAll(url, totals, pageSize, parse) {
  const authorization = `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}`;
  let records = 0;
  let bytes = 0;
  let calls = 0;
  const started = performance.now();
  for (const [entity, path] of Object.entries(PATHS)) {
    for (let start = 0; ; start += pageSize) {
      const res = await request(`${url}/${path}?count=${pageSize}&start=${pageSize < 0 ? 0 : start}`, {
        headers: { authorization, accept: 'application/json' },
      });
      const body = Buffer.from(await res.body.arrayBuffer());
      if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode}`);
      calls++;
      bytes += body.length;
      const expected = Math.max(
        0,
        Math.min(pageSize < 0 ? Infinity : pageSize, totals[entity] - (pageSize < 0 ? 0 : start)),
      );
      const n = parse ? JSON.parse(body.toString('utf8')).length : expected;
      if (n !== expected) throw new Error(`${path}: expected ${expected} records, got ${n}`);
      records += n;
      if (pageSize < 0 || n < pageSize) break;
    }
  }
  return { records, bytes, calls, seconds: (performance.now() - started) / 1000 };
}

const RUNS = [
  ['count=-1, first pull', -1, false],
  ['count=-1', -1, false],
  ['pages of 1000', 1000, false],
  ['pages of 250', 250, false],
  ['pages of 250 + client JSON.parse', 250, true],
];

async function measure(where, url, totals) {
  const rows = [];
  for (const [label, size, parse] of RUNS) {
    const r = await pullAll(url, totals, size, parse);
    rows.push({
      sandbox: where,
      run: label,
      records: r.records,
      calls: r.calls,
      MB: +(r.bytes / 1e6).toFixed(1),
      seconds: +r.seconds.toFixed(2),
      'records/s': Math.round(r.records / r.seconds),
      'MB/s': +(r.bytes / 1e6 / r.seconds).toFixed(1),
    });
  }
  return rows;
}

async function main() {
  const child = fork(new URL(import.meta.url), ['--serve', String(RECORDS)]);
  const info = await new Promise((resolve) => child.once('message', resolve));
  console.log(`child process: ${RECORDS} records generated in ${info.generateMs.toFixed(0)} ms`);
  const rows = await measure('child process', info.url, info.totals);
  child.send('stop');

  const started = performance.now();
  const sb = await startSandbox({ records: RECORDS, seed: 1 });
  const generateMs = performance.now() - started;
  console.log(`in process: ${RECORDS} records generated in ${generateMs.toFixed(0)} ms`);
  const totals = totalsFor(RECORDS);
  rows.push(...(await measure('in process', sb.url, totals)));
  await sb.close();
  console.table(rows);
}

if (process.argv[2] === '--serve') {
  // Child: start the sandbox, report URL and per-entity totals, stop on request.
  const started = performance.now();
  const sb = await startSandbox({ records: Number(process.argv[3]), seed: 1 });
  const generateMs = performance.now() - started;
  const totals = totalsFor(Number(process.argv[3]));
  process.send({ url: sb.url, totals, generateMs });
  const stop = async () => {
    await sb.close();
    process.exit(0);
  };
  process.on('message', stop);
  process.on('disconnect', stop); // the parent is gone (finished or crashed)
} else {
  await main();
}
