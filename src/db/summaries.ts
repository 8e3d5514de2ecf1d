/**
 * Counts and lists for `status`, the console, `/healthz` and `/metrics`: the queue by status, the
 * jobs that touched a record, the rows of each mirror table. Apart from the job kinds and the sync
 * engine so that commands that only read load neither.
 */
import { sql, type Kysely } from 'kysely';
import { ENTITY_NAMES } from '../catalog/index.js';
import type { Database, JobStatus } from './schema.js';

/** Jobs per status (statuses without jobs left out). */
export async function countJobsByStatus(db: Kysely<Database>): Promise<Partial<Record<JobStatus, number>>> {
  const rows = await db
    .selectFrom('jobs')
    .select(['status', sql<number>`count(*)::int`.as('n')])
    .groupBy('status')
    .orderBy('status')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
}

/** Live and deleted rows of every mirror table, in pull order. */
export async function mirrorCounts(db: Kysely<Database>): Promise<{ table: string; live: number; deleted: number }[]> {
  return Promise.all(
    ENTITY_NAMES.map(async (table) => {
      const { rows } = await sql<{ live: number; deleted: number }>`
        select count(*) filter (where deleted_at is null)::int as live, count(deleted_at)::int as deleted
          from ${sql.table(table)}`.execute(db);
      return { table, live: Number(rows[0]!.live), deleted: Number(rows[0]!.deleted) };
    }),
  );
}

/** The newest jobs of these kinds whose payload names the record (`id`, `clientnr` or among `ids`). */
export async function jobsTouchingRecord(
  db: Kysely<Database>,
  kinds: readonly string[],
  id: number,
): Promise<{ id: string; kind: string; status: JobStatus; created_at: Date; last_error: string | null }[]> {
  if (kinds.length === 0) return [];
  const idText = String(id);
  const { rows } = await sql<{
    id: string;
    kind: string;
    status: JobStatus;
    created_at: Date;
    last_error: string | null;
  }>`
    select id, kind, status, created_at, last_error from jobs
     where kind in (${sql.join(kinds)})
       and (payload ->> 'id' = ${idText} or payload ->> 'clientnr' = ${idText} or payload -> 'ids' @> ${JSON.stringify([id])}::jsonb)
     order by id desc limit 50`.execute(db);
  return rows;
}
