import type { Command } from 'commander';
import { accountsAtOnce, type App } from '../app.js';
import { forEachAccount, pullAccount } from '../accounts/pull.js';
import { servableAccounts } from '../accounts/serve.js';
import { openSession } from '../accounts/session.js';
import { listAccounts, refusedLine, type Account } from '../accounts/store.js';
import { heldDeletesLine } from '../db/index.js';
import { UsageError, errorMessage } from '../errors.js';
import { formatRows, plural } from '../format.js';
import { logger } from '../log.js';
import { ENTITY_NAMES, isEntityName, type EntityName } from '../catalog/index.js';
import { progressReporter, type SyncOutcome } from '../sync/index.js';
import { collect, onStopSignals, withApp } from './context.js';

/** `--allow-deletes`: entity names, or `all`. */
function allowList(value: string): EntityName[] | 'all' {
  return value.trim().toLowerCase() === 'all' ? 'all' : entityList(value, '--allow-deletes');
}

function entityList(value: string, option = '--only'): EntityName[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UsageError(`${option}: name at least one of ${ENTITY_NAMES.join(', ')}`);
  for (const name of names) {
    if (!isEntityName(name))
      throw new UsageError(`${option}: unknown entity '${name}' (known: ${ENTITY_NAMES.join(', ')})`);
  }
  return names as EntityName[];
}

/**
 * The run's error as this command prints it: where the mirror holds several accounts, the hint
 * that releases held deletes names the account (without `--account` it would release every
 * account's held deletes of the entity).
 */
function errorFor(outcome: SyncOutcome, account: string | null): string | null {
  if (!outcome.error || account === null) return outcome.error ?? null;
  let error = outcome.error;
  for (const [entity, o] of Object.entries(outcome.entities))
    if (o && o.held > 0)
      error = error.replace(heldDeletesLine(o.held, entity), heldDeletesLine(o.held, entity, account));
  return error;
}

async function printOutcome(outcome: SyncOutcome, apiUrl: string, account: string | null): Promise<void> {
  const rows = Object.entries(outcome.entities).map(([entity, o]) => ({
    entity,
    fetched: o!.fetched,
    inserted: o!.inserted,
    updated: o!.updated,
    deleted: o!.deleted,
    held: o!.held,
    rejected: o!.rejected,
    unchanged: o!.unchanged,
    complete: o!.complete ? 'yes' : 'no',
  }));
  process.stdout.write(await formatRows(rows, 'table'));
  const error = errorFor(outcome, account);
  process.stdout.write(
    `run ${outcome.runId}: ${outcome.status}, ${plural(outcome.requestsMade, 'request')}${error ? ` (${error})` : ''}\n`,
  );
  const entities = Object.values(outcome.entities);
  // A list never answers 404 at the right address: every list answering it means a wrong URL.
  if (entities.length > 1 && entities.every((o) => /\b404\b/.test(o?.error ?? '')))
    process.stdout.write(
      `every list answered 404 Not found: check INVOICING_API_URL (the service's API, ending in /api/v1; now ${apiUrl})\n`,
    );
}

const ALLOW_HELP =
  'apply deletes the safeguard would hold for these entities (comma-separated, or all): when many records really were deleted upstream';

/**
 * One pull of each account (those named, or every active one), as a command. The first Ctrl-C
 * (or SIGTERM) stops them after the page being written, and marks the runs `interrupted` at once;
 * a second exits at once. Exit code 0 only when every run succeeded; 130 (SIGINT) or 143
 * (SIGTERM) when interrupted.
 */
