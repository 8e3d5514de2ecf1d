import type { Command } from 'commander';
import { createApiClient, syncDeps } from '../app.js';
import { UsageError } from '../errors.js';
import { formatRows } from '../format.js';
import { logger } from '../log.js';
import { ENTITY_NAMES, runSync, type MirrorTable, type SyncOutcome } from '../sync/index.js';
import { progressReporter } from '../sync/progress.js';
import { withApp } from './context.js';

function entityList(value: string): MirrorTable[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UsageError(`--only: name at least one of ${ENTITY_NAMES.join(', ')}`);
  for (const name of names) {
    if (!ENTITY_NAMES.includes(name as MirrorTable))
      throw new UsageError(`--only: unknown entity '${name}' (known: ${ENTITY_NAMES.join(', ')})`);
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
    unchanged: o!.unchanged,
    complete: o!.complete ? 'yes' : 'no',
  }));
  process.stdout.write(formatRows(rows, 'table'));
  process.stdout.write(
    `run ${outcome.runId}: ${outcome.status}, ${outcome.requestsMade} requests${outcome.error ? ` (${outcome.error})` : ''}\n`,
  );
}

export function registerSyncCommands(program: Command): void {
  program
    .command('backfill')
    .description(
      'pull everything (or the named entities) into the mirror; exit code 0 only when every entity was pulled completely',
    )
    .option('--only <entities>', `comma-separated subset of: ${ENTITY_NAMES.join(', ')}`, entityList)
    .action(
      withApp(async (app, options: { only?: MirrorTable[] }) => {
        const client = createApiClient(app);
        try {
          const outcome = await runSync(syncDeps(app, client), {
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
    .action(
      withApp(async (app) => {
        const client = createApiClient(app);
        try {
          const outcome = await runSync(syncDeps(app, client), { kind: 'sync' });
          printOutcome(outcome);
          return outcome.status === 'succeeded' ? 0 : 1;
        } finally {
          await client.close();
        }
      }),
    );
}
