// The README's table of settings, derived from src/settings.ts (the one description of each).
//   node scripts/settings-table.mjs           print the table
//   node scripts/settings-table.mjs --write   put it in README.md, between its markers
//   node scripts/settings-table.mjs --check   exit 1, printing the table, when README.md differs
// (test/foundation/settings-readme.test.ts runs --check). src/settings.ts is read through esbuild,
// so that the table is the source's, never a stale build's.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const README = join(root, 'README.md');
const START = '<!-- settings: generated from src/settings.ts by `node scripts/settings-table.mjs --write` -->';
const END = '<!-- /settings -->';

const { outputFiles } = await build({
  entryPoints: [join(root, 'src', 'settings.ts')],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
});
const { SETTING_LIST, allowedValues } = await import(
  `data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`
);

/** A markdown table with its columns padded, as the README's other tables are. */
function markdownTable(header, rows) {
  const widths = header.map((_, i) => Math.max(3, ...[header, ...rows].map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

const table = markdownTable(
  ['variable', 'meaning', 'default', 'value'],
  SETTING_LIST.map(({ setting }) => [
    `\`${setting.env}\``,
    setting.meaning,
    setting.default === undefined ? 'unset' : `\`${setting.default}\``,
    allowedValues(setting),
  ]),
);

const readme = readFileSync(README, 'utf8');
const start = readme.indexOf(START);
const end = readme.indexOf(END);
if (start < 0 || end < start) throw new Error(`README.md: the markers ${START} and ${END} are missing`);
const updated = `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`;

const mode = process.argv[2];
if (mode === '--write') writeFileSync(README, updated);
else if (mode === '--check') {
  if (updated !== readme) {
    process.stdout.write(
      `README.md's settings table is not src/settings.ts's; run ${'`'}node scripts/settings-table.mjs --write${'`'}. It should be:\n${table}\n`,
    );
    process.exitCode = 1;
  }
} else process.stdout.write(`${table}\n`);
