/**
 * `accounts add|import|list|show|pause|resume|remove|rotate-secret`: the accounts of the service
 * this mirror holds. The commands that take a key or a secret check the master secret and their
 * arguments before they read a key or open the database, so a refusal costs nothing and leaves
 * nothing behind; no key is ever printed, and every key read is registered to be scrubbed.
 */
import { resolveAccounts } from '../accounts/resolve.js';
import type { Command } from 'commander';
import { accountDetails, detailsText } from '../accounts/details.js';
import { importAccounts, readAccountsFile } from '../accounts/import-file.js';
import { checkPrivateFile } from '../accounts/private-file.js';
import {
  checkApiUrl,
  checkApiUser,
  checkKeySource,
  readApiKey,
  readNewSecret,
  registerKey,
} from '../accounts/input.js';
import {
  pauseAccount,
  rebindAccount,
  removeAccount,
  resumeAccount,
  saveAccount,
  type SaveResult,
} from '../accounts/manage.js';
import { accountsOverview, overviewDataRows, overviewTableRows } from '../accounts/overview.js';
import { purgeAccount, type PurgePlan } from '../accounts/purge.js';
import { masterSecret } from '../accounts/secret.js';
import { checkAccountName } from '../accounts/store.js';
import { openApp, type App } from '../app.js';
import { rotateSecret } from '../secret-rotation.js';
import type { Config } from '../config.js';
import { UsageError } from '../errors.js';
import { OUTPUT_FORMATS, formatRows, plural, type OutputFormat } from '../format.js';
import { choice, loadSettings, withApp } from './context.js';

export function registerAccountsCommands(accounts: Command): void {
  registerAdd(accounts);
  registerImport(accounts);
  registerList(accounts);
  registerShow(accounts);
  registerStateCommands(accounts);
  registerRemove(accounts);
  registerRebind(accounts);
  registerRotateSecret(accounts);
}

/**
 * Opens the mirror (migrating it, as the commands that write accounts do) for commands that had to
 * check things before: withApp opens it first.
 */
async function usingApp<T>(config: Config, run: (app: App) => Promise<T>): Promise<T> {
  const app = await openApp(config, { migrate: 'auto' });
  try {
    return await run(app);
  } finally {
    await app.close();
  }
}

interface AddOptions {
  apiUser: string;
  apiUrl?: string;
  apiKeyStdin?: boolean;
  apiKeyEnv?: string;
  notes?: string;
}

/** What became of the account's state, when adding did not leave it active. */
function stateNote(name: string, result: SaveResult): string {
  if (result.before === 'removed') return '; it was removed and is served again';
  if (result.before === 'paused' || result.before === 'refused')
    return `; still ${result.before}: 'invoice-mirror accounts resume ${name}' serves it again`;
  return '';
}

/** An account given an address of another service than its rows come from: not served until rebound. */
function movedNote(name: string, bound: string): string {
  return `invoice-mirror: note: account ${name}'s rows and jobs are from the service at ${bound}, and its address is now another: it is not served until 'invoice-mirror accounts rebind ${name}' binds it to the new one (or its old address is given back)`;
}

function registerAdd(accounts: Command): void {
  accounts
    .command('add')
    .description('add an account, or give an existing one new credentials (its rows stay); the key is stored sealed')
    .argument('<name>', 'the name commands and the console use for it (letters, digits, . _ -)')
    .requiredOption('--api-user <user>', 'the user name of the account in the service')
    .option('--api-url <url>', 'its API address, ending in /api/v1 (default: the INVOICING_API_URL setting)')
    .option('--api-key-stdin', 'read the API key from the first line of standard input')
    .option('--api-key-env <var>', 'read the API key from this environment variable')
    .option('--notes <text>', 'a note for people (kept when an update gives none)')
    .addHelpText('after', '\nNeeds ACCOUNTS_SECRET (or ACCOUNTS_SECRET_FILE): the key is sealed under it.')
    .action(async (name: string, options: AddOptions) => {
      const config = loadSettings();
      const secret = masterSecret(config);
      checkAccountName(name);
      const apiUrl = options.apiUrl === undefined ? null : checkApiUrl(options.apiUrl);
      const apiUser = checkApiUser(options.apiUser);
      checkKeySource(options);
      const apiKey = await readApiKey(options);
      registerKey(apiKey, apiUser);
      const input = { name, apiUrl, apiUser, apiKey, notes: options.notes };
      const result = await usingApp(config, (app) =>
        app.database.db.transaction().execute((trx) => saveAccount(trx, input, secret, config.api.url)),
      );
      const where = apiUrl ?? 'INVOICING_API_URL';
      process.stdout.write(
        `${result.outcome} account ${name} (user ${apiUser} at ${where}; key stored sealed)${stateNote(name, result)}\n`,
      );
      if (result.boundElsewhere !== undefined) process.stderr.write(`${movedNote(name, result.boundElsewhere)}\n`);
    });
}

