/**
 * `held_deletes` read back: the deletes the safeguard holds (src/sync/safeguard.ts writes them),
 * and the advice that releases them, phrased here once for the sync's problem line, its log,
 * `status`, the console and `/healthz`.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { inScope, type AccountScope } from './scope.js';

/** What held deletes are, for a person reading `status` or the console. */
export const HELD_DELETES_EXPLAINED =
  'records missing from the service, not marked deleted because too many went at once. ' +
  'They wait for a person to release them (or for HELD_DELETES_CONFIRM_HOURS of complete pulls, when set); a record back in the list drops out.';

/**
 * How to release an entity's held deletes when the records really were deleted. `account` is
 * named when the mirror holds several: without `--account` the sync would release every
 * account's held deletes of the entity.
 */
export function heldDeletesAdvice(entity: string, account: string | null = null): string {
  const which = account === null ? '' : ` --account ${account}`;
  return `run invoice-mirror sync${which} --allow-deletes ${entity} if they are real`;
}

/** The advice heldDeletesAdvice writes into a sync's problem line, for a page that offers buttons instead. */
export const HELD_DELETES_ADVICE_TEXT =
  / \(run invoice-mirror sync(?: --account \S+)? --allow-deletes \S+ if they are real\)/g;

/** One line for a count of held deletes (a sync's problem line). */
export function heldDeletesLine(held: number, entity: string, account: string | null = null): string {
  return `${held} deletes held (${heldDeletesAdvice(entity, account)})`;
}

export interface HeldDeletes {
  accountId: number;
  /** The account's name. */
  account: string;
  entity: string;
  held: number;
  since: Date;
}

/** Held deletes per account and entity, by account name, then entity. */
export async function heldDeletes(db: Kysely<Database>, scope: AccountScope): Promise<HeldDeletes[]> {
  const { rows } = await sql<{ account_id: number; account: string; entity: string; held: number; since: Date }>`
    select h.account_id, a.name as account, h.entity, count(*)::int as held, min(h.held_at) as since
      from held_deletes h join accounts a on a.id = h.account_id
     where ${inScope(scope, 'h.account_id')}
     group by h.account_id, a.name, h.entity order by a.name, h.entity`.execute(db);
  return rows.map((r) => ({
    accountId: Number(r.account_id),
    account: r.account,
    entity: r.entity,
    held: Number(r.held),
    since: new Date(r.since),
  }));
}

/**
 * The keys of one entity's held deletes in the scope: the safeguard reads them for the one
 * account it pulls (a key is unique only within its account).
 */
export async function heldDeleteKeys(db: Kysely<Database>, scope: AccountScope, entity: string): Promise<Set<number>> {
  const { rows } = await sql<{ entity_id: string }>`
    select entity_id from held_deletes where ${inScope(scope)} and entity = ${entity}`.execute(db);
  return new Set(rows.map((r) => Number(r.entity_id)));
}
