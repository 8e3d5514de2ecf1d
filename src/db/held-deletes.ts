/**
 * `held_deletes` read back: the deletes the safeguard holds (src/sync/safeguard.ts writes them),
 * and the advice that releases them, phrased here once for the sync's problem line, its log,
 * `status`, the console and `/healthz`.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What held deletes are, for a person reading `status` or the console. */
export const HELD_DELETES_EXPLAINED =
  'records missing from the service, not marked deleted because too many went at once. ' +
  'They wait for a person to release them (or for HELD_DELETES_CONFIRM_HOURS of complete pulls, when set); a record back in the list drops out.';

/** How to release an entity's held deletes when the records really were deleted. */
export function heldDeletesAdvice(entity: string): string {
  return `run invoice-mirror sync --allow-deletes ${entity} if they are real`;
}

/** One line for a count of held deletes (a sync's problem line). */
export function heldDeletesLine(held: number, entity: string): string {
  return `${held} deletes held (${heldDeletesAdvice(entity)})`;
}

/** Held deletes per entity. */
export async function heldDeletes(db: Kysely<Database>): Promise<{ entity: string; held: number; since: Date }[]> {
  const rows = await db
    .selectFrom('held_deletes')
    .select(['entity', sql<number>`count(*)::int`.as('held'), sql<Date>`min(held_at)`.as('since')])
    .groupBy('entity')
    .orderBy('entity')
    .execute();
  return rows.map((r) => ({ entity: r.entity, held: Number(r.held), since: new Date(r.since) }));
}

/** The keys of one entity's held deletes. */
export async function heldDeleteKeys(db: Kysely<Database>, entity: string): Promise<Set<number>> {
  const rows = await db.selectFrom('held_deletes').select('entity_id').where('entity', '=', entity).execute();
  return new Set(rows.map((r) => Number(r.entity_id)));
}
