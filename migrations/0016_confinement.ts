/**
 * What a role confined to one account (row-level security) or a reporting role must not reach:
 *
 * - `coordination_locks`: the per-account locks (one pull, one job, one request in flight) as
 *   rows instead of advisory locks, whose keys anyone could compute and take. A pull's and a job's
 *   lock is a lease bound to the session that holds it (its pid, role and start time, checked
 *   against the server's sessions by the next taker), so it ends with that session as an advisory
 *   lock did; the service lock is a row lock held in a short transaction. Taking either needs
 *   UPDATE on the table, which no confined role is granted, and the policies of row-level security
 *   (made for every table with account_id) keep any role to its own accounts' rows.
 * - `notification_channels`: the NOTIFY channels of queued jobs and new events, named with a
 *   random part that only roles that may run jobs read (row-level security), so that a confined or
 *   a reporting role can neither LISTEN to them nor raise them; the notifications carry nothing.
 * - `visible_accounts(role)` answers for the calling role only (the owner may ask for any).
 *
 * A literal snapshot: it names tables and columns as they are at this migration.
 */
import { sql, type Kysely } from 'kysely';

const LOCKS = [
  `
    create table coordination_locks (
      purpose        text not null check (purpose in ('sync', 'jobs', 'service')),
      holder_pid     integer,
      holder_role    oid,
      holder_started timestamptz,
      taken_at       timestamptz,
      waiter_pid     integer,
      waiter_started timestamptz,
      waiter_until   timestamptz,
      account_id     integer not null references accounts (id) on delete cascade,
      primary key (account_id, purpose)
    )`,
  `comment on table coordination_locks is 'The per-account locks: one pull (sync), one job (jobs) and one request to the service (service) at a time, across every process'`,
  `comment on column coordination_locks.purpose is 'sync, jobs or service'`,
  `comment on column coordination_locks.holder_pid is 'sync and jobs: the backend (pg_backend_pid) of the session holding the lock; empty: free'`,
  `comment on column coordination_locks.holder_role is 'the oid of the role that session logged in as'`,
  `comment on column coordination_locks.holder_started is 'when that session began (its backend_start): a later session with the same pid is another one'`,
  `comment on column coordination_locks.taken_at is 'when the lock was last taken (sync and jobs)'`,
  `comment on column coordination_locks.waiter_pid is 'jobs: the backend of a session waiting for the lock, whose turn is next'`,
  `comment on column coordination_locks.waiter_started is 'when that session began'`,
  `comment on column coordination_locks.waiter_until is 'until when the next turn is kept for it (it asks again while it waits)'`,
  `comment on column coordination_locks.account_id is 'the account (accounts.id)'`,
  // The lease of a pull or a job: taken by the calling session when no live session holds it. The
  // row is locked first, so takers go one at a time; the server's sessions are read only after
  // that (their snapshot cleared), so a taker that went just before is seen alive. A session seen
  // with the holder's pid and role whose start time this role may not see is taken to be alive.
  // A taker that waits in turn (jobs) and finds it held keeps the next turn for itself while it
  // keeps asking, so that runners take turns as they did in an advisory lock's queue.
  `
    create function coordination_lock_take(lock_account integer, lock_purpose text, in_turn boolean default false)
    returns boolean language plpgsql volatile as $$
    declare
      held record;
      me record;
      waiting_is_me boolean;
    begin
      -- A lease lost in a crash of the server went with every session: no need to wait for the disk.
      perform set_config('synchronous_commit', 'off', true);
      select l.holder_pid, l.holder_role, l.holder_started, l.waiter_pid, l.waiter_started, l.waiter_until into held
        from coordination_locks l where l.account_id = lock_account and l.purpose = lock_purpose for update;
      if not found then
        insert into coordination_locks (account_id, purpose) values (lock_account, lock_purpose) on conflict do nothing;
        select l.holder_pid, l.holder_role, l.holder_started, l.waiter_pid, l.waiter_started, l.waiter_until into held
          from coordination_locks l where l.account_id = lock_account and l.purpose = lock_purpose for update;
      end if;
      perform pg_stat_clear_snapshot();
      select a.usesysid, a.backend_start into me from pg_stat_get_activity(pg_backend_pid()) a;
      waiting_is_me := held.waiter_pid = pg_backend_pid() and held.waiter_started = me.backend_start;
      if held.holder_pid is not null
         and not (held.holder_pid = pg_backend_pid() and held.holder_started = me.backend_start)
         and exists (select from pg_stat_get_activity(held.holder_pid) a
                      where a.usesysid = held.holder_role
                        and (a.backend_start = held.holder_started or a.backend_start is null)) then
        if in_turn and (held.waiter_until is null or held.waiter_until < clock_timestamp() or waiting_is_me) then
          update coordination_locks
             set waiter_pid = pg_backend_pid(), waiter_started = me.backend_start,
                 waiter_until = clock_timestamp() + interval '250 milliseconds'
           where account_id = lock_account and purpose = lock_purpose;
        end if;
        return false;
      end if;
      if held.waiter_until >= clock_timestamp() and not coalesce(waiting_is_me, false) then
        return false;
      end if;
      update coordination_locks
         set holder_pid = pg_backend_pid(), holder_role = me.usesysid, holder_started = me.backend_start, taken_at = now(),
             waiter_pid = null, waiter_started = null, waiter_until = null
       where account_id = lock_account and purpose = lock_purpose;
      return true;
    end
    $$`,
  `comment on function coordination_lock_take(integer, text, boolean) is 'Takes the sync or jobs lock of an account for the calling session if no live session holds it (in_turn: and keeps the next turn while it waits); true when taken'`,
  `
    create function coordination_lock_release(lock_account integer, lock_purpose text) returns boolean
    language plpgsql volatile as $$
    begin
      perform set_config('synchronous_commit', 'off', true);
      update coordination_locks set holder_pid = null, holder_role = null, holder_started = null
       where account_id = lock_account and purpose = lock_purpose and holder_pid = pg_backend_pid()
         and holder_started = (select a.backend_start from pg_stat_get_activity(pg_backend_pid()) a);
      return found;
    end
    $$`,
  `comment on function coordination_lock_release(integer, text) is 'Gives back a lock the calling session holds; true when it held it'`,
  // The service lock: the row locked until the calling transaction ends, waiting in turn (the
  // rows are made as they are first needed). idle_in_transaction_session_timeout would end the
  // session while a request is in flight.
  `
    create function coordination_lock_wait(lock_account integer, lock_purpose text) returns void
    language plpgsql volatile as $$
    begin
      perform set_config('idle_in_transaction_session_timeout', '0', true);
      perform set_config('synchronous_commit', 'off', true);
      perform from coordination_locks l where l.account_id = lock_account and l.purpose = lock_purpose for update;
      if not found then
        -- The first time: a taker meanwhile waits for this transaction, as for the row lock.
        insert into coordination_locks (account_id, purpose) values (lock_account, lock_purpose) on conflict do nothing;
        perform from coordination_locks l where l.account_id = lock_account and l.purpose = lock_purpose for update;
      end if;
    end
    $$`,
  `comment on function coordination_lock_wait(integer, text) is 'Waits for and holds an account''s service lock until the calling transaction ends'`,
];