function registerImport(accounts: Command): void {
  accounts
    .command('import')
    .description(
      'add or update the accounts of a CSV file (header name,api_url,api_user,api_key), all or nothing; the file must be readable by its owner only',
    )
    .argument('<file>', 'the CSV file; an empty api_url means the INVOICING_API_URL setting')
    .action(async (file: string) => {
      const config = loadSettings();
      const secret = masterSecret(config);
      checkPrivateFile(file);
      const rows = readAccountsFile(file);
      const counts = await usingApp(config, (app) => importAccounts(app.database.db, rows, secret, config.api.url));
      process.stdout.write(`${counts.added} added, ${counts.updated} updated\n`);
      for (const moved of counts.movedAway) process.stderr.write(`${movedNote(moved.name, moved.bound)}\n`);
    });
}

function registerList(accounts: Command): void {
  accounts
    .command('list')
    .description('one row per account: state, last complete sync and its age, queued jobs, problems')
    .option('--format <format>', OUTPUT_FORMATS.join(', '), choice('--format', OUTPUT_FORMATS), 'table')
    .action(
      withApp({}, async (app, options: { format: OutputFormat }) => {
        const rows = await accountsOverview(app.database.db);
        if (options.format === 'table') {
          process.stdout.write(
            await formatRows(overviewTableRows(rows, app.config.syncInterval / 1000), 'table', TABLE_COLUMNS, [
              'problems',
            ]),
          );
          if (rows.length === 0)
            process.stderr.write(
              "no accounts yet: the first pull adds 'default' (the INVOICING_API_* settings); 'invoice-mirror accounts add' adds others\n",
            );
          return;
        }
        process.stdout.write(await formatRows(overviewDataRows(rows), options.format, DATA_COLUMNS));
      }),
    );
}

const TABLE_COLUMNS = ['name', 'state', 'last_complete_sync', 'age', 'target', 'queue', 'problems'];
const DATA_COLUMNS = [
  'name',
  'state',
  'state_reason',
  'last_complete_sync_at',
  'sync_age_seconds',
  'queued_jobs',
  'running_jobs',
  'failed_jobs',
  'interrupted_jobs',
  'held_deletes',
  'rejected_values',
  'last_pull_status',
  'failing_lists',
  'sync_interval_seconds',
  'parked_until',
  'parked_reason',
  'problems',
];

function registerShow(accounts: Command): void {
  accounts
    .command('show')
    .description('everything about one account but its key: credentials, state, records, jobs, last runs')
    .argument('<name>', 'the account')
    .action(
      withApp({}, async (app, name: string) => {
        const account = await resolveAccounts(app.database.db, name, { one: true, label: 'account' });
        process.stdout.write(await detailsText(await accountDetails(app.database.db, account), app.config));
      }),
    );
}

function registerStateCommands(accounts: Command): void {
  accounts
    .command('pause')
    .description('stop pulling the account and running its jobs until it is resumed')
    .argument('<name>', 'the account')
    .option('--reason <text>', 'why, for whoever reads the state later')
    .action(
      withApp({ migrate: 'auto' }, async (app, name: string, options: { reason?: string }) => {
        const { changed } = await pauseAccount(app.database.db, name, options.reason);
        process.stdout.write(changed ? `account ${name} paused\n` : `account ${name} is paused already\n`);
      }),
    );
  accounts
    .command('resume')
    .description('serve a paused, refused or removed account again')
    .argument('<name>', 'the account')
    .action(
      withApp({ migrate: 'auto' }, async (app, name: string) => {
        const { account, changed } = await resumeAccount(app.database.db, name);
        process.stdout.write(
          changed ? `account ${name} is active again (was ${account.state})\n` : `account ${name} is active already\n`,
        );
      }),
    );
}

