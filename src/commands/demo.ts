/**
 * `invoice-mirror demo`: the whole product in one command, with nothing to set up. Starts the
 * built-in sandbox in this process, backfills it into the configured database (the embedded one
 * by default) under the schema `invoicing_demo` (emptied first, so a second demo starts afresh and
 * never touches the real mirror), queues and runs a few jobs, shows what changed, prints a report.
 * With `--accounts N` the sandbox serves N accounts, the mirror holds them all (the first as
 * `default`, the others added with sealed keys), and a report across them closes the demo.
 */
import { resolveAccounts } from '../accounts/resolve.js';
import type { Command } from 'commander';
import { sql } from 'kysely';
import { accountsAtOnce, checkPoolSize, openApp, type App } from '../app.js';
import type { InvoicingClient } from '../api/index.js';
import { forEachAccount, pullAccount } from '../accounts/pull.js';
import { sealKey } from '../accounts/secret.js';
import { openSession } from '../accounts/session.js';
import { DEFAULT_ACCOUNT, ensureDefaultAccount, type Account } from '../accounts/store.js';
import type { Config } from '../config.js';
import { migrate } from '../db/index.js';
import { RunError } from '../errors.js';
import { formatRows } from '../format.js';
import { JobRunner, addJob } from '../jobs/index.js';
import { logger, setLogLevel } from '../log.js';
import { findReport, runReport } from '../reports/index.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { progressReporter } from '../sync/index.js';
import { randomBytes } from 'node:crypto';
import { loadSettings, positiveInteger } from './context.js';

export const DEMO_SCHEMA = 'invoicing_demo';

function heading(text: string): void {
  process.stdout.write(`\n== ${text}\n`);
}

export function registerDemoCommand(command: Command): void {
  command
    .option('--records <n>', 'records the sandbox generates (per account)', positiveInteger('--records'), 500)
    .option('--accounts <n>', 'accounts the sandbox serves and the mirror holds', positiveInteger('--accounts', 50), 1)
    .action(async (options: { records: number; accounts: number }) => {
      const settings = loadSettings();
      // The demo speaks for itself on stdout; its logs only when asked for (LOG_LEVEL).
      if (!process.env.LOG_LEVEL) setLogLevel('warn');
      const sandbox = await startSandbox({
        records: options.records,
        seed: 1,
        sendMsPerInvoice: 300,
        accounts: options.accounts,
      });
      const config: Config = {
        ...settings,
        schema: DEMO_SCHEMA,
        api: { ...settings.api, url: sandbox.url, user: sandbox.user, apiKey: sandbox.apiKey },
        // The demo's sandbox keys are no secret: without a master secret of the user's, one of its own.
        accounts: { ...settings.accounts, secret: settings.accounts.secret ?? randomBytes(32).toString('base64') },
      };
      checkPoolSize(config, 'sync');
      const app = await openApp(config, { migrate: 'always' }).catch(async (error: unknown) => {
        await sandbox.close();
        throw error;
      });
      let client: InvoicingClient | undefined;
      try {
        await sql`drop schema if exists ${sql.id(DEMO_SCHEMA)} cascade`.execute(app.database.db);
        await migrate(app.database.db, DEMO_SCHEMA);
        const account = await demoAccounts(app, sandbox);
        client = openSession(app, account).client;
        process.stdout.write(
          `invoice-mirror demo: sandbox at ${sandbox.url}, mirror in ${app.database.location} (schema ${DEMO_SCHEMA})\n`,
        );
        if (options.accounts === 1) await backfillStep(app, account, client);
        else await backfillAccountsStep(app);
        const failed = await jobsStep(app, account, client, config);
        await changesStep(app.database.db);
        await reportStep(app.database.db, options.accounts > 1);
        process.stdout.write(
          `\nDone. Explore the demo mirror with, for example:\n` +
            `  MIRROR_SCHEMA=${DEMO_SCHEMA} npx invoice-mirror report\n` +
            `  MIRROR_SCHEMA=${DEMO_SCHEMA} npx invoice-mirror sql "select * from open_quotations limit 5"\n`,
        );
        if (failed > 0) throw new RunError(`${failed} demo job(s) failed`);
      } finally {
        await client?.close();
        await app.close();
        await sandbox.close();
      }
    });
}

type Db = App['database']['db'];

async function rowsOf<T>(db: Db, query: ReturnType<typeof sql<T>>): Promise<T[]> {
  return (await query.execute(db)).rows;
}

