/**
 * The service an account's rows and jobs come from: `accounts.service_url` is bound when the
 * account is added (its api_url, or INVOICING_API_URL at the time) or by its first pull (for
 * `default`), and a process whose settings point the account at another service refuses to serve
 * it (`accounts rebind` moves it on purpose). `jobs.service_url` is the service a job was queued
 * for, filled at insert from its account (plain SQL included) by the trigger below; a job runs
 * only against that service.
 *
 * Accounts with their own api_url are bound to it here. `default`, and accounts that took the
 * setting, were filled from a service no row records: they stay unbound until their next pull or
 * job run binds them to the service the settings then give. Jobs take their account's binding.
 * A literal snapshot: it names tables and columns as they are at this migration.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  `alter table accounts add column service_url text`,
  `comment on column accounts.service_url is 'the API address of the service the account''s rows and jobs come from, bound when it was added or by its first pull; a process whose settings point it elsewhere does not serve it (accounts rebind moves it); empty: not bound yet'`,
  `update accounts set service_url = rtrim(api_url, '/') where api_url is not null`,
  `alter table jobs add column service_url text`,
  `comment on column jobs.service_url is 'the API address of the service the job was queued for (its account''s, filled at insert): it runs only against that service; empty: queued before the account was bound, it takes the account''s service when it runs'`,
  `update jobs j set service_url = a.service_url from accounts a where a.id = j.account_id and a.service_url is not null`,
  // After jobs_account (triggers of one event fire in name order), which may have just filled account_id.
  `
    create function jobs_service() returns trigger language plpgsql as $$
    begin
      execute format('select a.service_url from %I.accounts a where a.id = $1', tg_table_schema)
        into new.service_url using new.account_id;
      return new;
    end
    $$`,
  `create trigger jobs_service before insert on jobs for each row when (new.service_url is null) execute function jobs_service()`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
