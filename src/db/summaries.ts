/**
 * What `status`, the console, `/healthz` and `/metrics` read from the bookkeeping tables besides the runs
 * (runs.ts): the queue by status and the held deletes. Apart from the job kinds and the sync
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

/** Held deletes per entity, for `status` and health. */
export async function heldDeletes(db: Kysely<Database>): Promise<{ entity: string; held: number; since: Date }[]> {
  const rows = await db
    .selectFrom('held_deletes')
    .select(['entity', sql<number>`count(*)::int`.as('held'), sql<Date>`min(held_at)`.as('since')])
    .groupBy('entity')
    .orderBy('entity')
    .execute();
  return rows.map((r) => ({ entity: r.entity, held: Number(r.held), since: new Date(r.since) }));
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
