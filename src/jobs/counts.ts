/**
 * The queue by status, for `status`, `/healthz` and `/metrics`. Apart from queue.ts so that
 * commands that only read do not load the job kinds and their payload schemas.
 */
import { sql, type Kysely } from 'kysely';
import type { JobStatus } from '../../migrations/0001_core.js';
import type { Database } from '../db/index.js';

export async function countJobsByStatus(db: Kysely<Database>): Promise<Partial<Record<JobStatus, number>>> {
  const rows = await db
    .selectFrom('jobs')
    .select(['status', sql<number>`count(*)::int`.as('n')])
    .groupBy('status')
    .orderBy('status')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
}
