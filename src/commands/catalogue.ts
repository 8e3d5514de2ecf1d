/**
 * The commands, in the order `--help` lists them, each with its one-line description. A command's
 * module (its options and what it does, with everything it imports) is loaded only when that
 * command runs or its own help is asked for, so `--help` and quick commands start fast.
 *
 * The imports run one way: this list loads the command modules, which never import it (the
 * program names and describes each command before handing it to its module).
 */
import type { Command } from 'commander';

export interface CommandEntry {
  name: string;
  description: string;
  /** Shown under `invoice-mirror NAME --help`. */
  example: string;
  /** Adds the command's arguments, options and action to the command, already named and described. */
  load(): Promise<(command: Command) => void>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'migrate',
    description: 'apply pending migrations to the mirror schema, creating the embedded database if needed',
    example: 'DATABASE_URL=postgres://me@localhost/books invoice-mirror migrate',
    load: async () => (await import('./migrate.js')).registerMigrateCommand,
  },
  {
    name: 'backfill',
    description:
      'pull everything (or the named entities) into the mirror; exit code 0 only when every entity was pulled completely',
    example: 'invoice-mirror backfill --only clients,products',
    load: async () => (await import('./sync.js')).registerBackfillCommand,
  },
  {
    name: 'sync',
    description: 'one scheduled-style pass of every entity, then exit',
    example: 'invoice-mirror sync --full',
    load: async () => (await import('./sync.js')).registerSyncCommand,
  },
  {
    name: 'daemon',
    description: 'run continuously: scheduled sync, job runner, /healthz and /metrics; stops cleanly on SIGINT/SIGTERM',
    example: `SYNC_CRON='*/15 * * * *' invoice-mirror daemon`,
    load: async () => (await import('./daemon.js')).registerDaemonCommand,
  },
  {
    name: 'config',
    description:
      'print every setting with its effective value and source, and the database it will use (secrets hidden)',
    example: 'invoice-mirror config --json',
    load: async () => (await import('./config.js')).registerConfigCommand,
  },
  {
    name: 'console',
    description: 'serve the web console (overview, jobs, changes, records, reports) on 127.0.0.1:9465',
    example: 'invoice-mirror console --port 9465',
    load: async () => (await import('./console.js')).registerConsoleCommand,
  },
  {
    name: 'status',
    description: 'last sync runs, mirror counts, the job queue and the rate-limit budget last seen',
    example: 'invoice-mirror status --json',
    load: async () => (await import('./status.js')).registerStatusCommand,
  },
  {
    name: 'demo',
    description:
      'try everything against the built-in sandbox: backfill, jobs, changes, a report (schema invoicing_demo)',
    example: 'invoice-mirror demo --records 2000',
    load: async () => (await import('./demo.js')).registerDemoCommand,
  },
  {
    name: 'sandbox',
    description: 'run the built-in simulated invoicing service with generated data',
    example: 'invoice-mirror sandbox --port 4010 --records 500',
    load: async () => (await import('./sandbox.js')).registerSandboxCommand,
  },
  {
    name: 'sql',
    description: 'run one read-only query against the mirror and print the rows',
    example: 'invoice-mirror sql "select company, city from clients limit 5" --format csv',
    load: async () => (await import('./sql.js')).registerSqlCommand,
  },
  {
    name: 'jobs',
    description: 'queue and steer outbound actions (the jobs table)',
    example: `invoice-mirror jobs add send_saved_invoices '{"ids": [12, 13], "delete": true}'`,
    load: async () => (await import('./jobs.js')).registerJobsCommands,
  },
  {
    name: 'accounts',
    description:
      'the accounts of the service this mirror holds: add, import, list, show, pause, resume, remove, rebind, rotate-secret',
    example: 'invoice-mirror accounts add acme --api-user acme --api-key-env ACME_API_KEY',
    load: async () => (await import('./accounts.js')).registerAccountsCommands,
  },
  {
    name: 'invoice',
    description: 'sent invoices: `invoice pdf ID` prints or saves the archived PDF',
    example: 'invoice-mirror invoice pdf 2026-0042 --out invoice.pdf',
    load: async () => (await import('./invoice.js')).registerInvoiceCommand,
  },
  {
    name: 'export',
    description:
      "an account's books as files, read from the mirror only: `export xaf` (XAF 4.0 auditfile of a year), `export ubl` (Peppol BIS 3.0 invoices)",
    example: 'invoice-mirror export xaf --account acme --year 2026 --seller acme.json --out acme-2026.xaf',
    load: async () => (await import('./export.js')).registerExportCommands,
  },
  {
    name: 'events',
    description: 'print the business events (invoice.paid, client.created, …) as JSON lines; --follow for new ones',
    example: 'invoice-mirror events --type invoice.paid --follow',
    load: async () => (await import('./events.js')).registerEventsCommand,
  },
  {
    name: 'webhooks',
    description:
      'push events to receivers, signed (Standard Webhooks): add, list, remove, pause, resume, deliveries, replay, run',
    example: 'invoice-mirror webhooks add https://example.com/hooks --events invoice.paid,quotation.approved',
    load: async () => (await import('./webhooks.js')).registerWebhooksCommands,
  },
  {
    name: 'report',
    description: 'print a built-in report (no name: list them)',
    example: 'invoice-mirror report open_quotations --format csv',
    load: async () => (await import('./report.js')).registerReportCommand,
  },
];

/** What every command's exit code means. */
export const EXIT_CODES = '0 success, 1 failure, 2 bad usage or configuration (130/143: stopped by SIGINT/SIGTERM)';
