/**
 * An account's pulls can be parked alone: when its hourly budget is spent down to what is kept for
 * outbound actions, no daemon pulls it until the budget has come back, while its jobs may still
 * run (a quota the service refused with 403 parks all its work, as before).
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `alter table account_leases add column parked_pulls_only boolean not null default false`,
  `comment on column account_leases.parked_until is 'no work for the account before this time (its hourly quota was spent), or only no pull (parked_pulls_only)'`,
  `comment on column account_leases.parked_pulls_only is 'the park holds only its pulls (its hourly budget is spent down to what is kept for actions): its jobs may run'`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
