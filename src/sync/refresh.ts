/**
 * A targeted refresh: re-reads a few records by id after a job touched them, and writes them
 * through the same page writer as a pull (the same merge with `changes` rows, the same deadlock
 * retry, a record Postgres refuses isolated and reported), recorded as a `refresh` run. A record
 * the service no longer has is marked deleted. No delete sweep, no lock: it touches only the
 * records it names.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { InvoicingClient } from '../api/index.js';
import { NotFoundError } from '../api/index.js';
import { finishRun, startRun, type Database } from '../db/index.js';
import { errorMessage } from '../errors.js';
import { logger as defaultLogger } from '../log.js';
import type { SingleReadEntity } from '../catalog/index.js';
import { definitionOf, identify, recordKey, type ReadEntityRecord } from './entities.js';
import { entityTable } from './entity-table.js';
import { PageWriter, refusedIssue, type RefusedRecord } from './page-writer.js';
import { stagePage } from './staging.js';

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

interface RefreshDeps {
  db: Kysely<Database>;
  /** The account of the records (and of the client). */
  accountId: number;
  client: InvoicingClient;
  logger?: Logger;
}

/** What a refresh records per entity in `sync_runs.counts`. */
interface RefreshCounts {
  fetched: number;
  inserted: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

export async function refreshRecords(deps: RefreshDeps, targets: RefreshTarget[]): Promise<RefreshOutcome> {
  const idsByEntity = new Map<SingleReadEntity, Set<number>>();
  for (const { entity, id } of targets) idsByEntity.set(entity, (idsByEntity.get(entity) ?? new Set()).add(id));
  const runId = await startRun(deps.db, deps.accountId, 'refresh', [...idsByEntity.keys()]);
  const requestsAtStart = deps.client.requestsMade;
  const refresh = new EntityRefresh(deps, runId);
  const counts: Record<string, RefreshCounts> = {};
  for (const [entity, ids] of idsByEntity) counts[entity] = await refresh.entity(entity, [...ids]);

  const errors = refresh.errors;
  const outcome: RefreshOutcome = {
    runId,
    status: errors.length === 0 ? 'succeeded' : 'partial',
    inserted: 0,
    updated: 0,
    deleted: 0,
    unchanged: 0,
    errors,
  };
  for (const c of Object.values(counts)) {
    outcome.inserted += c.inserted;
    outcome.updated += c.updated;
    outcome.deleted += c.deleted;
    outcome.unchanged += c.unchanged;
  }
  await finishRun(deps.db, runId, {
    status: outcome.status,
    error: errors.length > 0 ? errors.join('; ') : null,
    counts,
    requestsMade: deps.client.requestsMade - requestsAtStart,
    rateLimitRemaining: deps.client.rateLimitRemaining,
  });
  return outcome;
}

/** The refresh of each entity's records: read one by one, then written as one page. */
class EntityRefresh {
  /** One per record not refreshed, `entity id: why`. */
  readonly errors: string[] = [];
  private readonly log: Logger;

  constructor(
    private readonly deps: RefreshDeps,
    private readonly runId: number,
  ) {
    this.log = deps.logger ?? defaultLogger;
  }

  async entity(entity: SingleReadEntity, ids: readonly number[]): Promise<RefreshCounts> {
    const definition = definitionOf(entity);
    const table = entityTable({ account: { id: this.deps.accountId }, db: this.deps.db }, definition);
    const counts: RefreshCounts = { fetched: 0, inserted: 0, updated: 0, deleted: 0, unchanged: 0 };
    const reads: ReadEntityRecord[] = [];
    for (const id of ids) {
      try {
        const read = await this.deps.client.read(entity, id);
        counts.fetched++;
        await table.replaceRecordIssues(String(id), this.runId, read.issues);
        reads.push(read);
      } catch (error) {
        if (!(error instanceof NotFoundError)) this.failed(entity, id, error);
        else if (await table.markDeleted(id, this.runId)) counts.deleted++;
      }
    }
    if (reads.length === 0) return counts;
    const refused: RefusedRecord[] = [];
    const writer = new PageWriter(table, this.runId, 'merge', 1, (r) => refused.push(r));
    try {
      await writer.write(
        stagePage(
          definition,
          reads,
          reads.map((read) => identify(definition, read)),
          null,
        ),
      );
      await writer.finish();
    } catch (error) {
      for (const read of reads) this.failed(entity, recordKey(definition, read), error);
    }
    await table.recordIssues(
      this.runId,
      refused.map((r) => refusedIssue(definition, r)),
    );
    for (const r of refused) this.failed(entity, r.key, r.error);
    const { inserted, updated, unchanged } = writer.counts;
    return { ...counts, inserted, updated, unchanged };
  }

  private failed(entity: SingleReadEntity, id: number | string, error: unknown): void {
    this.errors.push(`${entity} ${id}: ${errorMessage(error)}`);
    this.log.warn(
      { entity, id: Number(id), error: errorMessage(error) },
      'refresh of a record failed; the next sync will catch up',
    );
  }
}
