// Requests per full pull of every list, against the sandbox: how many a client makes to read
// each entity's list (and the country list) completely, for a few sizes. Run after a build:
//   node bench/requests.mjs [path/to/dist/src/api/index.js]
// The optional argument points at another build (an older release) to compare with.
import { startSandbox } from '../dist/src/sandbox/index.js';

const apiPath = process.argv[2] ?? '../dist/src/api/index.js';
const { InvoicingClient } = await import(apiPath.startsWith('.') ? apiPath : new URL(`file://${apiPath}`).href);
const ENTITIES = ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'];
const PAGE_SIZE = Number(process.env.BENCH_PAGE_SIZE ?? 250);

const rows = [];
for (const perEntity of [100, 1000, 10000]) {
  const sandbox = await startSandbox({ perEntity: Object.fromEntries(ENTITIES.map((e) => [e, perEntity])), seed: 3 });
  const client = new InvoicingClient({
    baseUrl: sandbox.url,
    user: 'sandbox',
    apiKey: 'sandbox',
    pageSize: PAGE_SIZE,
    requestsPerHour: 0,
  });
  const row = { records: perEntity };
  for (const entity of [...ENTITIES, 'countries']) {
    sandbox.clearCalls();
    const stream = client.list(entity);
    for await (const _page of stream) {
      // read every page
    }
    row[entity] = sandbox.calls.length;
  }
  row.total = ENTITIES.reduce((n, e) => n + row[e], row.countries);
  rows.push(row);
  await client.close();
  await sandbox.close();
}
console.log(`requests per full pull, pages of ${PAGE_SIZE}:`);
console.table(rows);
