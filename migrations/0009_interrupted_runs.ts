/**
 * A pull stopped on purpose (Ctrl-C, SIGTERM) ends `interrupted`, not `failed`: nothing went wrong
 * and running the command again resumes safely.
 * A literal snapshot: it names tables and columns as they are at this migration.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table sync_runs drop constraint sync_runs_status_check`.execute(db);
  await sql`
    alter table sync_runs add constraint sync_runs_status_check
      check (status in ('running', 'succeeded', 'failed', 'partial', 'interrupted'))`.execute(db);
}
