/**
 * The delete safeguard, like rsync's and rclone's `--max-delete`: a complete pull marks the
 * records it did not see deleted, unless that would be too many at once: more than
 * `maxPercent` % of the entity's live rows and more than `maxRows` rows, or every row. A service
 * that answers one empty list, or a cut-short list, looks exactly like that, and reports would be
 * wrong until the next pull restored everything. Such deletes are held (`held_deletes`) and the
 * pull ends incomplete. They wait for a person: released by `sync --allow-deletes ENTITY` (or
 * ALLOW_DELETES) or the console's Release; or, when HELD_DELETES_CONFIRM_HOURS is set, confirmed by
 * a complete pull that still finds the records missing that many hours after they were first held.
 * A record back in the list drops out of the hold.
 */
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DeletePolicy } from '../config.js';
import { heldDeleteKeys, heldDeletesAdvice, oneAccount, type Database } from '../db/index.js';
import { SETTINGS } from '../settings.js';
import type { EntityName } from '../catalog/index.js';
import { definitionOf, type EntityDefinition } from './entities.js';
import { findMissing, intArray, markKeysDeleted } from './merge.js';

export type { DeletePolicy };

/** The safeguard's defaults (DELETE_GUARD_PERCENT, DELETE_GUARD_ROWS). */
export const DEFAULT_DELETE_POLICY: DeletePolicy = {
  maxPercent: SETTINGS.deletes.maxPercent.default,
  maxRows: SETTINGS.deletes.maxRows.default,
  allow: [],
  confirmHours: SETTINGS.deletes.confirmHours.default,
};

export interface SweepOutcome {
  /** Rows marked deleted. */
  deleted: number;
  /** Rows found missing whose delete is held for confirmation. */
  held: number;
  /** Live rows before the sweep. */
  live: number;
}

/** Whether deleting `missing` of `live` rows at once is too many (see the module comment). */
export function tooManyDeletes(missing: number, live: number, policy: DeletePolicy): boolean {
  if (missing === 0) return false;
  if (missing >= live) return true;
  return missing > live * (policy.maxPercent / 100) && missing > policy.maxRows;
}

export function allowsDeletes(policy: DeletePolicy, entity: string): boolean {
  return policy.allow === 'all' || policy.allow.includes(entity);
}

/** After a complete pull: marks the unseen rows deleted, or holds them (see the module comment). */
export async function sweepWithSafeguard(
  db: Kysely<Database>,
  accountId: number,
  definition: EntityDefinition,
  seenKeys: ReadonlySet<number>,
  pullStartedAt: Date,
  runId: number,
  policy: DeletePolicy,
  log: Logger,
): Promise<SweepOutcome> {
  const entity = definition.name;
  const { missing, live } = await findMissing(db, accountId, definition, seenKeys, pullStartedAt);
  const heldBefore = await heldDeleteKeys(db, oneAccount(accountId), entity);
  let toDelete = missing;
  let toHold: number[] = [];
  if (!allowsDeletes(policy, entity) && tooManyDeletes(missing.length, live, policy)) {
    // Held until a person releases them; or, when the setting asks, until complete pulls have
    // found them missing for that many hours.
    const confirmed =
      policy.confirmHours > 0 ? await heldLongerThan(db, accountId, entity, policy.confirmHours) : new Set();
    toDelete = missing.filter((key) => confirmed.has(key));
    toHold = missing.filter((key) => !confirmed.has(key));
  }
  const deleted = await markKeysDeleted(db, accountId, definition, toDelete, runId);
  // Nothing was held and nothing is: no hold to update (only a sweep adds one, under the run's lock).
  if (heldBefore.size > 0 || toHold.length > 0)
    await db.transaction().execute(async (trx) => {
      // Those still held keep the time they were first held; the rest leave the hold.
      await trx
        .deleteFrom('held_deletes')
        .where('account_id', '=', accountId)
        .where('entity', '=', entity)
        .where(sql<boolean>`not (entity_id::int = any(${intArray(toHold)}))`)
        .execute();
      const added = toHold.filter((key) => !heldBefore.has(key));
      if (added.length > 0) {
        await trx
          .insertInto('held_deletes')
          .columns(['account_id', 'entity', 'entity_id', 'run_id'])
          .expression(
            sql`select ${accountId}::int, ${entity}, key::text, ${runId}::bigint from unnest(${intArray(added)}) as held(key)`,
          )
          .execute();
      }
    });
  if (toHold.length > 0) {
    log.warn(
      { entity, held: toHold.length, live, runId },
      `${entity}: ${toHold.length} of ${live} records are missing from the service's list; not marked deleted (too many at once). ` +
        `They wait for a person: ${heldDeletesAdvice(entity)}`,
    );
  } else if (heldBefore.size > 0 && deleted < heldBefore.size) {
    log.info(
      { entity, released: heldBefore.size - deleted },
      `${entity}: records held for deletion are back in the list; nothing deleted`,
    );
  }
  return { deleted, held: toHold.length, live };
}

/**
 * A person's word that an entity's held deletes are real (the console's "Release", what
 * `sync --allow-deletes ENTITY` does in a pull): marks the held records deleted, each with a
 * `changes` row, and clears the hold. Returns how many were marked deleted.
 */
export async function releaseHeldDeletes(db: Kysely<Database>, accountId: number, entity: EntityName): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const keys = [...(await heldDeleteKeys(trx, oneAccount(accountId), entity))];
    const deleted = await markKeysDeleted(trx, accountId, definitionOf(entity), keys, null);
    await trx.deleteFrom('held_deletes').where('account_id', '=', accountId).where('entity', '=', entity).execute();
    return deleted;
  });
}

/**
 * A person's word to keep an entity's deletes held (the console's "Keep holding"): the records
 * stay live, and the hold starts again now, so complete pulls confirm it only after another
 * HELD_DELETES_CONFIRM_HOURS (when set). Returns how many are held.
 */
export async function keepHoldingDeletes(db: Kysely<Database>, accountId: number, entity: EntityName): Promise<number> {
  const rows = await db
    .updateTable('held_deletes')
    .set({ held_at: sql`now()` })
    .where('account_id', '=', accountId)
    .where('entity', '=', entity)
    .returning('entity_id')
    .execute();
  return rows.length;
}

/** The keys of an entity's held deletes first held at least `hours` ago (by the database's clock). */
async function heldLongerThan(
  db: Kysely<Database>,
  accountId: number,
  entity: string,
  hours: number,
): Promise<Set<number>> {
  const rows = await db
    .selectFrom('held_deletes')
    .select('entity_id')
    .where('account_id', '=', accountId)
    .where('entity', '=', entity)
    .where('held_at', '<=', sql<Date>`now() - make_interval(hours => ${hours})`)
    .execute();
  return new Set(rows.map((r) => Number(r.entity_id)));
}
