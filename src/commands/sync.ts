import type { Command } from 'commander';
import { checkPoolSize, createApiClient, syncDeps } from '../app.js';
import { UsageError } from '../errors.js';
import { formatRows } from '../format.js';
import { logger } from '../log.js';
import { ENTITY_NAMES, runSync, type MirrorTable, type SyncOutcome } from '../sync/index.js';
import { progressReporter } from '../sync/progress.js';
import { withApp } from './context.js';

/** `--allow-deletes`: entity names, or `all`. */
function allowList(value: string): MirrorTable[] | 'all' {
  return value.trim().toLowerCase() === 'all' ? 'all' : entityList(value, '--allow-deletes');
}

function entityList(value: string, option = '--only'): MirrorTable[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UsageError(`${option}: name at least one of ${ENTITY_NAMES.join(', ')}`);
  for (const name of names) {
    if (!ENTITY_NAMES.includes(name as MirrorTable))
      throw new UsageError(`${option}: unknown entity '${name}' (known: ${ENTITY_NAMES.join(', ')})`);
  }
  return names as MirrorTable[];
}

function printOutcome(outcome: SyncOutcome): void {
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
  process.stdout.write(formatRows(rows, 'table'));
  process.stdout.write(
    `run ${outcome.runId}: ${outcome.status}, ${outcome.requestsMade} requests${outcome.error ? ` (${outcome.error})` : ''}\n`,
  );
}

const ALLOW_HELP =
  'apply deletes the safeguard would hold for these entities (comma-separated, or all): when many records really were deleted upstream';

export function registerSyncCommands(program: Command): void {
  program
    .command('backfill')
    .description(
      'pull everything (or the named entities) into the mirror; exit code 0 only when every entity was pulled completely',
    )
    .option('--only <entities>', `comma-separated subset of: ${ENTITY_NAMES.join(', ')}`, (v) => entityList(v))
    .option('--allow-deletes <entities>', ALLOW_HELP, allowList)
    .action(
      withApp(async (app, options: { only?: MirrorTable[]; allowDeletes?: MirrorTable[] | 'all' }) => {
        checkPoolSize(app.config, 'sync');
        const client = createApiClient(app);
        try {
          const outcome = await runSync(syncDeps(app, client, options.allowDeletes), {
            kind: 'backfill',
            entities: options.only,
            onProgress: progressReporter(process.stderr, logger),
          });
          printOutcome(outcome);
          return outcome.status === 'succeeded' ? 0 : 1;
        } finally {
          await client.close();
        }
      }),
    );

  program
    .command('sync')
    .description('one scheduled-style pass of every entity, then exit')
    .option('--allow-deletes <entities>', ALLOW_HELP, allowList)
    .action(
      withApp(async (app, options: { allowDeletes?: MirrorTable[] | 'all' }) => {
        checkPoolSize(app.config, 'sync');
        const client = createApiClient(app);
        try {
          const outcome = await runSync(syncDeps(app, client, options.allowDeletes), { kind: 'sync' });
          printOutcome(outcome);
          return outcome.status === 'succeeded' ? 0 : 1;
        } finally {
          await client.close();
        }
      }),
    );
}
