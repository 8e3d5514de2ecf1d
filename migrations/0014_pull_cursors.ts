/**
 * Pulls that resume: a full pull of a long list (a first backfill of a large account) is read in
 * slices that a daemon gives back between, and a pull stopped by a kill, a quota pause or a restart
 * goes on from its last page instead of starting again. `pull_cursors` holds, per account and
 * entity, where the pass is (the next page, and the last page's ids, read again on resuming to
 * prove the list did not shift meanwhile) and the keys it has seen so far, for the sweep that
 * follows the one complete pass.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `
    create table pull_cursors (
      entity          text not null,
      pass_run_id     bigint not null,
      pass_started_at timestamptz not null,
      table_was_empty boolean not null,
      next_start      integer not null check (next_start >= 0),
      last_page_start integer not null check (last_page_start >= 0),
      last_page_ids   text[] not null,
      seen_keys       integer[] not null,
      unidentified    integer not null default 0,
      fetched         integer not null default 0,
      pages           integer not null default 0,
      saved_at        timestamptz not null default now(),
      account_id      integer not null references accounts (id) on delete cascade,
      primary key (account_id, entity)
    )`,
  `comment on table pull_cursors is 'Full pulls under way: where each resumes (after a slice, a kill, a quota pause or a restart); a row goes when its pass completes'`,
  `comment on column pull_cursors.entity is 'the table being pulled, e.g. clients'`,
  `comment on column pull_cursors.pass_run_id is 'the sync run that began the pass (sync_runs.id); later slices are runs of their own'`,
  `comment on column pull_cursors.pass_started_at is 'when the pass began (the database''s clock): the sweep spares rows changed since'`,
  `comment on column pull_cursors.table_was_empty is 'the table held none of the account''s rows when the pass began (then nothing is swept)'`,
  `comment on column pull_cursors.next_start is 'the offset (start=) of the next page to read'`,
  `comment on column pull_cursors.last_page_start is 'the offset of the last page read'`,
  `comment on column pull_cursors.last_page_ids is 'the ids on the last page read: the same page read again on resuming must hold them, or the list shifted and nothing is swept'`,
  `comment on column pull_cursors.seen_keys is 'the keys the pass has seen so far (the sweep spares them)'`,
  `comment on column pull_cursors.unidentified is 'records without a readable id met so far (while any, nothing is swept)'`,
  `comment on column pull_cursors.fetched is 'records received by the pass so far'`,
  `comment on column pull_cursors.pages is 'pages received by the pass so far'`,
  `comment on column pull_cursors.saved_at is 'when the cursor was last saved'`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
