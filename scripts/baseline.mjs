// Writes src/db/baseline-schema.ts: the schema every migration and the repeatable step leave, as
// pg_dump prints it, which `migrate` runs as one text in place of replaying them one by one into
// an empty schema (src/db/baseline.ts says why). Run it after adding a migration or changing what
// a repeatable makes (the catalogue's reports, columns, job kinds, event types); the baseline test
// (test/foundation/baseline.test.ts) fails until it has been run, and checks that the result
// equals the migrations and repeatables replayed, on whatever server the tests run on.
//
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node scripts/baseline.mjs
//
// Needs pg_dump (of the server's version or newer) on PATH and a server with lz4 (Debian's has it):
// the columns the migrations compress with lz4 where the server can are kept apart, for
// `migrate` to apply only where the server has it, as the migrations do.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { CompiledQuery } from 'kysely';

const PLACEHOLDER = 'invoice_mirror_baseline';
const OUTPUT = new URL('../src/db/baseline-schema.ts', import.meta.url);
const url = process.env.DATABASE_URL;
if (!url) throw new Error('set DATABASE_URL to a PostgreSQL server with lz4 (the baseline is dumped from it)');

const { openDatabase, migrate } = await import('../dist/src/db/index.js');
const { migrations } = await import('../dist/migrations/index.js');
const { REPEATABLES } = await import('../dist/src/db/repeatable.js');
const handle = await openDatabase({ databaseUrl: url, embeddedDbDir: '', schema: PLACEHOLDER, poolSize: 1 });
let dump;
try {
  await handle.db.executeQuery(CompiledQuery.raw(`drop schema if exists ${PLACEHOLDER} cascade`));
  await migrate(handle.db, PLACEHOLDER, { baseline: false });
  dump = execFileSync(
    'pg_dump',
    [
      `--dbname=${url}`,
      `--schema=${PLACEHOLDER}`,
      '--inserts',
      '--no-owner',
      `--exclude-table=${PLACEHOLDER}.schema_migrations`,
      `--exclude-table=${PLACEHOLDER}.schema_repeatables`, // recorded by \`migrate\` with the hashes below
    ],
    { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 },
  );
} finally {
  await handle.db.executeQuery(CompiledQuery.raw(`drop schema if exists ${PLACEHOLDER} cascade`));
  await handle.close();
}

const COMPRESSION = /^ALTER TABLE ONLY \S+ ALTER COLUMN \S+ SET COMPRESSION lz4;$/;
const definitions = [];
const lz4 = [];
for (const line of dump.split('\n')) {
  // pg_dump's comments, psql's meta-commands and its session settings (the migration transaction
  // has its own), and the schema, which `migrate` has made already.
  if (/^(--|\\|SET |SELECT pg_catalog\.set_config\()/.test(line) || line === `CREATE SCHEMA ${PLACEHOLDER};`) continue;
  if (COMPRESSION.test(line)) lz4.push(line);
  else if (line !== '' || definitions.at(-1) !== '') definitions.push(line);
}
if (lz4.length === 0) throw new Error('the server has no lz4: dump the baseline from one that has (Debian’s has)');
// Each schema's notification channels hold a random part of their own (migration 0016).
const text = definitions
  .join('\n')
  .trim()
  .replace(/'im_(jobs|events)_[0-9a-f]{32}'/g, `'im_$1_' || replace(gen_random_uuid()::text, '-', '')`);
if (!text.includes("'im_jobs_' || replace(")) throw new Error('the notification channels were not found in the dump');

const literal = (value) => `\`\n${value.replace(/[\\`]|\$\{/g, (match) => `\\${match}`)}\n\``;
writeFileSync(
  OUTPUT,
  `// Written by scripts/baseline.mjs (pg_dump of the schema the migrations and the repeatable step leave): do not edit.
export const BASELINE = {
  /** The migrations this schema stands for, in order. */
  migrations: ${JSON.stringify(migrations.map((m) => m.name))},
  /** The repeatables it holds, with the hash of what each made (one whose hash changed since is applied again). */
  repeatables: ${JSON.stringify(Object.fromEntries(REPEATABLES.map((r) => [r.name, r.hash])))},
  /** The schema's name in the text below. */
  schema: '${PLACEHOLDER}',
  /** Every object and seeded row, in an order that needs no other. */
  definitions: ${literal(text)},
  /** The columns the migrations compress with lz4 where the server has it. */
  lz4: ${literal(lz4.join('\n'))},
} as const;
`,
);
execFileSync('npx', ['biome', 'format', '--write', OUTPUT.pathname], { stdio: 'inherit' });
console.log(
  `src/db/baseline-schema.ts: ${migrations.length} migrations, ${REPEATABLES.length} repeatables, ${text.length} characters, ${lz4.length} lz4 columns`,
);
