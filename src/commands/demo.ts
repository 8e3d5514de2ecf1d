/**
 * `invoice-mirror demo`: the whole product in one command, with nothing to set up. Starts the
 * built-in sandbox in this process, backfills it into the configured database (the embedded one
 * by default) under the schema `invoicing_demo` (emptied first, so a second demo starts afresh and
 * never touches the real mirror), queues and runs a few jobs, shows what changed, prints a report.
 */
import type { Command } from 'commander';
import { sql } from 'kysely';
import { checkPoolSize, openApp, syncDeps, type App } from '../app.js';
import type { InvoicingClient } from '../api/index.js';
import { createApiClient } from '../service-client.js';
import type { Config } from '../config.js';
import { migrate } from '../db/index.js';
import { RunError } from '../errors.js';
import { formatRows } from '../format.js';
import { JobRunner, addJob } from '../jobs/index.js';
import { logger, setLogLevel } from '../log.js';
import { findReport, runReport } from '../reports/index.js';
import { startSandbox } from '../sandbox/index.js';
import { progressReporter, runSync } from '../sync/index.js';
import { loadSettings, positiveInteger } from './context.js';

export const DEMO_SCHEMA = 'invoicing_demo';

function heading(text: string): void {
  process.stdout.write(`\n== ${text}\n`);
}

export function registerDemoCommand(command: Command): void {
  command
    .option('--records <n>', 'records the sandbox generates', positiveInteger('--records'), 500)
    .action(async (options: { records: number }) => {
      const settings = loadSettings();
      // The demo speaks for itself on stdout; its logs only when asked for (LOG_LEVEL).
      if (!process.env.LOG_LEVEL) setLogLevel('warn');
      const sandbox = await startSandbox({ records: options.records, seed: 1, sendMsPerInvoice: 300 });
      const config: Config = {
        ...settings,
        schema: DEMO_SCHEMA,
        api: { ...settings.api, url: sandbox.url, user: sandbox.user, apiKey: sandbox.apiKey },
      };
      checkPoolSize(config, 'sync');
      const app = await openApp(config, { migrate: 'always' }).catch(async (error: unknown) => {
        await sandbox.close();
        throw error;
      });
      const client = createApiClient(app);
      try {
        await sql`drop schema if exists ${sql.id(DEMO_SCHEMA)} cascade`.execute(app.database.db);
        await migrate(app.database.db, DEMO_SCHEMA);
        process.stdout.write(
          `invoice-mirror demo: sandbox at ${sandbox.url}, mirror in ${app.database.location} (schema ${DEMO_SCHEMA})\n`,
        );
        await backfillStep(app, client);
        const failed = await jobsStep(app, client, config);
        await changesStep(app.database.db);
        await reportStep(app.database.db);
        process.stdout.write(
          `\nDone. Explore the demo mirror with, for example:\n` +
            `  MIRROR_SCHEMA=${DEMO_SCHEMA} npx invoice-mirror report\n` +
            `  MIRROR_SCHEMA=${DEMO_SCHEMA} npx invoice-mirror sql "select * from open_quotations limit 5"\n`,
        );
        if (failed > 0) throw new RunError(`${failed} demo job(s) failed`);
      } finally {
        await client.close();
        await app.close();
        await sandbox.close();
      }
    });
}

type Db = App['database']['db'];

async function rowsOf<T>(db: Db, query: ReturnType<typeof sql<T>>): Promise<T[]> {
  return (await query.execute(db)).rows;
}

async function backfillStep(app: App, client: InvoicingClient): Promise<void> {
  heading('1. Backfill: every entity of the sandbox account into the mirror');
  const backfill = await runSync(syncDeps(app, client), {
    kind: 'backfill',
    onProgress: progressReporter(process.stderr, logger),
  });
  if (backfill.status !== 'succeeded') throw new RunError(`demo backfill ended ${backfill.status}: ${backfill.error}`);
  const pulled = Object.entries(backfill.entities).map(([entity, o]) => ({ entity, records: o!.fetched }));
  process.stdout.write(formatRows(pulled, 'table'));
}

/** Queues and runs the demo's jobs; returns how many failed. */
async function jobsStep(app: App, client: InvoicingClient, config: Config): Promise<number> {
  heading('2. Jobs: send two saved invoices, approve a sent quotation, set a stock level');
  const { db } = app.database;
  const invoices = await rowsOf<{ id: number }>(
    db,
    sql`select id from saved_invoices where deleted_at is null order by id limit 2`,
  );
  const [quotation] = await rowsOf<{ id: number }>(
    db,
    sql`
    select id from quotations where deleted_at is null and sent and approved is null and coalesce(customstatus, '') <> 'declined' order by id limit 1`,
  );
  const [product] = await rowsOf<{ id: number }>(
    db,
    sql`select id from products where deleted_at is null and stock_use order by id limit 1`,
  );
  if (invoices.length < 2 || !quotation || !product)
    throw new RunError('the sandbox account is too small for the demo; try --records 500');
  const today = new Date().toISOString().slice(0, 10);
  const approval = {
    id: quotation.id,
    name: 'Demo Customer',
    date: today,
    comments: 'Approved in the invoice-mirror demo',
  };
  await addJob(db, { kind: 'send_saved_invoices', payload: { ids: invoices.map((i) => i.id), delete: true } });
  await addJob(db, { kind: 'approve_quotation', payload: approval });
  await addJob(db, { kind: 'set_product_stock', payload: { id: product.id, stock: 42 } });
  const ran = await new JobRunner({ database: app.database, client, config, logger }).runUntilEmpty();
  const jobs = await rowsOf<Record<string, unknown>>(
    db,
    sql`select id, kind, status, attempts, last_error from jobs order by id`,
  );
  process.stdout.write(formatRows(jobs, 'table'));
  return ran.failed;
}

async function changesStep(db: Db): Promise<void> {
  heading('3. What the jobs changed in the mirror (re-read after each job)');
  const changes = await rowsOf<Record<string, unknown>>(
    db,
    sql`
    select c.entity, c.entity_id, c.op, array_to_string(c.changed_fields, ', ') as changed_fields
    from changes c join sync_runs r on r.id = c.sync_run_id where r.kind = 'refresh' order by c.id`,
  );
  process.stdout.write(formatRows(changes, 'table'));
}

async function reportStep(db: Db): Promise<void> {
  heading('4. A report: the quotation pipeline');
  const report = findReport('quotation_pipeline')!;
  const result = await runReport(db, DEMO_SCHEMA, report);
  process.stdout.write(formatRows(result.rows, 'table', result.columns));
}
