/**
 * Jobs left `running` by a worker that died, found without waiting for a runner of their account
 * to claim (a dead daemon's send, when nothing else of its account is queued, used to stay
 * `running` for good). A runner holds its account's job lock for the whole of a job, on a session
 * of its own; a worker that died lost its session and with it the lock, and one the fleet found
 * dead had its sessions ended. So an account whose job lock can be taken has no live worker in a
 * job, and its `running` jobs are orphans: recovered by recoverOrphans's rules (idempotent kinds
 * queued again, the others `interrupted` for a person). An account whose lock is held is left
 * alone: its worker is alive.
 */
import { sql } from 'kysely';
import { releaseLease, takeLease, type DatabaseHandle } from '../db/index.js';
import { recoverOrphans, type RecoveredJob } from './queue.js';

export interface RecoveredOrphan extends RecoveredJob {
  /** The name of the job's account. */
  account: string;
}

/** Recovers the orphaned jobs of every account whose job lock is free; returns what it did. */
export async function recoverOrphansWithoutRunner(database: DatabaseHandle): Promise<RecoveredOrphan[]> {
  // One index probe per account (jobs_status leads with account_id); a removed account is read-only.
  const { rows } = await sql<{ id: number; name: string }>`
    select a.id, a.name from accounts a
     where a.state <> 'removed'
       and exists (select from jobs j where j.account_id = a.id and j.status = 'running')
     order by a.id`.execute(database.db);
  const recovered: RecoveredOrphan[] = [];
  for (const account of rows)
    for (const job of await recoverIfFree(database, Number(account.id)))
      recovered.push({ ...job, account: account.name });
  return recovered;
}

/** The account's orphans, recovered under its job lock if no one holds it (nothing if someone does). */
async function recoverIfFree(database: DatabaseHandle, accountId: number): Promise<RecoveredJob[]> {
  return database.db.connection().execute(async (conn) => {
    if (!(await takeLease(conn, accountId, 'jobs'))) return [];
    try {
      return await recoverOrphans(conn, accountId);
    } finally {
      await releaseLease(conn, accountId, 'jobs');
    }
  });
}