/** Account `default` (the sandbox's first, through the settings) and the others with sealed keys; returns `default`. */
async function demoAccounts(app: App, sandbox: Sandbox): Promise<Account> {
  const { db } = app.database;
  await ensureDefaultAccount(db);
  for (const other of sandbox.accounts.slice(1)) {
    await db
      .insertInto('accounts')
      .values({
        name: `client-${other.index}`,
        api_url: sandbox.url,
        api_user: other.user,
        api_key: sealKey(other.apiKey, app.config.accounts.secret!),
      })
      .execute();
  }
  return resolveAccounts(db, DEFAULT_ACCOUNT, { one: true });
}

async function backfillStep(app: App, account: Account, client: InvoicingClient): Promise<void> {
  heading('1. Backfill: every entity of the sandbox account into the mirror');
  const backfill = await pullAccount(app, {
    account,
    client,
    options: { kind: 'backfill', onProgress: progressReporter(process.stderr, logger) },
  });
  if (backfill.status !== 'succeeded') throw new RunError(`demo backfill ended ${backfill.status}: ${backfill.error}`);
  const pulled = Object.entries(backfill.entities).map(([entity, o]) => ({ entity, records: o!.fetched }));
  process.stdout.write(await formatRows(pulled, 'table'));
}

/** Every account backfilled at once, each through its own client; a table of what each holds. */
async function backfillAccountsStep(app: App): Promise<void> {
  heading('1. Backfill: every account of the sandbox into one mirror, several at once');
  const accounts = await app.database.db.selectFrom('accounts').selectAll().orderBy('id').execute();
  const atOnce = accountsAtOnce(app.config, 'sync', accounts.length);
  const results = await forEachAccount(accounts, atOnce, async (account) => {
    const { client } = openSession(app, account);
    try {
      return await pullAccount(app, { account, client, atOnce, options: { kind: 'backfill' } });
    } finally {
      await client.close();
    }
  });
  const rows = results.map((result, i) => {
    const name = accounts[i]!.name;
    if (result.status === 'rejected' || result.value.status !== 'succeeded')
      throw new RunError(`demo backfill of ${name} did not succeed`);
    const records = Object.values(result.value.entities).reduce((sum, o) => sum + o!.fetched, 0);
    return { account: name, records, requests: result.value.requestsMade };
  });
  process.stdout.write(await formatRows(rows, 'table'));
}

/** Queues and runs the demo's jobs (for account `default`); returns how many failed. */
async function jobsStep(app: App, account: Account, client: InvoicingClient, config: Config): Promise<number> {
  heading('2. Jobs: send two saved invoices, approve a sent quotation, set a stock level');
  const { db } = app.database;
  const invoices = await rowsOf<{ id: number }>(
    db,
    sql`select id from saved_invoices where account_id = ${account.id} and deleted_at is null order by id limit 2`,
  );
  const [quotation] = await rowsOf<{ id: number }>(
    db,
    sql`
    select id from quotations where account_id = ${account.id} and deleted_at is null and sent and approved is null and coalesce(customstatus, '') <> 'declined' order by id limit 1`,
  );
  const [product] = await rowsOf<{ id: number }>(
    db,
    sql`select id from products where account_id = ${account.id} and deleted_at is null and stock_use order by id limit 1`,
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
  await addJob(db, account.id, {
    kind: 'send_saved_invoices',
    payload: { ids: invoices.map((i) => i.id), delete: true },
  });
  await addJob(db, account.id, { kind: 'approve_quotation', payload: approval });
  await addJob(db, account.id, { kind: 'set_product_stock', payload: { id: product.id, stock: 42 } });
  const runner = new JobRunner({ database: app.database, account, client, config, logger });
  const ran = await runner.runUntilEmpty();
  const jobs = await rowsOf<Record<string, unknown>>(
    db,
    sql`select id, kind, status, attempts, last_error from jobs order by id`,
  );
  process.stdout.write(await formatRows(jobs, 'table'));
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
  process.stdout.write(await formatRows(changes, 'table'));
}

async function reportStep(db: Db, acrossAccounts: boolean): Promise<void> {
  heading(
    acrossAccounts
      ? '4. A report across the accounts: revenue per account and month'
      : '4. A report: the quotation pipeline',
  );
  const report = findReport(acrossAccounts ? 'revenue_per_account_month' : 'quotation_pipeline')!;
  const result = await runReport(db, DEMO_SCHEMA, report);
  process.stdout.write(await formatRows(result.rows, 'table', result.columns));
}
