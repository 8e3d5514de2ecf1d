/**
 * What keeps the mirror from losing records to a faulty answer of the service:
 * - `rejected_values`: every value the mirror stores other than as it came (stored as NULL,
 *   repaired, or its record skipped), with the entity, id and field, until the record is stored
 *   whole again;
 * - `held_deletes`: records a complete pull found missing upstream, not yet marked deleted because
 *   too many went missing at once (the delete safeguard);
 * - `list_caps`: the most records a list answers per request, where the service was found to cap
 *   `count`.
 * A literal snapshot: it names tables and columns as they are at this migration.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table rejected_values (
      entity        text not null,
      entity_id     text not null,
      field         text not null,
      action        text not null check (action in ('rejected', 'repaired', 'skipped')),
      value         text not null,
      reason        text not null,
      first_run_id  bigint references sync_runs (id) on delete set null,
      last_run_id   bigint references sync_runs (id) on delete set null,
      first_seen_at timestamptz not null default now(),
      last_seen_at  timestamptz not null default now(),
      primary key (entity, entity_id, field)
    )`.execute(db);
  await sql`
    create table held_deletes (
      entity     text not null,
      entity_id  text not null,
      run_id     bigint references sync_runs (id) on delete set null,
      held_at    timestamptz not null default now(),
      primary key (entity, entity_id)
    )`.execute(db);
  await sql`
    create table list_caps (
      list       text primary key,
      max_count  integer not null check (max_count > 0),
      learned_at timestamptz not null default now(),
      run_id     bigint references sync_runs (id) on delete set null
    )`.execute(db);
  await sql`comment on table rejected_values is 'Values the mirror stores other than as the service sent them, until the record is stored whole again'`.execute(
    db,
  );
  await sql`comment on table held_deletes is 'Records a pull found missing upstream but did not mark deleted: too many at once (the delete safeguard)'`.execute(
    db,
  );
  await sql`comment on table list_caps is 'The most records a list of the service answers per request, where it caps count'`.execute(
    db,
  );
}
