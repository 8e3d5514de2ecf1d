/**
 * Closing rows of `sync_runs` that are still `running`: one run (stopped on purpose, or whose
 * connection was lost), or every run of some kinds left by a process that died (only called under
 * the lock that proves no live process is in such a run).
 */
import type { Kysely } from 'kysely';
import type { SyncRunKind } from '../../migrations/0001_core.js';
import type { Database, SyncRunStatus } from '../db/schema.js';

export async function closeRunIfRunning(
  db: Kysely<Database>,
  runId: number,
  status: SyncRunStatus,
  error: string,
): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({ status, finished_at: new Date(), error })
    .where('id', '=', runId)
    .where('status', '=', 'running')
    .execute();
}

export async function closeOrphanedRuns(
  db: Kysely<Database>,
  kinds: readonly SyncRunKind[],
  error: string,
): Promise<void> {
  await db
    .updateTable('sync_runs')
    .set({ status: 'failed', finished_at: new Date(), error })
    .where('status', '=', 'running')
    .where('kind', 'in', kinds)
    .execute();
}