const CHANNELS = [
  `
    create table notification_channels (
      purpose text primary key check (purpose in ('jobs', 'events')),
      channel text not null unique
    )`,
  `comment on table notification_channels is 'The NOTIFY channels of queued jobs and new events: readable only by roles that may run jobs (UPDATE on jobs)'`,
  `comment on column notification_channels.purpose is 'jobs (a job was queued) or events (events were written)'`,
  `comment on column notification_channels.channel is 'the channel''s name, with a random part no other role can read'`,
  // A role sees the rows only if it may update jobs (the owner, or a role granted what running
  // the mirror needs), whatever SELECT it is granted: not a confined or a reporting role. The
  // regclass is bound here, so no table of another name (a temporary one) can stand in for it.
  `alter table notification_channels enable row level security`,
  `create policy channel_readers on notification_channels for select using (has_table_privilege(current_user, 'jobs'::regclass, 'UPDATE'))`,
  `comment on policy channel_readers on notification_channels is 'Only a role that may update jobs reads the channels'`,
  `insert into notification_channels (purpose, channel)
     select p, 'im_' || p || '_' || replace(gen_random_uuid()::text, '-', '') from unnest(array['jobs', 'events']) p`,
  // Security definer: it reads the channel for whoever queues a job (a confined role may).
  `
    create or replace function jobs_notify() returns trigger language plpgsql security definer
      set search_path = pg_catalog, pg_temp as $$
    declare
      channel text;
    begin
      execute format('select channel from %I.notification_channels where purpose = ''jobs''', tg_table_schema) into channel;
      if channel is not null then
        perform pg_notify(channel, '');
      end if;
      return null;
    end
    $$`,
];

/**
 * visible_accounts(role) is called by the policies as visible_accounts(current_user). It now runs
 * with the caller's rights, reads the caller's accounts through a view of the owner's (which
 * compares with current_user, so it answers for whoever reads it), and refuses another role's
 * name unless the caller has the rights of the tables' owner.
 */
const VISIBLE = [
  `
    create view visible_account_ids with (security_barrier) as
      select r.account_id as id from account_roles r where r.role_name = current_user
      union all
      select a.id from accounts a where not exists (select from account_roles r where r.role_name = current_user)`,
  `comment on view visible_account_ids is 'The accounts whose rows the role reading it sees: those account_roles names for it, or every account when it is not named there'`,
  `comment on column visible_account_ids.id is 'an account (accounts.id)'`,
  `grant select on visible_account_ids to public`,
  `
    create function visible_accounts_refused(role_name text) returns integer[] language plpgsql volatile as $$
    begin
      raise exception 'visible_accounts answers only for the calling role: call visible_accounts(current_user), not visible_accounts(%)',
        quote_literal(role_name) using errcode = '42501';
    end
    $$`,
  `
    create function visible_accounts_of(role_name text) returns integer[] language sql stable
    begin atomic
      select case
        when pg_has_role(current_user, (select c.relowner from pg_class c where c.oid = 'accounts'::regclass), 'USAGE')
          then coalesce((select array_agg(r.account_id order by r.account_id) from account_roles r
                          where r.role_name = visible_accounts_of.role_name),
                        (select coalesce(array_agg(a.id order by a.id), '{}') from accounts a))
        else visible_accounts_refused(visible_accounts_of.role_name)
      end;
    end`,
  `comment on function visible_accounts_of(text) is 'The accounts whose rows another role sees; for the tables'' owner only'`,
  `
    create or replace function visible_accounts(role_name text) returns integer[] language sql stable
    begin atomic
      select case
        when visible_accounts.role_name = current_user
          then (select coalesce(array_agg(v.id order by v.id), '{}') from visible_account_ids v)
        else visible_accounts_of(visible_accounts.role_name)
      end;
    end`,
  `comment on function visible_accounts(text) is 'The accounts whose rows the calling role sees (call it as visible_accounts(current_user)): those account_roles names for it, or every account when it is not named there; the tables'' owner may ask for another role'`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of [...LOCKS, ...CHANNELS, ...VISIBLE]) await sql.raw(statement).execute(db);
}
