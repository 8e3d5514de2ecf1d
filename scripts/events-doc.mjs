// docs/events.md's list of event types, derived from src/catalog/events.ts (the one description
// of each): its meaning and an example of what a receiver gets.
//   node scripts/events-doc.mjs --write   put it in docs/events.md, between its markers
//   node scripts/events-doc.mjs --check   exit 1 when docs/events.md differs
// (test/events/doc.test.ts runs --check). The catalogue is read through esbuild, so the list is
// the source's, never a stale build's.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = join(root, 'docs', 'events.md');
const START = '<!-- types: generated from src/catalog/events.ts by `node scripts/events-doc.mjs --write` -->';
const END = '<!-- /types -->';

const { outputFiles } = await build({
  entryPoints: [join(root, 'src', 'catalog', 'events.ts')],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
});
const { EVENT_TYPES } = await import(
  `data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`
);

const entityOf = (event) =>
  event.change?.entity ??
  { job: 'jobs', sync: 'sync_runs', deletes: 'held_deletes' }[event.type.split('.')[0]] ??
  'invoices';
const recordOf = (event) =>
  String(event.example.record?.id ?? event.example.job?.id ?? event.example.run?.id ?? event.example.entity);

/** JSON as the formatter (biome) writes it in markdown: arrays of plain values on one line. */
const json = (value) =>
  JSON.stringify(value, null, 2).replace(
    /\[\n\s+((?:"[^"\n]*"|-?\d+)(?:,\n\s+(?:"[^"\n]*"|-?\d+))*)\n\s+\]/g,
    (_, items) => `[${items.split(/,\n\s+/).join(', ')}]`,
  );

const sections = EVENT_TYPES.map((event) => {
  const payload = {
    id: 'evt_1288490188801',
    type: event.type,
    timestamp: '2026-11-10T09:30:12.000Z',
    account: 'default',
    data: { entity: entityOf(event), record_id: recordOf(event), ...event.example },
  };
  return [
    `### \`${event.type}\``,
    '',
    `${event.meaning[0].toUpperCase()}${event.meaning.slice(1)}.`,
    '',
    '```json',
    json(payload),
    '```',
    '',
  ].join('\n');
});
const generated = [START, '', ...sections, END].join('\n');
const text = readFileSync(DOC, 'utf8');
const [before, rest] = text.split(START);
const after = rest?.split(END)[1];
if (after === undefined) throw new Error(`docs/events.md: the markers ${START} … ${END} are missing`);
const next = `${before}${generated}${after}`;
if (process.argv.includes('--write')) writeFileSync(DOC, next);
else if (process.argv.includes('--check') && next !== text) {
  process.stdout.write("docs/events.md is not the catalogue's list: run node scripts/events-doc.mjs --write\n");
  process.exit(1);
} else if (!process.argv.includes('--check')) process.stdout.write(generated);
