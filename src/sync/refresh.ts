/**
 * A targeted refresh: re-reads a few records by id after a job touched them, and updates the
 * mirror through the same merge as a full pull (with `changes` rows), recorded as a `refresh`
 * run. A record the service no longer has is marked deleted. No delete sweep, no lock: it
 * touches only the records it names.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { InvoicingClient } from '../api/index.js';
import { NotFoundError } from '../api/index.js';
import { finishRun, startRun, type Database } from '../db/index.js';
import { errorMessage } from '../errors.js';
import { logger as defaultLogger } from '../log.js';
import type { SingleReadEntity } from '../catalog/index.js';
import { definitionOf, toStagedRow, type ReadEntityRecord } from './entities.js';
import { replaceRecordIssues } from './rejected.js';
import { markDeleted, mergePage } from './merge.js';

export interface RefreshTarget {
  entity: SingleReadEntity;
  id: number;
}

export interface RefreshOutcome {
  runId: number;
  status: 'succeeded' | 'partial';
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
  errors: string[];
}

export async function refreshRecords(
  deps: { db: Kysely<Database>; client: InvoicingClient; logger?: Logger },
  targets: RefreshTarget[],
): Promise<RefreshOutcome> {
  const log = deps.logger ?? defaultLogger;
  const entities = [...new Set(targets.map((t) => t.entity))];
  const runId = await startRun(deps.db, 'refresh', entities);
  const requestsAtStart = deps.client.requestsMade;
  const outcome: RefreshOutcome = {
    runId,
    status: 'succeeded',
    inserted: 0,
    updated: 0,
    deleted: 0,
    unchanged: 0,
    errors: [],
  };
  const counts: Record<
    string,
    { fetched: number; inserted: number; updated: number; deleted: number; unchanged: number }
  > = {};

  for (const target of targets) {
    const definition = definitionOf(target.entity);
    const count = (counts[target.entity] ??= { fetched: 0, inserted: 0, updated: 0, deleted: 0, unchanged: 0 });
    try {
      const read = await deps.client.read(target.entity, target.id);
      count.fetched++;
      await replaceRecordIssues(deps.db, target.entity, String(target.id), runId, read.issues);
      const merged = await deps.db
        .transaction()
        .execute((trx) =>
          mergePage(trx, definition, [toStagedRow(definition, read as unknown as ReadEntityRecord)], runId),
        );
      count.inserted += merged.inserted;
      count.updated += merged.updated + merged.restored;
      count.unchanged += merged.unchanged;
    } catch (error) {
      if (error instanceof NotFoundError) {
        if (await markDeleted(deps.db, definition, target.id, runId)) count.deleted++;
        continue;
      }
      outcome.errors.push(`${target.entity} ${target.id}: ${errorMessage(error)}`);
      log.warn(
        { entity: target.entity, id: target.id, error: errorMessage(error) },
        'refresh of a record failed; the next sync will catch up',
      );
    }
  }

  for (const c of Object.values(counts)) {
    outcome.inserted += c.inserted;
    outcome.updated += c.updated;
    outcome.deleted += c.deleted;
    outcome.unchanged += c.unchanged;
  }
  outcome.status = outcome.errors.length === 0 ? 'succeeded' : 'partial';
  await finishRun(deps.db, runId, {
    status: outcome.status,
    error: outcome.errors.length > 0 ? outcome.errors.join('; ') : null,
    counts,
    requestsMade: deps.client.requestsMade - requestsAtStart,
    rateLimitRemaining: deps.client.rateLimitRemaining,
  });
  return outcome;
}
