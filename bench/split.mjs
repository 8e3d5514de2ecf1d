#!/usr/bin/env node
/**
 * What a no-change sync does with each page before the mirror is asked anything, per page of
 * 500 records (ms, best of --rounds after warm-up), for each of the five sandbox lists:
 *
 *   npm run build && node bench/split.mjs [--records-per-entity 5000] [--rounds 20]
 *
 * - scan: splitJsonArray alone (bounds and plain keys), then textFingerprint of each element:
 *   what a page costs when its records are not held (the first page of each list, or a record
 *   that changed);
 * - held: splitJsonArray with every element's stored fingerprint (the split takes each as it is;
 *   the hash is its check): what an unchanged page costs;
 * - JSON.parse of the page: the floor's own work, for scale.
 */
import { textFingerprint } from '../dist/src/api/fingerprint.js';
import { splitJsonArray } from '../dist/src/api/json-split.js';
import { entityNamed, MAX_INTEGER } from '../dist/src/catalog/index.js';
import { LISTS, numberOptions, startListsSandbox } from './lists-sandbox.mjs';

const { 'records-per-entity': perEntity, rounds } = numberOptions({ 'records-per-entity': 5_000, rounds: 20 });
const sandbox = await startListsSandbox(perEntity);
const auth = `Basic ${Buffer.from(`${sandbox.user}:${sandbox.apiKey}`).toString('base64')}`;

/** Best per-page ms of `work` over the pages, after a warm-up round. */
function best(pages, work) {
  let fastest = Infinity;
  for (let round = 0; round <= rounds; round++) {
    const started = performance.now();
    for (const page of pages) work(page);
    const ms = (performance.now() - started) / pages.length;
    if (round > 0) fastest = Math.min(fastest, ms);
  }
  return fastest.toFixed(2);
}

const rows = [];
for (const entity of LISTS) {
  const { endpoint, key } = entityNamed(entity);
  const keyField = { name: key, max: MAX_INTEGER };
  const pages = [];
  for (let start = 0; start < perEntity; start += 500) {
    const answer = await fetch(`${sandbox.url}${endpoint}?count=500&start=${start}`, {
      headers: { authorization: auth },
    });
    const bytes = Buffer.from(await answer.arrayBuffer());
    const split = splitJsonArray(bytes, keyField);
    const stored = new Map();
    for (const [i, k] of split.keys.entries())
      stored.set(k, textFingerprint(bytes.subarray(split.bounds[2 * i], split.bounds[2 * i + 1])));
    pages.push({ bytes, stored });
  }
  rows.push({
    list: entity,
    'kB per page': Math.round(pages.reduce((sum, p) => sum + p.bytes.length, 0) / pages.length / 1024),
    'scan ms': best(pages, ({ bytes }) => splitJsonArray(bytes, keyField)),
    'scan + fingerprints ms': best(pages, ({ bytes }) => {
      const { bounds } = splitJsonArray(bytes, keyField);
      for (let i = 0; i < bounds.length; i += 2) textFingerprint(bytes.subarray(bounds[i], bounds[i + 1]));
    }),
    'held ms': best(pages, ({ bytes, stored }) => splitJsonArray(bytes, keyField, (k) => stored.get(k))),
    'JSON.parse ms': best(pages, ({ bytes }) => JSON.parse(bytes.toString('utf8'))),
  });
}
await sandbox.close();
console.log(`node ${process.version}, pages of 500, best of ${rounds} rounds`);
console.table(rows);