async function pull(app: App, kind: 'backfill' | 'sync', options: PullFlags): Promise<number> {
  const { servable: accounts, skipped } = await servableAccounts(app, options.account);
  for (const problem of skipped) process.stderr.write(`invoice-mirror: ${problem.message}; it is not pulled\n`);
  if (accounts.length === 0) {
    process.stderr.write(
      "invoice-mirror: no active account to pull; 'invoice-mirror accounts list' shows why, 'accounts add' adds one\n",
    );
    return 1;
  }
  const stop = new AbortController();
  const clearProgressLine = () => process.stderr.isTTY && process.stderr.write('\r\x1b[2K');
  const removeHandlers = onStopSignals(
    (signal) => {
      clearProgressLine();
      process.stderr.write(
        `invoice-mirror: ${signal}: stopping after the page being written (again to exit at once)\n`,
      );
      // The request in flight finishes (REQUEST_TIMEOUT_MS at most); the run is marked at once.
      stop.abort(signal);
    },
    (signal) => {
      clearProgressLine();
      process.stderr.write(
        `invoice-mirror: ${signal} again: exiting now; the run is marked interrupted and running the command again pulls again, keeping what was written\n`,
      );
      process.exit(EXIT_CODE[signal] ?? 130);
    },
  );
  try {
    const atOnce = accountsAtOnce(app.config, 'sync', accounts.length);
    const mirrorHoldsSeveral = (await listAccounts(app.database.db)).length > 1;
    const results = await forEachAccount(accounts, atOnce, (account) =>
      pullOne(app, account, kind, options, {
        signal: stop.signal,
        atOnce,
        several: accounts.length > 1,
        named: mirrorHoldsSeveral ? account.name : null,
      }),
    );
    const codes = results.map((result, i) => {
      if (result.status === 'fulfilled') return result.value;
      // Once: some messages name the account already (accountProblem's rule).
      const prefix = `account ${accounts[i]!.name}: `;
      const message = errorMessage(result.reason);
      process.stderr.write(`invoice-mirror: ${message.startsWith(prefix) ? '' : prefix}${message}\n`);
      return 1;
    });
    if (stop.signal.aborted) return EXIT_CODE[stop.signal.reason as NodeJS.Signals] ?? 130;
    return skipped.length === 0 && codes.every((code) => code === 0) ? 0 : 1;
  } finally {
    removeHandlers();
  }
}

/** One account's pull, its outcome printed (under the account's name when there are several). */
async function pullOne(
  app: App,
  account: Account,
  kind: 'backfill' | 'sync',
  flags: PullFlags,
  run: { signal: AbortSignal; atOnce: number; several: boolean; named: string | null },
): Promise<number> {
  // The session's client: the account's own, its log lines bound to the account.
  const { client } = openSession(app, account);
  try {
    const outcome = await pullAccount(app, {
      account,
      client,
      allowDeletes: flags.allowDeletes,
      atOnce: run.atOnce,
      options: {
        kind,
        entities: flags.only,
        full: flags.full,
        onProgress: kind === 'backfill' && !run.several ? progressReporter(process.stderr, logger) : undefined,
        signal: run.signal,
      },
    });
    if (run.several) process.stdout.write(`account ${account.name}:\n`);
    await printOutcome(outcome, account.api_url ?? app.config.api.url, run.named);
    if (outcome.refused) process.stdout.write(`account ${account.name}: ${refusedLine(account)}\n`);
    return outcome.status === 'succeeded' ? 0 : 1;
  } finally {
    await client.close();
  }
}

interface PullFlags {
  account: string[];
  only?: EntityName[];
  allowDeletes?: EntityName[] | 'all';
  full?: boolean;
}

const EXIT_CODE: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

export function registerBackfillCommand(command: Command): void {
  command
    .option('--account <name>', 'pull this account only (repeatable; default: every active account)', collect, [])
    .option('--only <entities>', `comma-separated subset of: ${ENTITY_NAMES.join(', ')}`, (v) => entityList(v))
    .option('--allow-deletes <entities>', ALLOW_HELP, allowList)
    .action(
      withApp({ migrate: 'auto', work: 'sync', serves: (options) => options.account }, (app, options: PullFlags) =>
        pull(app, 'backfill', options),
      ),
    );
}

export function registerSyncCommand(command: Command): void {
  command
    .option('--account <name>', 'pull this account only (repeatable; default: every active account)', collect, [])
    .option('--allow-deletes <entities>', ALLOW_HELP, allowList)
    .option('--full', 'pull invoices in full and reconcile deletions now (otherwise every RECONCILE_INTERVAL_HOURS)')
    .action(
      withApp({ migrate: 'auto', work: 'sync', serves: (options) => options.account }, (app, options: PullFlags) =>
        pull(app, 'sync', options),
      ),
    );
}
