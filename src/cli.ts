#!/usr/bin/env node
/**
 * The `invoice-mirror` command line. Answers `--version` before loading anything else, so the
 * answer is as quick as Node itself; everything else is in `program.ts`, which loads only the
 * command that runs.
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${packageVersion()}\n`);
  process.exit(0);
}
const { run } = await import('./program.js');
await run(packageVersion());

function packageVersion(): string {
  // dist/cli/cli.js (the bundle), dist/src/cli.js and src/cli.ts sit at different depths below package.json.
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'invoice-mirror' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}
