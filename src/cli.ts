#!/usr/bin/env node
/**
 * The `invoice-mirror` command line. Answers `--version` before loading anything else, so the
 * answer is as quick as Node itself; everything else is in `program.ts`, which loads only the
 * command that runs.
 */
import { packageVersion } from './version.js';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${packageVersion()}\n`);
  process.exit(0);
}
const { run } = await import('./program.js');
await run(packageVersion());
