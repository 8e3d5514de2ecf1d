#!/usr/bin/env node
/**
 * The `invoice-mirror` command line. Answers `--version` before loading anything else, so the
 * answer is as quick as Node itself; everything else is in `program.ts`, which loads only the
 * command that runs.
 */
import module from 'node:module';
import { packageVersion } from './version.js';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${packageVersion()}\n`);
  process.exit(0);
}
// Node 22.1 and later keep the compiled code of the modules on disk (in the system's temporary
// directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a command then starts without compiling
// its 2 MB of JavaScript again. Node 20 has no such cache and starts as before.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { run } = await import('./program.js');
await run(packageVersion());
