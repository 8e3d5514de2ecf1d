// For the benchmarks that read the five paged lists from an in-process sandbox: their numeric
// options (`--name value`, read with Node's own parseArgs) and the sandbox holding `perEntity`
// records in each list.
import { parseArgs } from 'node:util';
import { startSandbox } from '../dist/src/sandbox/index.js';

export const LISTS = ['clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices'];

/** The command line's options, each a number, with these defaults (`{ 'page-size': 250 }`). */
export function numberOptions(defaults) {
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(defaults).map((name) => [name, { type: 'string' }])),
  });
  return Object.fromEntries(Object.entries(defaults).map(([name, value]) => [name, Number(values[name] ?? value)]));
}

export function startListsSandbox(perEntity) {
  return startSandbox({
    records: 0,
    perEntity: Object.fromEntries(LISTS.map((list) => [list, perEntity])),
    seed: 1,
    latencyMs: 0,
  });
}
