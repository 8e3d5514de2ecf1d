#!/usr/bin/env node
/**
 * The `invoice-mirror` command line's start (the package's bin, dist/cli/cli.js). Answers
 * `--version` before loading anything else, so the answer is as quick as Node itself; otherwise
 * runs the command line's bundle (dist/cli/main.cjs, made from main.ts) with its compiled code
 * cached between runs (code-cache.ts).
 */
import { fileURLToPath } from 'node:url';
import { runBundle } from './code-cache.js';
import { limitHeapGrowth } from './heap.js';
import { packageVersion } from './version.js';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${packageVersion()}\n`);
  process.exit(0);
}
// Before anything is compiled: V8 refuses a code cache made under other flags.
limitHeapGrowth();
runBundle(fileURLToPath(new URL('main.cjs', import.meta.url)));
