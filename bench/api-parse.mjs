#!/usr/bin/env node
/**
 * API client parsing benchmark: 100k records (20k per entity) from the sandbox.
 *
 *   npm run build && node bench/api-parse.mjs [--records-per-entity 20000] [--page-size 250] [--rounds 3]
 *
 * 1. over HTTP: `client.list(entity)` against the in-process sandbox at zero latency, records/s
 *    (includes the sandbox's own serialization, which runs in the same process);
 * 2. parse only, no HTTP: the same wire pages as text, JSON.parse + zod validation per page,
 *    zod validation alone, and JSON.parse alone (the floor: the machine's JSON speed). Best of `--rounds` (the first rounds warm the JIT).
 */
import { pino } from 'pino';
import { InvoicingClient, parseRecords } from '../dist/src/api/index.js';
import { LISTS as ENTITIES, numberOptions, startListsSandbox } from './lists-sandbox.mjs';

const {
  'records-per-entity': perEntity,
  'page-size': pageSize,
  rounds,
} = numberOptions({ 'records-per-entity': 20_000, 'page-size': 250, rounds: 3 });

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const sb = await startListsSandbox(perEntity);
const api = new InvoicingClient({
  baseUrl: sb.url,
  user: sb.user,
  apiKey: sb.apiKey,
  pageSize,
  requestsPerHour: 0,
  logger: pino({ level: 'warn' }),
});

console.log(
  `node ${process.version}, ${ENTITIES.length} × ${fmt(perEntity)} records, page size ${pageSize}, best of ${rounds}\n`,
);

// 1. Over HTTP.
console.log('over HTTP (sandbox in-process, zero latency)');
let httpBest = Infinity;
for (let round = 0; round < rounds; round++) {
  const started = performance.now();
  let total = 0;
  for (const entity of ENTITIES) {
    const stream = api.list(entity);
    for await (const page of stream) {
      total += page.records.length;
      if (page.skipped.length) throw new Error(`unexpected skipped records: ${JSON.stringify(page.skipped[0])}`);
    }
    if (!stream.complete) throw new Error(`${entity}: not complete`);
  }
  const ms = performance.now() - started;
  httpBest = Math.min(httpBest, ms);
  if (total !== ENTITIES.length * perEntity) throw new Error(`got ${total} records`);
}
console.log(
  `  all entities: ${fmt((ENTITIES.length * perEntity) / (httpBest / 1000))} records/s (${fmt(httpBest)} ms for ${fmt(ENTITIES.length * perEntity)}; ${api.requestsMade / rounds} requests per round)\n`,
);

// 2. Parse only: the wire pages as the service sends them.
console.log('parse only (no HTTP), per page of', pageSize);
const rows = [];
let sumJson = 0;
let sumZod = 0;
for (const entity of ENTITIES) {
  const wire = sb.store.list(entity);
  const texts = [];
  for (let i = 0; i < wire.length; i += pageSize) texts.push(JSON.stringify(wire.slice(i, i + pageSize)));
  const objects = texts.map((t) => JSON.parse(t));
  let bestFull = Infinity;
  let bestZod = Infinity;
  let bestJson = Infinity;
  for (let round = 0; round < rounds; round++) {
    let t = performance.now();
    for (const text of texts) JSON.parse(text);
    bestJson = Math.min(bestJson, performance.now() - t);
    t = performance.now();
    let n = 0;
    for (const text of texts) n += parseRecords(entity, JSON.parse(text)).records.length;
    bestFull = Math.min(bestFull, performance.now() - t);
    if (n !== wire.length) throw new Error(`${entity}: parsed ${n} of ${wire.length}`);
    t = performance.now();
    for (const items of objects) parseRecords(entity, items);
    bestZod = Math.min(bestZod, performance.now() - t);
  }
  sumJson += bestFull;
  sumZod += bestZod;
  const bytes = texts.reduce((s, t) => s + t.length, 0);
  rows.push({
    entity,
    'JSON.parse+zod rec/s': fmt(wire.length / (bestFull / 1000)),
    'zod only rec/s': fmt(wire.length / (bestZod / 1000)),
    'JSON.parse only rec/s': fmt(wire.length / (bestJson / 1000)),
    'JSON.parse MB/s': fmt(bytes / 1e6 / (bestJson / 1000)),
    'µs per page': fmt((bestFull * 1000) / texts.length),
    'KiB per page': (bytes / texts.length / 1024).toFixed(1),
  });
}
console.table(rows);
const total = ENTITIES.length * perEntity;
console.log(
  `  all entities: JSON.parse+zod ${fmt(total / (sumJson / 1000))} records/s, zod only ${fmt(total / (sumZod / 1000))} records/s`,
);

await api.close();
await sb.close();
