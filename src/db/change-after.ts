/**
 * A fill's change rows read back whole. A pull that fills an empty table (`insert` mode, see
 * src/sync/merge.ts) writes each record once, into its mirror row, and its `changes` row of op
 * `insert` without `after`. The record as inserted is still exact, from two places:
 *
 * - the `before` of the record's next change row: every later change of a mirror row's `raw` (an
 *   update, a delete, a restore) writes one, with the whole record as it was; a rewrite of the
 *   same record as other text (`raw_hash` only) changes nothing and writes none;
 * - while there is none, the mirror row itself, whose `raw` is still the one inserted.
 *
 * `change_after(c)` (or `change_after(account_id, entity, entity_id, op, id, after)`) gives a
 * change row's `after` that way: the column itself for every other row. The events trigger reads
 * the mirror row (`mirror_raw`): the row its statement wrote, which nothing can have changed yet.
 * Applied with the events trigger (src/db/repeatable.ts), made from the catalogue's entities.
 */
import { ENTITIES } from '../catalog/index.js';
import { quoteLiteral, quoteName } from './quote.js';

/** `raw` of one mirror row by account, table and key as text (null when there is none). */
function mirrorRaw(): string {
  // Keys are integers: compared as bigint (still an index condition), so no text can overflow them.
  const arms = ENTITIES.map(
    (entity) => `when ${quoteLiteral(entity.name)} then (select t.raw from ${quoteName(entity.name)} t
        where t.account_id = mirror_raw.account and t.${quoteName(entity.key)} = mirror_raw.entity_id::bigint)`,
  );
  return `
  create or replace function mirror_raw(account integer, entity text, entity_id text) returns jsonb
    language sql stable as $$
    select case when entity_id ~ '^-?[0-9]{1,18}$' then case entity
      ${arms.join('\n      ')}
    end end
  $$`;
}

const CHANGE_AFTER = `
  create or replace function change_after(account integer, entity text, entity_id text, op text, change_id bigint, after jsonb)
    returns jsonb language sql stable as $$
    select case when after is not null or op <> 'insert' then after else coalesce(
      (select n.before from changes n
        where n.entity = change_after.entity and n.entity_id = change_after.entity_id
          and n.account_id = change_after.account and n.id > change_after.change_id
        order by n.id limit 1),
      mirror_raw(account, entity, entity_id)) end
  $$`;

// Of any row (a `changes` row in practice), so that it depends on no table's row type: the
// partitioning script (scripts/partition-by-account.mjs) drops and makes `changes` again.
const CHANGE_AFTER_ROW = `
  create or replace function change_after(c anyelement) returns jsonb language sql stable as $$
    select change_after((c).account_id, (c).entity, (c).entity_id, (c).op, (c).id, (c).after)
  $$`;

/** The functions, in order (each uses the ones before it). */
export const CHANGE_AFTER_STATEMENTS: readonly string[] = [
  mirrorRaw(),
  `comment on function mirror_raw(integer, text, text) is 'The raw record of a mirror row, by account, table and key as text'`,
  CHANGE_AFTER,
  `comment on function change_after(integer, text, text, text, bigint, jsonb) is 'A change''s after: the column, or for a fill''s insert (after empty) the record as inserted: the before of its next change, else its mirror row'`,
  CHANGE_AFTER_ROW,
  `comment on function change_after(anyelement) is 'A change''s after (c: a row of changes), whole also for a fill''s insert (see change_after(account, entity, entity_id, op, change_id, after))'`,
];
