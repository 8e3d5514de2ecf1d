/**
 * `sync_runs.rate_limit_remaining`: the service's `X-RateLimit-Remaining` as last seen by the run,
 * so `invoice-mirror status` can tell the budget left without calling the service.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table sync_runs add column rate_limit_remaining integer`.execute(db);
}
