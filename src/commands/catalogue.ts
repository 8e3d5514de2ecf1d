/**
 * The commands, in the order `--help` lists them, each with its one-line description. A command's
 * module (its options and what it does, with everything it imports) is loaded only when that
 * command runs or its own help is asked for, so `--help` and quick commands start fast.
 */
import type { Command } from 'commander';

export interface CommandEntry {
  name: string;
  description: string;
  /** Adds the command, with this description, to the program. */
  load(): Promise<(program: Command) => void>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'migrate',
    description: 'apply pending migrations to the mirror schema, creating the embedded database if needed',
    load: async () => (await import('./migrate.js')).registerMigrateCommand,
  },
  {
    name: 'backfill',
    description:
      'pull everything (or the named entities) into the mirror; exit code 0 only when every entity was pulled completely',
    load: async () => (await import('./sync.js')).registerBackfillCommand,
  },
  {
    name: 'sync',
    description: 'one scheduled-style pass of every entity, then exit',
    load: async () => (await import('./sync.js')).registerSyncCommand,
  },
  {
    name: 'daemon',
    description: 'run continuously: scheduled sync, job runner, /healthz and /metrics; stops cleanly on SIGINT/SIGTERM',
    load: async () => (await import('./daemon.js')).registerDaemonCommand,
  },
  {
    name: 'config',
    description:
      'print every setting with its effective value and source, and the database it will use (secrets hidden)',
    load: async () => (await import('./config.js')).registerConfigCommand,
  },
  {
    name: 'console',
    description: 'serve the web console (overview, jobs, changes, records, reports) on 127.0.0.1:9465',
    load: async () => (await import('./console.js')).registerConsoleCommand,
  },
  {
    name: 'status',
    description: 'last sync runs, mirror counts, the job queue and the rate-limit budget last seen',
    load: async () => (await import('./status.js')).registerStatusCommand,
  },
  {
    name: 'demo',
    description:
      'try everything against the built-in sandbox: backfill, jobs, changes, a report (schema invoicing_demo)',
    load: async () => (await import('./demo.js')).registerDemoCommand,
  },
  {
    name: 'sandbox',
    description: 'run the built-in simulated invoicing service with generated data',
    load: async () => (await import('../sandbox/command.js')).registerSandboxCommand,
  },
  {
    name: 'sql',
    description: 'run one read-only query against the mirror and print the rows',
    load: async () => (await import('./sql.js')).registerSqlCommand,
  },
  {
    name: 'jobs',
    description: 'queue and steer outbound actions (the jobs table)',
    load: async () => (await import('./jobs.js')).registerJobsCommands,
  },
  {
    name: 'invoice',
    description: 'sent invoices: `invoice pdf ID` prints or saves the archived PDF',
    load: async () => (await import('./invoice.js')).registerInvoiceCommand,
  },
  {
    name: 'report',
    description: 'print a built-in report (no name: list them)',
    load: async () => (await import('./report.js')).registerReportCommand,
  },
];

/** `program.command(name)` with the catalogue's description: how each module starts its command. */
export function addCommand(program: Command, name: string): Command {
  const entry = COMMANDS.find((command) => command.name === name);
  if (!entry) throw new Error(`command '${name}' is not in the catalogue`);
  return program.command(name).description(entry.description);
}