function purgeLines(plan: PurgePlan): string {
  const tables = plan.tables.filter((table) => table.rows > 0);
  const total = tables.reduce((sum, table) => sum + table.rows, 0);
  const lines = tables.map((table) => `  ${table.table}: ${plural(table.rows, 'row')}`);
  return `deleting account ${plan.account.name} and its ${plural(total, 'row')}:\n${lines.join('\n')}${lines.length > 0 ? '\n' : ''}`;
}

const removeAction = withApp({ migrate: 'auto' }, async (app, name: string, options: { purge?: boolean }) => {
  if (options.purge) {
    await purgeAccount(app.database.db, name, (plan) => process.stdout.write(purgeLines(plan)));
    process.stdout.write(`account ${name} purged\n`);
    return;
  }
  const { changed } = await removeAccount(app.database.db, name);
  process.stdout.write(
    changed
      ? `account ${name} removed: its rows stay, read-only; 'invoice-mirror accounts resume ${name}' serves it again, 'accounts remove ${name} --purge --yes' deletes them\n`
      : `account ${name} is removed already\n`,
  );
});

function registerRemove(accounts: Command): void {
  accounts
    .command('remove')
    .description('stop serving an account, keeping its rows read-only; --purge --yes deletes them and the account')
    .argument('<name>', 'the account')
    .option('--purge', 'delete every row of the account in every table, then the account (needs --yes)')
    .option('--yes', 'confirm --purge')
    .action(async (name: string, options: { purge?: boolean; yes?: boolean }) => {
      if (options.purge && !options.yes)
        throw new UsageError(`--purge deletes every row of account ${name} for good; add --yes to confirm`);
      await removeAction(name, options);
    });
}

function registerRebind(accounts: Command): void {
  accounts
    .command('rebind')
    .description(
      "bind an account to the service the settings now give it (its api_url, or INVOICING_API_URL), on purpose: its jobs queued for the old service fail unsent, and its next pull replaces its rows with the new service's",
    )
    .argument('<name>', 'the account')
    .action(
      withApp({ migrate: 'auto' }, async (app, name: string) => {
        const before = await resolveAccounts(app.database.db, name, { one: true, label: 'account' });
        const done = await rebindAccount(app.database.db, name, app.config.api.url);
        if (!done.changed) {
          process.stdout.write(`account ${name} is bound to ${done.service} already\n`);
          return;
        }
        const was = before.service_url === null ? 'it was not bound yet' : `was ${before.service_url}`;
        const jobs =
          done.failedJobs > 0 ? `; ${plural(done.failedJobs, 'queued job')} for the old service failed unsent` : '';
        const records =
          done.records > 0 && before.service_url !== null
            ? `; its ${plural(done.records, 'record')} came from the old service: its next pull replaces them with the new one's, recording each difference as a change (many deletes at once are held: see 'sync --allow-deletes')`
            : '';
        process.stdout.write(`account ${name} bound to ${done.service} (${was})${jobs}${records}\n`);
      }),
    );
}

function registerRotateSecret(accounts: Command): void {
  accounts
    .command('rotate-secret')
    .description(
      'seal every stored API key under a new master secret (opened with the current ACCOUNTS_SECRET), in one transaction',
    )
    .option('--new-secret-env <var>', 'the environment variable holding the new secret')
    .option('--new-secret-file <file>', 'a file whose first line is the new secret')
    .action(async (options: { newSecretEnv?: string; newSecretFile?: string }) => {
      const config = loadSettings();
      const oldSecret = masterSecret(config, 'open the stored API keys', 'open');
      const newSecret = readNewSecret(options);
      const count = await usingApp(config, (app) => rotateSecret(app.database.db, oldSecret, newSecret));
      const done =
        count === 0
          ? 'no stored API key to re-seal'
          : `re-sealed ${plural(count, 'API key')} under the new secret; the old one opens none of them any more`;
      process.stdout.write(
        `${done}; set ACCOUNTS_SECRET (or ACCOUNTS_SECRET_FILE) to the new secret now, and restart running daemons with it\n`,
      );
    });
}
