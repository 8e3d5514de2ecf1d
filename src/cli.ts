#!/usr/bin/env node
/**
 * The `invoice-mirror` command line: parses arguments and hands each command to its module.
 * Exit codes: 0 success, 1 failure, 2 bad usage or configuration.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerJobsCommands } from './commands/jobs.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerReportCommand } from './commands/report.js';
import { registerSqlCommand } from './commands/sql.js';
import { registerSyncCommands } from './commands/sync.js';
import { registerDaemonCommand } from './commands/daemon.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerStatusCommand } from './commands/status.js';
import { registerSandboxCommand } from './sandbox/command.js';
import { reportFailure } from './commands/context.js';
import { limitHeapGrowth } from './heap.js';

function packageVersion(): string {
  // dist/src/cli.js and src/cli.ts sit at different depths below package.json.
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

export function buildProgram(): Command {
  const program = new Command('invoice-mirror')
    .description(
      'Keeps a Postgres mirror of an invoicing account (FactuurSturen.nl API v1) and runs queued write actions',
    )
    .version(packageVersion())
    .showHelpAfterError('(run invoice-mirror --help for usage)')
    .exitOverride();
  registerMigrateCommand(program);
  registerSyncCommands(program);
  registerDaemonCommand(program);
  registerStatusCommand(program);
  registerDemoCommand(program);
  registerSandboxCommand(program);
  registerSqlCommand(program);
  registerJobsCommands(program);
  registerReportCommand(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; every other commander error is bad usage.
      return error.exitCode === 0 ? 0 : 2;
    }
    return reportFailure(error);
  }
}

// A promise no one waited for that failed is a bug; it still ends the program with one line and
// a log entry, not a bare stack trace.
process.on('unhandledRejection', (reason) => process.exit(reportFailure(reason)));
limitHeapGrowth();
const code = await main();
process.exit(code);
