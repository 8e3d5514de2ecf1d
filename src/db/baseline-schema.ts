// Written by scripts/baseline.mjs (pg_dump of the schema the migrations leave): do not edit.
export const BASELINE = {
  /** The migrations this schema stands for, in order. */
  migrations: [
    '0001_core',
    '0002_mirror',
    '0004_reports',
    '0005_status',
    '0006_write_path',
    '0007_deleted_index',
    '0008_data_safety',
    '0009_interrupted_runs',
    '0010_invoices',
    '0011_invoice_pdfs',
    '0012_accounts',
    '0013_fleet',
    '0014_pull_cursors',
    '0015_events',
    '0016_confinement',
    '0017_pulls_parked',
    '0018_account_service',
    '0019_vat',
    '0021_fleet_leader',
    '0022_work_due',
    '0023_account_checks',
    '0024_account_checks_once',
  ],
  /** The schema's name in the text below. */
  schema: 'invoice_mirror_baseline',
  /** Every object and seeded row, in an order that needs no other. */
  definitions: `
CREATE FUNCTION invoice_mirror_baseline.account_lease_row() RETURNS trigger
    LANGUAGE plpgsql
    AS $_$
    begin
      execute format('insert into %I.account_leases (account_id, account_active) values ($1, $2) on conflict do nothing', tg_table_schema)
        using new.id, new.state = 'active';
      return null;
    end
    $_$;

CREATE FUNCTION invoice_mirror_baseline.account_leases_follow_jobs() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    declare
      touched integer[];
    begin
      if tg_op = 'INSERT' then
        select array_agg(distinct n.account_id order by n.account_id) into touched from new_jobs n where n.status = 'queued';
      elsif tg_op = 'DELETE' then
        select array_agg(distinct o.account_id order by o.account_id) into touched from old_jobs o where o.status = 'queued';
      else
        select array_agg(distinct t.account_id order by t.account_id) into touched
          from (select o.account_id from old_jobs o where o.status = 'queued'
                union all
                select n.account_id from new_jobs n where n.status = 'queued') t;
      end if;
      if touched is null then
        return null;
      end if;
      execute format('select from %I.account_leases where account_id = any ($1) order by account_id for no key update',
                     tg_table_schema) using touched;
      execute format($q$
        update %1$I.account_leases l set first_job_at = f.first_job_at
          from (select t.id, (select min(j.run_after) from %1$I.jobs j where j.account_id = t.id and j.status = 'queued') as first_job_at
                  from unnest($1::integer[]) t (id)) f
         where l.account_id = f.id and l.first_job_at is distinct from f.first_job_at$q$, tg_table_schema) using touched;
      return null;
    end
    $_$;

CREATE FUNCTION invoice_mirror_baseline.account_leases_follow_state() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    begin
      execute format('update %I.account_leases set account_active = $2 where account_id = $1 and account_active is distinct from $2', tg_table_schema)
        using new.id, new.state = 'active';
      return null;
    end
    $_$;

CREATE FUNCTION invoice_mirror_baseline.account_rows_exist() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
  declare
    named integer[];
    found integer[];
    missing integer;
  begin
    select array_agg(distinct w.account_id) into named from written w;
    execute format('select array_agg(a.id) from (select a.id from %I.accounts a where a.id = any($1) for key share) a',
                   tg_table_schema) into found using named;
    select n into missing from unnest(named) n where n <> all(coalesce(found, '{}')) limit 1;
    if missing is not null then
      raise foreign_key_violation using
        message = format('insert or update on table "%s" names account %s, which does not exist', tg_table_name, missing),
        hint = 'add the account first (invoice-mirror accounts add)';
    end if;
    return null;
  end
  $_$;

CREATE FUNCTION invoice_mirror_baseline.account_rows_kept() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    declare
      checked text;
      held boolean;
    begin
      foreach checked in array tg_argv loop
        if tg_op = 'TRUNCATE' then
          execute format('select exists (select from %I.%I)', tg_table_schema, checked) into held;
          if held then
            raise foreign_key_violation using
              message = format('truncate on table "accounts" refused: table "%s" still holds rows of its accounts', checked),
              hint = 'an account''s mirror rows go with it only on purpose: delete them first';
          end if;
        elsif tg_op = 'DELETE' or old.id is distinct from new.id then
          execute format('select exists (select from %I.%I where account_id = $1)', tg_table_schema, checked) into held using old.id;
          if held then
            raise foreign_key_violation using
              message = format('%s on table "accounts" refused: table "%s" still holds rows of account %s', lower(tg_op), checked, old.id),
              hint = 'an account''s mirror rows go with it only on purpose: delete them first';
          end if;
        end if;
      end loop;
      if tg_op = 'DELETE' then
        return old;
      end if;
      return new;
    end
    $_$;

CREATE FUNCTION invoice_mirror_baseline.client_display_name(company text, contact text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
      select coalesce(nullif(company, ''), nullif(contact, ''))
    $$;

COMMENT ON FUNCTION invoice_mirror_baseline.client_display_name(company text, contact text) IS 'The name a client goes by: the company name, or the contact name when there is no company.';

CREATE FUNCTION invoice_mirror_baseline.coordination_lock_release(lock_account integer, lock_purpose text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
    begin
      perform set_config('synchronous_commit', 'off', true);
      update coordination_locks set holder_pid = null, holder_role = null, holder_started = null
       where account_id = lock_account and purpose = lock_purpose and holder_pid = pg_backend_pid()
         and holder_started = (select a.backend_start from pg_stat_get_activity(pg_backend_pid()) a);
      return found;
    end
    $$;

COMMENT ON FUNCTION invoice_mirror_baseline.coordination_lock_release(lock_account integer, lock_purpose text) IS 'Gives back a lock the calling session holds; true when it held it';

CREATE FUNCTION invoice_mirror_baseline.coordination_lock_take(lock_account integer, lock_purpose text, in_turn boolean DEFAULT false) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
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
    $$;

COMMENT ON FUNCTION invoice_mirror_baseline.coordination_lock_take(lock_account integer, lock_purpose text, in_turn boolean) IS 'Takes the sync or jobs lock of an account for the calling session if no live session holds it (in_turn: and keeps the next turn while it waits); true when taken';

CREATE FUNCTION invoice_mirror_baseline.coordination_lock_wait(lock_account integer, lock_purpose text) RETURNS void
    LANGUAGE plpgsql
    AS $$
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
    $$;

COMMENT ON FUNCTION invoice_mirror_baseline.coordination_lock_wait(lock_account integer, lock_purpose text) IS 'Waits for and holds an account''s service lock until the calling transaction ends';

CREATE FUNCTION invoice_mirror_baseline.frequency_step(frequency text) RETURNS interval
    LANGUAGE sql IMMUTABLE
    AS $$
      select case lower(frequency)
        when 'weekly' then interval '7 days' when 'biweekly' then interval '14 days'
        when 'fourweekly' then interval '28 days' when 'monthly' then interval '1 month'
        when 'bimonthly' then interval '2 months' when 'quarterly' then interval '3 months'
        when 'halfyearly' then interval '6 months' when 'yearly' then interval '1 year'
      end
    $$;

COMMENT ON FUNCTION invoice_mirror_baseline.frequency_step(frequency text) IS 'The time between two sends of a repeating invoice of this frequency (case-insensitive); NULL for an unknown frequency.';

CREATE FUNCTION invoice_mirror_baseline.jobs_account() RETURNS trigger
    LANGUAGE plpgsql
    AS $_$
    declare
      found integer[];
    begin
      execute format('select array_agg(a.id) from %1$I.accounts a where a.state <> ''removed'' and a.id = any (%1$I.visible_accounts(current_user))',
                     tg_table_schema) into found;
      if coalesce(array_length(found, 1), 0) <> 1 then
        raise exception 'jobs.account_id is required: % accounts exist; name one, e.g. account_id = (select id from accounts where name = ''…'')',
          coalesce(array_length(found, 1), 0) using errcode = '23502';
      end if;
      new.account_id := found[1];
      return new;
    end
    $_$;

CREATE FUNCTION invoice_mirror_baseline.jobs_notify() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    declare
      channel text;
    begin
      execute format('select channel from %I.notification_channels where purpose = ''jobs''', tg_table_schema) into channel;
      if channel is not null then
        perform pg_notify(channel, '');
      end if;
      return null;
    end
    $$;

CREATE FUNCTION invoice_mirror_baseline.jobs_service() RETURNS trigger
    LANGUAGE plpgsql
    AS $_$
    begin
      execute format('select a.service_url from %I.accounts a where a.id = $1', tg_table_schema)
        into new.service_url using new.account_id;
      return new;
    end
    $_$;

CREATE FUNCTION invoice_mirror_baseline.payments_date(value text) RETURNS date
    LANGUAGE plpgsql IMMUTABLE
    AS $_$
  begin
    if value !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' then return null; end if;
    return value::date;
  exception when others then
    return null;
  end
  $_$;

CREATE FUNCTION invoice_mirror_baseline.payments_from_changes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  declare
    drop_row record;
  begin
    for drop_row in select * from new_changes n where payments_is_drop(n.entity, n.op, n.entity_id, n.before, n.after) order by n.id loop
      perform payments_take_change(drop_row.account_id, drop_row.id, drop_row.entity_id, drop_row.before,
                                   drop_row.after, drop_row.detected_at);
    end loop;
    return null;
  end
  $$;

CREATE FUNCTION invoice_mirror_baseline.payments_from_jobs() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  begin
    perform payments_take_job(new.account_id, new.id, new.payload, coalesce(new.started_at, new.created_at), new.finished_at);
    return null;
  end
  $$;

CREATE FUNCTION invoice_mirror_baseline.payments_is_drop(entity text, op text, entity_id text, before jsonb, after jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $_$
    select entity = 'invoices' and op = 'update'
       and payments_num(before, 'open') > payments_num(after, 'open')
       and coalesce(after ->> 'uncollectible', '') in ('', '0', 'false')
       and entity_id ~ '^[0-9]+$'
  $_$;

CREATE FUNCTION invoice_mirror_baseline.payments_num(record jsonb, field text) RETURNS numeric
    LANGUAGE sql IMMUTABLE
    AS $_$
    select case when jsonb_typeof(record -> field) = 'number' then (record ->> field)::numeric
                when btrim(record ->> field) ~ '^[+-]?[0-9]+([.][0-9]+)?$' then btrim(record ->> field)::numeric end
  $_$;

CREATE FUNCTION invoice_mirror_baseline.payments_take_change(account integer, change_id bigint, entity_id text, before jsonb, after jsonb, detected_at timestamp with time zone) RETURNS void
    LANGUAGE plpgsql
    AS $$
  declare
    remaining numeric := round(payments_num(before, 'open') - payments_num(after, 'open'), 2);
    open_after numeric := payments_num(after, 'open');
    invoice integer := entity_id::integer;
    registered record;
  begin
    for registered in
      select id, amount from payments
       where payments.account_id = account and invoice_id = invoice and source = 'registered' and payments.change_id is null
       order by id for update
    loop
      exit when remaining <= 0;
      if registered.amount is null then
        update payments set amount = remaining, change_id = payments_take_change.change_id
         where payments.account_id = account and id = registered.id;
        remaining := 0;
      elsif registered.amount <= remaining then
        update payments set change_id = payments_take_change.change_id
         where payments.account_id = account and id = registered.id;
        remaining := remaining - registered.amount;
      end if;
    end loop;
    if remaining > 0 then
      insert into payments (account_id, invoice_id, source, paid_on, detected_at, amount, change_id)
      values (account, invoice, 'observed', case when open_after <= 0 then payments_date(after ->> 'paiddate') end,
              payments_take_change.detected_at, remaining, payments_take_change.change_id);
    end if;
  end
  $$;

CREATE FUNCTION invoice_mirror_baseline.payments_take_job(account integer, job_id bigint, payload jsonb, began timestamp with time zone, finished timestamp with time zone) RETURNS void
    LANGUAGE plpgsql
    AS $$
  declare
    invoice integer := (payload ->> 'id')::integer;
    paid numeric := case when payload ->> 'amount' = 'full' then null else round(payments_num(payload, 'amount'), 2) end;
    seen record;
  begin
    select id, amount, change_id into seen from payments
     where payments.account_id = account and invoice_id = invoice and source = 'observed'
       and detected_at >= began and (paid is null or amount >= paid)
     order by id limit 1 for update;
    if found and (paid is null or seen.amount = paid) then
      update payments set source = 'registered', job_id = payments_take_job.job_id, paid_on = payments_date(payload ->> 'date'),
                          method = coalesce(payload ->> 'method', 'bank')
       where payments.account_id = account and id = seen.id;
    else
      if found then
        update payments set amount = amount - paid where payments.account_id = account and id = seen.id;
      end if;
      insert into payments (account_id, invoice_id, source, paid_on, detected_at, amount, method, job_id, change_id)
      values (account, invoice, 'registered', payments_date(payload ->> 'date'), coalesce(finished, now()), paid,
              coalesce(payload ->> 'method', 'bank'), payments_take_job.job_id, case when found then seen.change_id end);
    end if;
  end
  $$;

CREATE FUNCTION invoice_mirror_baseline.sends_per_year(frequency text) RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $$
      select case lower(frequency)
        when 'weekly' then 52 when 'biweekly' then 26 when 'fourweekly' then 13 when 'monthly' then 12
        when 'bimonthly' then 6 when 'quarterly' then 4 when 'halfyearly' then 2 when 'yearly' then 1
      end
    $$;

COMMENT ON FUNCTION invoice_mirror_baseline.sends_per_year(frequency text) IS 'How many invoices a repeating invoice of this frequency sends in a year (weekly 52, biweekly 26, fourweekly 13, monthly 12, bimonthly 6, quarterly 4, halfyearly 2, yearly 1; case-insensitive); NULL for an unknown frequency.';

CREATE FUNCTION invoice_mirror_baseline.visible_accounts_refused(role_name text) RETURNS integer[]
    LANGUAGE plpgsql
    AS $$
    begin
      raise exception 'visible_accounts answers only for the calling role: call visible_accounts(current_user), not visible_accounts(%)',
        quote_literal(role_name) using errcode = '42501';
    end
    $$;

CREATE TABLE invoice_mirror_baseline.account_roles (
    role_name text NOT NULL,
    granted_at timestamp with time zone DEFAULT now() NOT NULL,
    account_id integer NOT NULL
);

COMMENT ON TABLE invoice_mirror_baseline.account_roles IS 'Database roles confined by row-level security to the rows of these accounts (grant_account makes a row); a role not named here is not confined';

COMMENT ON COLUMN invoice_mirror_baseline.account_roles.role_name IS 'the database role, as current_user names it';

COMMENT ON COLUMN invoice_mirror_baseline.account_roles.granted_at IS 'when the role was confined to the account';

COMMENT ON COLUMN invoice_mirror_baseline.account_roles.account_id IS 'an account whose rows the role sees (accounts.id)';

CREATE TABLE invoice_mirror_baseline.accounts (
    id integer NOT NULL,
    name text NOT NULL,
    api_url text,
    api_user text,
    api_key text,
    state text DEFAULT 'active'::text NOT NULL,
    state_reason text,
    state_changed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    notes text,
    sync_interval interval,
    service_url text,
    vat_country text DEFAULT 'NL'::text NOT NULL,
    CONSTRAINT accounts_check CHECK (((api_user IS NULL) = (api_key IS NULL))),
    CONSTRAINT accounts_name_check CHECK ((name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$'::text)),
    CONSTRAINT accounts_state_check CHECK ((state = ANY (ARRAY['active'::text, 'paused'::text, 'refused'::text, 'removed'::text]))),
    CONSTRAINT accounts_sync_interval_check CHECK ((sync_interval >= '00:00:10'::interval)),
    CONSTRAINT accounts_vat_country_check CHECK ((vat_country ~ '^[A-Z]{2}$'::text))
);

COMMENT ON TABLE invoice_mirror_baseline.accounts IS 'The accounts of the invoicing service this mirror holds; every other table carries account_id';

COMMENT ON COLUMN invoice_mirror_baseline.accounts.name IS 'the name the command line and the console use for the account';

COMMENT ON COLUMN invoice_mirror_baseline.accounts.api_url IS 'the API address of the account; empty: the INVOICING_API_URL setting';

COMMENT ON COLUMN invoice_mirror_baseline.accounts.api_user IS 'the user name of the account; empty (with api_key): the INVOICING_API_USER and INVOICING_API_KEY settings';

COMMENT ON COLUMN invoice_mirror_baseline.accounts.api_key IS 'the API key, encrypted with AES-256-GCM under ACCOUNTS_SECRET (never the key itself)';

COMMENT ON COLUMN invoice_mirror_baseline.accounts.state IS 'active (pulled and running jobs), paused (by a person), refused (the service refused the key), removed (rows kept, read-only)';

COMMENT ON COLUMN invoice_mirror_baseline.accounts.state_reason IS 'why the account is paused, refused or removed, and what to do';

COMMENT ON COLUMN invoice_mirror_baseline.accounts.sync_interval IS 'how fresh the daemons keep this account; empty: the SYNC_INTERVAL setting';

COMMENT ON COLUMN invoice_mirror_baseline.accounts.service_url IS 'the API address of the service the account''s rows and jobs come from, bound when it was added or by its first pull; a process whose settings point it elsewhere does not serve it (accounts rebind moves it); empty: not bound yet';

COMMENT ON COLUMN invoice_mirror_baseline.accounts.vat_country IS 'the country (ISO code) whose VAT return the account files: NL (vat_return_nl) or BE (vat_return_be); default NL';

CREATE FUNCTION invoice_mirror_baseline.visible_accounts_of(role_name text) RETURNS integer[]
    LANGUAGE sql STABLE
    BEGIN ATOMIC
 SELECT
         CASE
             WHEN pg_has_role(CURRENT_USER, ( SELECT c.relowner
                FROM pg_class c
               WHERE (c.oid = ('invoice_mirror_baseline.accounts'::regclass)::oid)), 'USAGE'::text) THEN COALESCE(( SELECT array_agg(r.account_id ORDER BY r.account_id) AS array_agg
                FROM invoice_mirror_baseline.account_roles r
               WHERE (r.role_name = visible_accounts_of.role_name)), ( SELECT COALESCE(array_agg(a.id ORDER BY a.id), '{}'::integer[]) AS "coalesce"
                FROM invoice_mirror_baseline.accounts a))
             ELSE invoice_mirror_baseline.visible_accounts_refused(role_name)
         END AS visible_accounts_refused;
END;

COMMENT ON FUNCTION invoice_mirror_baseline.visible_accounts_of(role_name text) IS 'The accounts whose rows another role sees; for the tables'' owner only';

CREATE VIEW invoice_mirror_baseline.visible_account_ids WITH (security_barrier='true') AS
 SELECT r.account_id AS id
   FROM invoice_mirror_baseline.account_roles r
  WHERE (r.role_name = CURRENT_USER)
UNION ALL
 SELECT a.id
   FROM invoice_mirror_baseline.accounts a
  WHERE (NOT (EXISTS ( SELECT
           FROM invoice_mirror_baseline.account_roles r
          WHERE (r.role_name = CURRENT_USER))));

COMMENT ON VIEW invoice_mirror_baseline.visible_account_ids IS 'The accounts whose rows the role reading it sees: those account_roles names for it, or every account when it is not named there';

COMMENT ON COLUMN invoice_mirror_baseline.visible_account_ids.id IS 'an account (accounts.id)';

CREATE FUNCTION invoice_mirror_baseline.visible_accounts(role_name text) RETURNS integer[]
    LANGUAGE sql STABLE
    BEGIN ATOMIC
 SELECT
         CASE
             WHEN (role_name = CURRENT_USER) THEN ( SELECT COALESCE(array_agg(v.id ORDER BY v.id), '{}'::integer[]) AS "coalesce"
                FROM invoice_mirror_baseline.visible_account_ids v)
             ELSE invoice_mirror_baseline.visible_accounts_of(role_name)
         END AS visible_accounts_of;
END;

COMMENT ON FUNCTION invoice_mirror_baseline.visible_accounts(role_name text) IS 'The accounts whose rows the calling role sees (call it as visible_accounts(current_user)): those account_roles names for it, or every account when it is not named there; the tables'' owner may ask for another role';

CREATE TABLE invoice_mirror_baseline.account_leases (
    due_at timestamp with time zone DEFAULT '-infinity'::timestamp with time zone NOT NULL,
    daemon_id text,
    leased_until timestamp with time zone,
    parked_until timestamp with time zone,
    parked_reason text,
    account_id integer NOT NULL,
    parked_pulls_only boolean DEFAULT false NOT NULL,
    first_job_at timestamp with time zone,
    account_active boolean DEFAULT true NOT NULL,
    work_due_at timestamp with time zone GENERATED ALWAYS AS (
CASE
    WHEN (NOT account_active) THEN NULL::timestamp with time zone
    WHEN ((parked_until IS NOT NULL) AND (NOT parked_pulls_only)) THEN GREATEST(parked_until, LEAST(due_at, first_job_at))
    ELSE LEAST(GREATEST(due_at, parked_until), first_job_at)
END) STORED
);

COMMENT ON TABLE invoice_mirror_baseline.account_leases IS 'The work of each account as the daemons share it: when its next pull is due, who holds it, whether it is parked';

COMMENT ON COLUMN invoice_mirror_baseline.account_leases.due_at IS 'when its next scheduled pull is due (-infinity: at once)';

COMMENT ON COLUMN invoice_mirror_baseline.account_leases.daemon_id IS 'the daemon working on the account (daemons.id); empty: none';

COMMENT ON COLUMN invoice_mirror_baseline.account_leases.leased_until IS 'until when that daemon holds it, unless it renews';

COMMENT ON COLUMN invoice_mirror_baseline.account_leases.parked_until IS 'no work for the account before this time (its hourly quota was spent), or only no pull (parked_pulls_only)';

COMMENT ON COLUMN invoice_mirror_baseline.account_leases.parked_reason IS 'why it is parked';

COMMENT ON COLUMN invoice_mirror_baseline.account_leases.parked_pulls_only IS 'the park holds only its pulls (its hourly budget is spent down to what is kept for actions): its jobs may run';

COMMENT ON COLUMN invoice_mirror_baseline.account_leases.first_job_at IS 'when the oldest queued job of the account may run (its run_after); empty: none queued. Kept by triggers on jobs';

COMMENT ON COLUMN invoice_mirror_baseline.account_leases.account_active IS 'whether the account is active (accounts.state); kept by a trigger on accounts';

COMMENT ON COLUMN invoice_mirror_baseline.account_leases.work_due_at IS 'when the account''s work is next due, the first moment a daemon may claim it: the earlier of its pull (held to the park''s end while parked) and its first queued job (held too unless only its pulls are parked); empty: not active';

ALTER TABLE invoice_mirror_baseline.accounts ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME invoice_mirror_baseline.accounts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE invoice_mirror_baseline.categories (
    id integer NOT NULL,
    name text,
    ledger integer,
    raw jsonb NOT NULL,
    raw_hash text,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    account_id integer NOT NULL
);

CREATE TABLE invoice_mirror_baseline.changes (
    id bigint NOT NULL,
    sync_run_id bigint,
    entity text NOT NULL,
    entity_id text NOT NULL,
    op text NOT NULL,
    changed_fields text[],
    before jsonb,
    after jsonb,
    detected_at timestamp with time zone DEFAULT now() NOT NULL,
    account_id integer NOT NULL,
    CONSTRAINT changes_op_check CHECK ((op = ANY (ARRAY['insert'::text, 'update'::text, 'delete'::text, 'restore'::text])))
);

CREATE SEQUENCE invoice_mirror_baseline.changes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE invoice_mirror_baseline.changes_id_seq OWNED BY invoice_mirror_baseline.changes.id;

CREATE TABLE invoice_mirror_baseline.clients (
    clientnr integer NOT NULL,
    contact text,
    showcontact boolean,
    company text,
    address text,
    address_addon text,
    zipcode text,
    city text,
    country integer,
    phone text,
    mobile text,
    email text,
    addon text,
    bankcode text,
    biccode text,
    taxnumber text,
    tax_shifted boolean,
    lastinvoice date,
    sendmethod text,
    paymentmethod text,
    top integer,
    stddiscount numeric,
    mailintro text,
    reference_line1 text,
    reference_line2 text,
    reference_line3 text,
    notes text,
    notes_on_invoice boolean,
    active boolean,
    default_doclang text,
    default_category integer,
    default_email integer,
    email_reminder text,
    currency text,
    mandate_id text,
    mandate_date date,
    collecttype text,
    tax_type text,
    raw jsonb NOT NULL,
    raw_hash text,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    account_id integer NOT NULL
);

CREATE TABLE invoice_mirror_baseline.quotations (
    id integer NOT NULL,
    sendmethod text,
    savename text,
    quotationreference text,
    reference_line1 text,
    reference_line2 text,
    reference_line3 text,
    profile integer,
    profile_name text,
    category integer,
    category_name text,
    discounttype text,
    discount numeric,
    paymentcondition text,
    quotationperiod integer,
    showtotals boolean,
    date date,
    datedue date,
    notes text,
    totalintax numeric,
    convert_prices_to_euro boolean,
    sent boolean,
    customstatus text,
    approved jsonb,
    clientnr integer,
    contact text,
    company text,
    address text,
    zipcode text,
    city text,
    country integer,
    phone text,
    mobile text,
    email text,
    sign_url text,
    raw jsonb NOT NULL,
    raw_hash text,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    account_id integer NOT NULL
);

CREATE VIEW invoice_mirror_baseline.open_quotations AS
 SELECT q.id AS quotation_id,
    q.quotationreference AS quotation_reference,
    q.savename AS saved_name,
    q.clientnr AS client_number,
    invoice_mirror_baseline.client_display_name(q.company, q.contact) AS client_name,
    q.date AS quotation_date,
    q.datedue AS valid_until,
    (CURRENT_DATE - q.date) AS days_open,
    COALESCE((q.datedue < CURRENT_DATE), false) AS expired,
    COALESCE(NULLIF(lower(q.customstatus), ''::text), 'none'::text) AS custom_status,
    q.totalintax AS total_incl_tax
   FROM invoice_mirror_baseline.quotations q
  WHERE ((q.deleted_at IS NULL) AND q.sent AND (jsonb_typeof(q.approved) IS DISTINCT FROM 'object'::text) AND (COALESCE(lower(q.customstatus), ''::text) <> 'declined'::text));

COMMENT ON VIEW invoice_mirror_baseline.open_quotations IS 'Quotations sent to the client and still waiting for an answer: sent, not approved, not declined. Age in days since the quotation date.';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.quotation_id IS 'id of the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.quotation_reference IS 'public reference printed on the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.saved_name IS 'name the quotation was saved under';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.client_number IS 'number of the client the quotation is for';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.client_name IS 'client name as printed on the document (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.quotation_date IS 'date the quotation was sent';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.valid_until IS 'last day of the quotation period (quotation date plus the period)';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.days_open IS 'days since the quotation date';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.expired IS 'true when the quotation period has ended (valid_until is before today)';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.custom_status IS 'status set by hand: progress, completed or billable; none when not set';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.total_incl_tax IS 'quotation total including tax';

CREATE TABLE invoice_mirror_baseline.repeating_invoices (
    id integer NOT NULL,
    name text,
    reference_line1 text,
    reference_line2 text,
    reference_line3 text,
    profile integer,
    discounttype text,
    discount numeric,
    paymentcondition text,
    paymentperiod integer,
    totalintax numeric,
    clientnr integer,
    contact text,
    company text,
    address text,
    zipcode text,
    city text,
    country integer,
    datesaved date,
    initialdate date,
    nextsenddate date,
    finalsenddate date,
    frequency text,
    repeattype text,
    email text,
    raw jsonb NOT NULL,
    raw_hash text,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    account_id integer NOT NULL
);

CREATE TABLE invoice_mirror_baseline.saved_invoices (
    id integer NOT NULL,
    name text,
    reference_line1 text,
    reference_line2 text,
    reference_line3 text,
    profile integer,
    discounttype text,
    discount numeric,
    paymentcondition text,
    paymentperiod integer,
    totalintax numeric,
    clientnr integer,
    contact text,
    company text,
    address text,
    zipcode text,
    city text,
    country integer,
    totaldiscount numeric,
    alreadypaid numeric,
    alreadypaidmethod text,
    raw jsonb NOT NULL,
    raw_hash text,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    account_id integer NOT NULL
);

CREATE VIEW invoice_mirror_baseline.client_overview AS
 WITH quotation_counts AS (
         SELECT quotations.clientnr,
            count(*) AS n
           FROM invoice_mirror_baseline.quotations
          WHERE (quotations.deleted_at IS NULL)
          GROUP BY quotations.clientnr
        ), open_quotation_counts AS (
         SELECT open_quotations.client_number AS clientnr,
            count(*) AS n,
            sum(open_quotations.total_incl_tax) AS total
           FROM invoice_mirror_baseline.open_quotations
          GROUP BY open_quotations.client_number
        ), saved_counts AS (
         SELECT saved_invoices.clientnr,
            count(*) AS n,
            sum(saved_invoices.totalintax) AS total
           FROM invoice_mirror_baseline.saved_invoices
          WHERE (saved_invoices.deleted_at IS NULL)
          GROUP BY saved_invoices.clientnr
        ), repeating_counts AS (
         SELECT repeating_invoices.clientnr,
            count(*) AS n,
            sum((repeating_invoices.totalintax * (invoice_mirror_baseline.sends_per_year(repeating_invoices.frequency))::numeric)) AS yearly
           FROM invoice_mirror_baseline.repeating_invoices
          WHERE (repeating_invoices.deleted_at IS NULL)
          GROUP BY repeating_invoices.clientnr
        )
 SELECT c.clientnr AS client_number,
    invoice_mirror_baseline.client_display_name(c.company, c.contact) AS client_name,
    c.city,
    c.active,
    c.lastinvoice AS last_invoice_date,
    (CURRENT_DATE - c.lastinvoice) AS days_since_last_invoice,
    (COALESCE(q.n, (0)::bigint))::integer AS quotation_count,
    (COALESCE(oq.n, (0)::bigint))::integer AS open_quotation_count,
    COALESCE(oq.total, (0)::numeric) AS open_quotation_total,
    (COALESCE(s.n, (0)::bigint))::integer AS saved_invoice_count,
    COALESCE(s.total, (0)::numeric) AS saved_invoice_total,
    (COALESCE(r.n, (0)::bigint))::integer AS repeating_invoice_count,
    round((COALESCE(r.yearly, (0)::numeric) / (12)::numeric), 2) AS monthly_recurring_amount,
    (((COALESCE(oq.n, (0)::bigint) + COALESCE(s.n, (0)::bigint)) + COALESCE(r.n, (0)::bigint)))::integer AS open_document_count
   FROM ((((invoice_mirror_baseline.clients c
     LEFT JOIN quotation_counts q ON ((q.clientnr = c.clientnr)))
     LEFT JOIN open_quotation_counts oq ON ((oq.clientnr = c.clientnr)))
     LEFT JOIN saved_counts s ON ((s.clientnr = c.clientnr)))
     LEFT JOIN repeating_counts r ON ((r.clientnr = c.clientnr)))
  WHERE (c.deleted_at IS NULL);

COMMENT ON VIEW invoice_mirror_baseline.client_overview IS 'One row per client: documents per client, open work and last invoice date. Open documents = open quotations (see open_quotations) + saved invoices not yet sent + repeating invoices.';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.client_number IS 'client number';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.client_name IS 'client name (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.city IS 'city of the client';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.active IS 'false for clients set to non-active (hidden in the web application)';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.last_invoice_date IS 'date the last invoice to this client was sent';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.days_since_last_invoice IS 'days from the last invoice date to today';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.quotation_count IS 'number of quotations (any state)';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.open_quotation_count IS 'quotations sent and waiting for an answer';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.open_quotation_total IS 'sum of the open quotations, including tax';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.saved_invoice_count IS 'saved invoices not yet sent';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.saved_invoice_total IS 'sum of the saved invoices, including tax';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.repeating_invoice_count IS 'repeating invoices';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.monthly_recurring_amount IS 'monthly amount of the repeating invoices (see recurring_revenue)';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.open_document_count IS 'open quotations + saved invoices + repeating invoices';

CREATE TABLE invoice_mirror_baseline.coordination_locks (
    purpose text NOT NULL,
    holder_pid integer,
    holder_role oid,
    holder_started timestamp with time zone,
    taken_at timestamp with time zone,
    waiter_pid integer,
    waiter_started timestamp with time zone,
    waiter_until timestamp with time zone,
    account_id integer NOT NULL,
    CONSTRAINT coordination_locks_purpose_check CHECK ((purpose = ANY (ARRAY['sync'::text, 'jobs'::text, 'service'::text])))
);

COMMENT ON TABLE invoice_mirror_baseline.coordination_locks IS 'The per-account locks: one pull (sync), one job (jobs) and one request to the service (service) at a time, across every process';

COMMENT ON COLUMN invoice_mirror_baseline.coordination_locks.purpose IS 'sync, jobs or service';

COMMENT ON COLUMN invoice_mirror_baseline.coordination_locks.holder_pid IS 'sync and jobs: the backend (pg_backend_pid) of the session holding the lock; empty: free';

COMMENT ON COLUMN invoice_mirror_baseline.coordination_locks.holder_role IS 'the oid of the role that session logged in as';

COMMENT ON COLUMN invoice_mirror_baseline.coordination_locks.holder_started IS 'when that session began (its backend_start): a later session with the same pid is another one';

COMMENT ON COLUMN invoice_mirror_baseline.coordination_locks.taken_at IS 'when the lock was last taken (sync and jobs)';

COMMENT ON COLUMN invoice_mirror_baseline.coordination_locks.waiter_pid IS 'jobs: the backend of a session waiting for the lock, whose turn is next';

COMMENT ON COLUMN invoice_mirror_baseline.coordination_locks.waiter_started IS 'when that session began';

COMMENT ON COLUMN invoice_mirror_baseline.coordination_locks.waiter_until IS 'until when the next turn is kept for it (it asks again while it waits)';

COMMENT ON COLUMN invoice_mirror_baseline.coordination_locks.account_id IS 'the account (accounts.id)';

CREATE TABLE invoice_mirror_baseline.countries (
    id integer NOT NULL,
    name text,
    raw jsonb NOT NULL,
    raw_hash text,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    account_id integer NOT NULL,
    iso2 text
);

CREATE TABLE invoice_mirror_baseline.daemons (
    id text NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    version text NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL,
    stopped_at timestamp with time zone,
    stop_reason text
);

COMMENT ON TABLE invoice_mirror_baseline.daemons IS 'Every daemon that served this mirror: alive while its heartbeat is younger than LEASE_SECONDS';

COMMENT ON COLUMN invoice_mirror_baseline.daemons.id IS 'host, process id and a random part: the application_name of its database sessions';

COMMENT ON COLUMN invoice_mirror_baseline.daemons.heartbeat_at IS 'when it last said it is alive (renewing its leases)';

COMMENT ON COLUMN invoice_mirror_baseline.daemons.stopped_at IS 'when it stopped, or was found dead by another daemon';

CREATE TABLE invoice_mirror_baseline.document_lines (
    document_type text NOT NULL,
    document_id integer NOT NULL,
    "position" integer NOT NULL,
    amount numeric,
    amount_desc text,
    description text,
    tax_rate numeric,
    price numeric,
    discount_pct numeric,
    linetotal numeric,
    account_id integer NOT NULL,
    CONSTRAINT document_lines_document_type_check CHECK ((document_type = ANY (ARRAY['quotation'::text, 'saved_invoice'::text, 'repeating_invoice'::text, 'invoice'::text])))
);

CREATE VIEW invoice_mirror_baseline.ending_repeating_invoices AS
 SELECT r.id AS repeating_invoice_id,
    r.name AS invoice_name,
    r.clientnr AS client_number,
    invoice_mirror_baseline.client_display_name(r.company, r.contact) AS client_name,
    lower(r.frequency) AS frequency,
    r.totalintax AS amount_per_invoice,
    r.nextsenddate AS next_send_date,
    r.finalsenddate AS final_send_date,
    (r.finalsenddate - CURRENT_DATE) AS days_until_end,
    remaining.sends AS sends_remaining,
    ((remaining.sends)::numeric * r.totalintax) AS remaining_amount
   FROM (invoice_mirror_baseline.repeating_invoices r
     CROSS JOIN LATERAL ( SELECT (count(*))::integer AS sends
           FROM generate_series((r.nextsenddate)::timestamp without time zone, (r.finalsenddate)::timestamp without time zone, invoice_mirror_baseline.frequency_step(r.frequency)) generate_series(generate_series)) remaining)
  WHERE ((r.deleted_at IS NULL) AND (r.finalsenddate IS NOT NULL));

COMMENT ON VIEW invoice_mirror_baseline.ending_repeating_invoices IS 'Repeating invoices that have a final send date: when they end, how many invoices they still send and for how much.';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.repeating_invoice_id IS 'id of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.invoice_name IS 'name of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.client_number IS 'number of the client invoiced';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.client_name IS 'client name as printed on the document (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.frequency IS 'how often it is sent';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.amount_per_invoice IS 'total including tax of each invoice sent';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.next_send_date IS 'date the next invoice is sent';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.final_send_date IS 'date of the last invoice; after it the repeating invoice is deleted';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.days_until_end IS 'days from today to the final send date';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.sends_remaining IS 'invoices still to be sent, from the next send date up to and including the final send date';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.remaining_amount IS 'sends remaining x amount per invoice';

CREATE TABLE invoice_mirror_baseline.entity_pulls (
    entity text NOT NULL,
    last_complete_at timestamp with time zone,
    last_complete_run_id bigint,
    since_cursor date,
    account_id integer NOT NULL
);

CREATE TABLE invoice_mirror_baseline.events (
    id bigint NOT NULL,
    type text NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    entity text NOT NULL,
    record_id text NOT NULL,
    body jsonb NOT NULL,
    change_id bigint,
    account_id integer NOT NULL
);

COMMENT ON TABLE invoice_mirror_baseline.events IS 'Business events (docs/events.md), written in the transaction of the change that caused them';

COMMENT ON COLUMN invoice_mirror_baseline.events.id IS 'the event''s id: its transaction''s id times 2^24 plus its place in it, so ids sort in commit order once published';

COMMENT ON COLUMN invoice_mirror_baseline.events.type IS 'what happened, e.g. invoice.paid (the list: docs/events.md)';

COMMENT ON COLUMN invoice_mirror_baseline.events.occurred_at IS 'when the mirror saw it happen (the change''s detected_at, or the job''s or run''s end)';

COMMENT ON COLUMN invoice_mirror_baseline.events.entity IS 'the table of the record it is about (or jobs, sync_runs, held_deletes)';

COMMENT ON COLUMN invoice_mirror_baseline.events.record_id IS 'the key of that record, as text';

COMMENT ON COLUMN invoice_mirror_baseline.events.body IS 'the record''s key fields, and for a change the fields before and after';

COMMENT ON COLUMN invoice_mirror_baseline.events.change_id IS 'the changes row it was derived from; empty for job, run and daily events';

CREATE TABLE invoice_mirror_baseline.fleet_leader (
    duty text NOT NULL,
    daemon_id text NOT NULL,
    elected_at timestamp with time zone DEFAULT now() NOT NULL,
    renewed_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT fleet_leader_duty_check CHECK ((duty = 'maintenance'::text))
);

COMMENT ON TABLE invoice_mirror_baseline.fleet_leader IS 'The daemon that runs the fleet''s maintenance (burying dead daemons, the orphan sweep, the overdue pass, SYNC_CRON''s all-due), until its lease runs out';

COMMENT ON COLUMN invoice_mirror_baseline.fleet_leader.duty IS 'maintenance (the one row)';

COMMENT ON COLUMN invoice_mirror_baseline.fleet_leader.daemon_id IS 'the leading daemon (daemons.id)';

COMMENT ON COLUMN invoice_mirror_baseline.fleet_leader.elected_at IS 'when that daemon took the lead';

COMMENT ON COLUMN invoice_mirror_baseline.fleet_leader.renewed_at IS 'when it last renewed its lease (at its heartbeat)';

COMMENT ON COLUMN invoice_mirror_baseline.fleet_leader.expires_at IS 'until when it leads unless it renews; after that the next daemon to ask takes the lead';

CREATE TABLE invoice_mirror_baseline.held_deletes (
    entity text NOT NULL,
    entity_id text NOT NULL,
    run_id bigint,
    held_at timestamp with time zone DEFAULT now() NOT NULL,
    account_id integer NOT NULL
);

COMMENT ON TABLE invoice_mirror_baseline.held_deletes IS 'Records a pull found missing upstream but did not mark deleted: too many at once (the delete safeguard)';

CREATE VIEW invoice_mirror_baseline.inactive_clients_with_open_documents AS
 SELECT client_overview.client_number,
    client_overview.client_name,
    client_overview.city,
    client_overview.last_invoice_date,
    client_overview.open_quotation_count,
    client_overview.saved_invoice_count,
    client_overview.repeating_invoice_count,
    client_overview.open_document_count
   FROM invoice_mirror_baseline.client_overview
  WHERE ((client_overview.active = false) AND (client_overview.open_document_count > 0));

COMMENT ON VIEW invoice_mirror_baseline.inactive_clients_with_open_documents IS 'Clients set to non-active that still have open documents (open quotations, saved invoices or repeating invoices): work that may be forgotten.';

COMMENT ON COLUMN invoice_mirror_baseline.inactive_clients_with_open_documents.client_number IS 'client number';

COMMENT ON COLUMN invoice_mirror_baseline.inactive_clients_with_open_documents.client_name IS 'client name (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.inactive_clients_with_open_documents.city IS 'city of the client';

COMMENT ON COLUMN invoice_mirror_baseline.inactive_clients_with_open_documents.last_invoice_date IS 'date the last invoice to this client was sent';

COMMENT ON COLUMN invoice_mirror_baseline.inactive_clients_with_open_documents.open_quotation_count IS 'quotations sent and waiting for an answer';

COMMENT ON COLUMN invoice_mirror_baseline.inactive_clients_with_open_documents.saved_invoice_count IS 'saved invoices not yet sent';

COMMENT ON COLUMN invoice_mirror_baseline.inactive_clients_with_open_documents.repeating_invoice_count IS 'repeating invoices';

COMMENT ON COLUMN invoice_mirror_baseline.inactive_clients_with_open_documents.open_document_count IS 'open quotations + saved invoices + repeating invoices';

CREATE TABLE invoice_mirror_baseline.invoice_pdfs (
    invoice_id integer NOT NULL,
    invoicenr text,
    pdf bytea NOT NULL,
    size_bytes integer NOT NULL,
    sha256 text NOT NULL,
    fetched_at timestamp with time zone DEFAULT now() NOT NULL,
    job_id bigint,
    account_id integer NOT NULL
);

CREATE TABLE invoice_mirror_baseline.invoices (
    id integer NOT NULL,
    invoicenr_full text,
    invoicenr text,
    reference_line1 text,
    reference_line2 text,
    reference_line3 text,
    profile integer,
    category integer,
    discounttype text,
    discount numeric,
    paymentcondition text,
    paymentperiod integer,
    collection boolean,
    tax numeric,
    totalintax numeric,
    clientnr integer,
    company text,
    contact text,
    address text,
    zipcode text,
    city text,
    country integer,
    phone text,
    mobile text,
    email text,
    taxnumber text,
    invoicenote text,
    sent date,
    uncollectible text,
    lastreminder date,
    open numeric,
    paiddate date,
    taxes jsonb,
    tax_type text,
    language text,
    tax_shifted boolean,
    payment_url text,
    duedate date,
    history jsonb,
    raw jsonb NOT NULL,
    raw_hash text,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    account_id integer NOT NULL
);

CREATE TABLE invoice_mirror_baseline.jobs (
    id bigint NOT NULL,
    kind text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 5 NOT NULL,
    run_after timestamp with time zone DEFAULT now() NOT NULL,
    idempotency_key text,
    result jsonb,
    last_error text,
    errors jsonb DEFAULT '[]'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    account_id integer NOT NULL,
    service_url text,
    CONSTRAINT jobs_max_attempts_check CHECK ((max_attempts > 0)),
    CONSTRAINT jobs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'succeeded'::text, 'failed'::text, 'cancelled'::text, 'interrupted'::text])))
);

COMMENT ON COLUMN invoice_mirror_baseline.jobs.service_url IS 'the API address of the service the job was queued for (its account''s, filled at insert): it runs only against that service; empty: queued before the account was bound, it takes the account''s service when it runs';

CREATE SEQUENCE invoice_mirror_baseline.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE invoice_mirror_baseline.jobs_id_seq OWNED BY invoice_mirror_baseline.jobs.id;

CREATE TABLE invoice_mirror_baseline.list_caps (
    list text NOT NULL,
    max_count integer NOT NULL,
    learned_at timestamp with time zone DEFAULT now() NOT NULL,
    run_id bigint,
    account_id integer NOT NULL,
    CONSTRAINT list_caps_max_count_check CHECK ((max_count > 0))
);

COMMENT ON TABLE invoice_mirror_baseline.list_caps IS 'The most records a list of the service answers per request, where it caps count';

CREATE TABLE invoice_mirror_baseline.products (
    id integer NOT NULL,
    code text,
    name text,
    price numeric,
    taxes numeric,
    priceintax numeric,
    notes text,
    stock numeric,
    stock_use boolean,
    raw jsonb NOT NULL,
    raw_hash text,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    account_id integer NOT NULL
);

CREATE VIEW invoice_mirror_baseline.product_stock AS
 SELECT p.id AS product_id,
    p.code AS product_code,
    p.name AS product_name,
    p.stock,
        CASE
            WHEN (p.stock IS NULL) THEN 'unknown'::text
            WHEN (p.stock < (0)::numeric) THEN 'negative'::text
            WHEN (p.stock = (0)::numeric) THEN 'out of stock'::text
            WHEN (p.stock < (5)::numeric) THEN 'low'::text
            ELSE 'in stock'::text
        END AS stock_status,
    p.price AS price_excl_tax,
    round((p.stock * p.price), 2) AS stock_value_excl_tax
   FROM invoice_mirror_baseline.products p
  WHERE ((p.deleted_at IS NULL) AND p.stock_use);

COMMENT ON VIEW invoice_mirror_baseline.product_stock IS 'Products whose stock is tracked, with stock value and status (negative, out of stock, low = fewer than 5 units, in stock).';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.product_id IS 'id of the product';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.product_code IS 'your own product code';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.product_name IS 'name shown on invoices';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.stock IS 'units in stock (can be negative)';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.stock_status IS 'negative, out of stock (0), low (fewer than 5), in stock; unknown when the service sent no number';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.price_excl_tax IS 'unit price excluding tax';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.stock_value_excl_tax IS 'stock x unit price excluding tax, rounded to cents';

CREATE VIEW invoice_mirror_baseline.low_stock_products AS
 SELECT product_stock.product_id,
    product_stock.product_code,
    product_stock.product_name,
    product_stock.stock,
    product_stock.stock_status,
    product_stock.price_excl_tax
   FROM invoice_mirror_baseline.product_stock
  WHERE (product_stock.stock_status = ANY (ARRAY['negative'::text, 'out of stock'::text, 'low'::text]));

COMMENT ON VIEW invoice_mirror_baseline.low_stock_products IS 'Stock-tracked products that need attention: negative stock, out of stock, or fewer than 5 units (see product_stock).';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.product_id IS 'id of the product';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.product_code IS 'your own product code';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.product_name IS 'name shown on invoices';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.stock IS 'units in stock (can be negative)';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.stock_status IS 'negative, out of stock (0) or low (fewer than 5)';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.price_excl_tax IS 'unit price excluding tax';

CREATE TABLE invoice_mirror_baseline.notification_channels (
    purpose text NOT NULL,
    channel text NOT NULL,
    CONSTRAINT notification_channels_purpose_check CHECK ((purpose = ANY (ARRAY['jobs'::text, 'events'::text])))
);

COMMENT ON TABLE invoice_mirror_baseline.notification_channels IS 'The NOTIFY channels of queued jobs and new events: readable only by roles that may run jobs (UPDATE on jobs)';

COMMENT ON COLUMN invoice_mirror_baseline.notification_channels.purpose IS 'jobs (a job was queued) or events (events were written)';

COMMENT ON COLUMN invoice_mirror_baseline.notification_channels.channel IS 'the channel''s name, with a random part no other role can read';

CREATE TABLE invoice_mirror_baseline.payments (
    id bigint NOT NULL,
    invoice_id integer NOT NULL,
    source text NOT NULL,
    paid_on date,
    detected_at timestamp with time zone DEFAULT now() NOT NULL,
    amount numeric,
    method text,
    job_id bigint,
    change_id bigint,
    account_id integer NOT NULL,
    CONSTRAINT payments_source_check CHECK ((source = ANY (ARRAY['registered'::text, 'observed'::text])))
);

COMMENT ON TABLE invoice_mirror_baseline.payments IS 'One row per payment of a sent invoice the mirror knows: registered by a register_payment job, or observed as a drop of the open amount between two reads; a registered payment seen again by a pull stays one row';

COMMENT ON COLUMN invoice_mirror_baseline.payments.id IS 'the payment''s number in the mirror';

COMMENT ON COLUMN invoice_mirror_baseline.payments.invoice_id IS 'the sent invoice paid (invoices.id)';

COMMENT ON COLUMN invoice_mirror_baseline.payments.source IS 'registered (the mirror registered it: a register_payment job) or observed (a pull or a job''s refresh saw open drop)';

COMMENT ON COLUMN invoice_mirror_baseline.payments.paid_on IS 'the payment date: the job''s date, or for an observed payment the paid date the service gave when the drop paid the invoice in full; empty when not known';

COMMENT ON COLUMN invoice_mirror_baseline.payments.detected_at IS 'when the mirror saw it: the change that showed the drop, or the job''s end';

COMMENT ON COLUMN invoice_mirror_baseline.payments.amount IS 'the amount paid; empty for a registered "full" payment until a pull shows how much was open';

COMMENT ON COLUMN invoice_mirror_baseline.payments.method IS 'how it was paid, as the job said (bank, cash, …); empty for an observed one';

COMMENT ON COLUMN invoice_mirror_baseline.payments.job_id IS 'the register_payment job that made it (jobs.id); empty for an observed one';

COMMENT ON COLUMN invoice_mirror_baseline.payments.change_id IS 'the changes row that showed the drop of open; empty for a registered payment not seen by a pull yet';

ALTER TABLE invoice_mirror_baseline.payments ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME invoice_mirror_baseline.payments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE invoice_mirror_baseline.pull_cursors (
    entity text NOT NULL,
    pass_run_id bigint NOT NULL,
    pass_started_at timestamp with time zone NOT NULL,
    table_was_empty boolean NOT NULL,
    next_start integer NOT NULL,
    last_page_start integer NOT NULL,
    last_page_ids text[] NOT NULL,
    seen_keys integer[] NOT NULL,
    unidentified integer DEFAULT 0 NOT NULL,
    fetched integer DEFAULT 0 NOT NULL,
    pages integer DEFAULT 0 NOT NULL,
    saved_at timestamp with time zone DEFAULT now() NOT NULL,
    account_id integer NOT NULL,
    CONSTRAINT pull_cursors_last_page_start_check CHECK ((last_page_start >= 0)),
    CONSTRAINT pull_cursors_next_start_check CHECK ((next_start >= 0))
);

COMMENT ON TABLE invoice_mirror_baseline.pull_cursors IS 'Full pulls under way: where each resumes (after a slice, a kill, a quota pause or a restart); a row goes when its pass completes';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.entity IS 'the table being pulled, e.g. clients';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.pass_run_id IS 'the sync run that began the pass (sync_runs.id); later slices are runs of their own';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.pass_started_at IS 'when the pass began (the database''s clock): the sweep spares rows changed since';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.table_was_empty IS 'the table held none of the account''s rows when the pass began (then nothing is swept)';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.next_start IS 'the offset (start=) of the next page to read';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.last_page_start IS 'the offset of the last page read';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.last_page_ids IS 'the ids on the last page read: the same page read again on resuming must hold them, or the list shifted and nothing is swept';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.seen_keys IS 'the keys the pass has seen so far (the sweep spares them)';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.unidentified IS 'records without a readable id met so far (while any, nothing is swept)';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.fetched IS 'records received by the pass so far';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.pages IS 'pages received by the pass so far';

COMMENT ON COLUMN invoice_mirror_baseline.pull_cursors.saved_at IS 'when the cursor was last saved';

CREATE VIEW invoice_mirror_baseline.quotation_pipeline AS
 SELECT staged.stage,
    staged.custom_status,
    staged.approved,
    (count(*))::integer AS quotation_count,
    COALESCE(sum(staged.totalintax), (0)::numeric) AS total_incl_tax,
    min(staged.date) AS oldest_quotation_date
   FROM ( SELECT
                CASE
                    WHEN (NOT COALESCE(q.sent, false)) THEN 'draft'::text
                    WHEN (lower(q.customstatus) = 'declined'::text) THEN 'declined'::text
                    WHEN (jsonb_typeof(q.approved) = 'object'::text) THEN 'approved'::text
                    ELSE 'open'::text
                END AS stage,
            COALESCE(NULLIF(lower(q.customstatus), ''::text), 'none'::text) AS custom_status,
            COALESCE((jsonb_typeof(q.approved) = 'object'::text), false) AS approved,
            q.totalintax,
            q.date
           FROM invoice_mirror_baseline.quotations q
          WHERE (q.deleted_at IS NULL)) staged
  GROUP BY staged.stage, staged.custom_status, staged.approved;

COMMENT ON VIEW invoice_mirror_baseline.quotation_pipeline IS 'Live quotations counted by stage and custom status. Stage: draft (not sent), declined (custom status declined), approved (approved by the client), open (sent, waiting for an answer).';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.stage IS 'draft (not sent), open (sent, waiting for an answer), approved, or declined';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.custom_status IS 'status set by hand: progress, completed, billable, declined; none when not set';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.approved IS 'whether the client approved these quotations';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.quotation_count IS 'number of quotations';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.total_incl_tax IS 'sum of their totals including tax';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.oldest_quotation_date IS 'date of the oldest quotation in the group';

CREATE VIEW invoice_mirror_baseline.recent_changes AS
 SELECT (changes.detected_at)::date AS day,
    changes.entity,
    (count(*) FILTER (WHERE (changes.op = 'insert'::text)))::integer AS inserted,
    (count(*) FILTER (WHERE (changes.op = 'update'::text)))::integer AS updated,
    (count(*) FILTER (WHERE (changes.op = 'delete'::text)))::integer AS deleted,
    (count(*) FILTER (WHERE (changes.op = 'restore'::text)))::integer AS restored,
    (count(*))::integer AS total_changes
   FROM invoice_mirror_baseline.changes
  WHERE (changes.detected_at >= (CURRENT_DATE - 30))
  GROUP BY ((changes.detected_at)::date), changes.entity;

COMMENT ON VIEW invoice_mirror_baseline.recent_changes IS 'History: the changes the mirror detected in the last 30 days (and today), counted per day and table, deleted records included. For older history or details, query changes.';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.day IS 'day the changes were detected (time zone of the database session)';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.entity IS 'table the changed records live in, e.g. clients';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.inserted IS 'records that appeared';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.updated IS 'records that changed';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.deleted IS 'records that disappeared from the service';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.restored IS 'records that came back after being deleted';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.total_changes IS 'all changes of the day for this table';

CREATE VIEW invoice_mirror_baseline.recurring_revenue AS
 SELECT r.id AS repeating_invoice_id,
    r.name AS invoice_name,
    r.clientnr AS client_number,
    invoice_mirror_baseline.client_display_name(r.company, r.contact) AS client_name,
    lower(r.frequency) AS frequency,
    invoice_mirror_baseline.sends_per_year(r.frequency) AS sends_per_year,
    r.totalintax AS amount_per_invoice,
    (r.totalintax * (invoice_mirror_baseline.sends_per_year(r.frequency))::numeric) AS yearly_amount,
    round(((r.totalintax * (invoice_mirror_baseline.sends_per_year(r.frequency))::numeric) / (12)::numeric), 2) AS monthly_amount,
    (lower(r.repeattype) = 'auto'::text) AS sent_automatically,
    r.nextsenddate AS next_send_date,
    (r.nextsenddate - CURRENT_DATE) AS days_until_next_send,
    r.finalsenddate AS final_send_date
   FROM invoice_mirror_baseline.repeating_invoices r
  WHERE (r.deleted_at IS NULL);

COMMENT ON VIEW invoice_mirror_baseline.recurring_revenue IS 'Repeating invoices with their amount converted to a monthly and a yearly amount. Monthly amount = amount per invoice x sends per year / 12, where sends per year by frequency is weekly 52, biweekly 26, fourweekly 13, monthly 12, bimonthly 6, quarterly 4, halfyearly 2, yearly 1 (so weekly x52/12, biweekly x26/12, fourweekly x13/12, monthly x1, bimonthly x1/2, quarterly x1/3, halfyearly x1/6, yearly x1/12). Frequencies compare case-insensitively; an unknown one gives NULL amounts.';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.repeating_invoice_id IS 'id of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.invoice_name IS 'name of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.client_number IS 'number of the client invoiced';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.client_name IS 'client name as printed on the document (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.frequency IS 'how often it is sent: weekly, biweekly, fourweekly, monthly, bimonthly, quarterly, halfyearly, yearly';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.sends_per_year IS 'invoices sent per year at this frequency';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.amount_per_invoice IS 'total including tax of each invoice sent';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.yearly_amount IS 'amount per invoice x sends per year';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.monthly_amount IS 'yearly amount / 12, rounded to cents';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.sent_automatically IS 'true when the service sends it by itself (repeat type auto), false when someone sends it by hand';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.next_send_date IS 'date the next invoice is sent';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.days_until_next_send IS 'days from today to the next send date (negative when the mirror is behind)';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.final_send_date IS 'date of the last invoice; empty when it repeats without end';

CREATE VIEW invoice_mirror_baseline.recurring_revenue_by_frequency AS
 SELECT
        CASE
            WHEN (GROUPING(lower(repeating_invoices.frequency)) = 1) THEN 'all frequencies'::text
            ELSE lower(repeating_invoices.frequency)
        END AS frequency,
        CASE
            WHEN (GROUPING(lower(repeating_invoices.frequency)) = 0) THEN max(invoice_mirror_baseline.sends_per_year(repeating_invoices.frequency))
            ELSE NULL::integer
        END AS sends_per_year,
    (count(*))::integer AS repeating_invoice_count,
    COALESCE(sum((repeating_invoices.totalintax * (invoice_mirror_baseline.sends_per_year(repeating_invoices.frequency))::numeric)), (0)::numeric) AS yearly_amount,
    round((COALESCE(sum((repeating_invoices.totalintax * (invoice_mirror_baseline.sends_per_year(repeating_invoices.frequency))::numeric)), (0)::numeric) / (12)::numeric), 2) AS monthly_amount
   FROM invoice_mirror_baseline.repeating_invoices
  WHERE (repeating_invoices.deleted_at IS NULL)
  GROUP BY ROLLUP((lower(repeating_invoices.frequency)));

COMMENT ON VIEW invoice_mirror_baseline.recurring_revenue_by_frequency IS 'Recurring revenue per frequency, plus a final row "all frequencies" with the totals. Monthly amount = sum of (amount per invoice x sends per year) / 12, rounded to cents (see recurring_revenue).';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.frequency IS 'how often the invoices are sent; "all frequencies" on the totals row';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.sends_per_year IS 'invoices sent per year at this frequency (empty on the totals row)';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.repeating_invoice_count IS 'number of repeating invoices';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.yearly_amount IS 'sum of amount per invoice x sends per year, including tax';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.monthly_amount IS 'yearly amount / 12, rounded to cents';

CREATE TABLE invoice_mirror_baseline.rejected_values (
    entity text NOT NULL,
    entity_id text NOT NULL,
    field text NOT NULL,
    action text NOT NULL,
    value text NOT NULL,
    reason text NOT NULL,
    first_run_id bigint,
    last_run_id bigint,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    account_id integer NOT NULL,
    CONSTRAINT rejected_values_action_check CHECK ((action = ANY (ARRAY['rejected'::text, 'repaired'::text, 'skipped'::text])))
);

COMMENT ON TABLE invoice_mirror_baseline.rejected_values IS 'Values the mirror stores other than as the service sent them, until the record is stored whole again';

CREATE VIEW invoice_mirror_baseline.saved_invoices_by_client AS
 SELECT s.clientnr AS client_number,
    COALESCE(invoice_mirror_baseline.client_display_name(c.company, c.contact), (array_agg(invoice_mirror_baseline.client_display_name(s.company, s.contact) ORDER BY s.id DESC))[1]) AS client_name,
    (count(*))::integer AS saved_invoice_count,
    COALESCE(sum(s.totalintax), (0)::numeric) AS total_incl_tax,
    COALESCE(sum(s.totaldiscount), (0)::numeric) AS total_discount,
    COALESCE(sum(s.alreadypaid), (0)::numeric) AS already_paid,
    (COALESCE(sum(s.totalintax), (0)::numeric) - COALESCE(sum(s.alreadypaid), (0)::numeric)) AS still_to_pay
   FROM (invoice_mirror_baseline.saved_invoices s
     LEFT JOIN invoice_mirror_baseline.clients c ON (((c.clientnr = s.clientnr) AND (c.deleted_at IS NULL))))
  WHERE (s.deleted_at IS NULL)
  GROUP BY s.clientnr, c.company, c.contact;

COMMENT ON VIEW invoice_mirror_baseline.saved_invoices_by_client IS 'Saved invoices (drafts not yet sent) per client, with their totals and what is still to be paid.';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.client_number IS 'client number on the invoices (0: no client)';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.client_name IS 'client name (company, or contact when there is no company); from the client record, or from the newest invoice when the client is gone';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.saved_invoice_count IS 'number of saved invoices';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.total_incl_tax IS 'sum of the invoice totals including tax';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.total_discount IS 'sum of the discounts given on the invoices';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.already_paid IS 'sum of the amounts already marked as paid';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.still_to_pay IS 'total including tax minus what is already paid';

CREATE TABLE invoice_mirror_baseline.sync_runs (
    id bigint NOT NULL,
    kind text NOT NULL,
    status text DEFAULT 'running'::text NOT NULL,
    entities text[] DEFAULT '{}'::text[] NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    counts jsonb DEFAULT '{}'::jsonb NOT NULL,
    requests_made integer DEFAULT 0 NOT NULL,
    error text,
    rate_limit_remaining integer,
    account_id integer NOT NULL,
    CONSTRAINT sync_runs_kind_check CHECK ((kind = ANY (ARRAY['backfill'::text, 'sync'::text, 'refresh'::text]))),
    CONSTRAINT sync_runs_status_check CHECK ((status = ANY (ARRAY['running'::text, 'succeeded'::text, 'failed'::text, 'partial'::text, 'interrupted'::text])))
);

CREATE SEQUENCE invoice_mirror_baseline.sync_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE invoice_mirror_baseline.sync_runs_id_seq OWNED BY invoice_mirror_baseline.sync_runs.id;

CREATE TABLE invoice_mirror_baseline.taxes (
    rate_key integer NOT NULL,
    percentage numeric,
    type text,
    "default" boolean,
    country text,
    raw jsonb NOT NULL,
    raw_hash text,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    account_id integer NOT NULL
);

CREATE VIEW invoice_mirror_baseline.upcoming_repeating_sends AS
 SELECT r.id AS repeating_invoice_id,
    r.name AS invoice_name,
    r.clientnr AS client_number,
    invoice_mirror_baseline.client_display_name(r.company, r.contact) AS client_name,
    (d.send_date)::date AS send_date,
    lower(r.frequency) AS frequency,
    r.totalintax AS amount_incl_tax,
    (lower(r.repeattype) = 'auto'::text) AS sent_automatically
   FROM (invoice_mirror_baseline.repeating_invoices r
     CROSS JOIN LATERAL generate_series((r.nextsenddate)::timestamp without time zone, LEAST((r.finalsenddate)::timestamp without time zone, ((CURRENT_DATE + '1 year'::interval) - '1 day'::interval)), invoice_mirror_baseline.frequency_step(r.frequency)) d(send_date))
  WHERE (r.deleted_at IS NULL);

COMMENT ON VIEW invoice_mirror_baseline.upcoming_repeating_sends IS 'Every invoice the repeating invoices will send in the coming year: one row per send date, from the next send date on, each one step of the frequency after the previous (weekly 7 days, biweekly 14, fourweekly 28, monthly 1 month, bimonthly 2, quarterly 3, halfyearly 6, yearly 12; a monthly send on the 31st moves to the 28th in February and stays there), up to the final send date and to before the same day next year.';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.repeating_invoice_id IS 'id of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.invoice_name IS 'name of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.client_number IS 'number of the client invoiced';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.client_name IS 'client name as printed on the document (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.send_date IS 'date this invoice is sent';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.frequency IS 'how often the repeating invoice is sent';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.amount_incl_tax IS 'total including tax of the invoice sent on this date';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.sent_automatically IS 'true when the service sends it by itself, false when someone sends it by hand';

CREATE TABLE invoice_mirror_baseline.webhook_attempts (
    id bigint NOT NULL,
    delivery_id bigint NOT NULL,
    attempted_at timestamp with time zone DEFAULT now() NOT NULL,
    status integer,
    duration_ms integer NOT NULL,
    response text,
    error text,
    account_id integer NOT NULL
);

COMMENT ON TABLE invoice_mirror_baseline.webhook_attempts IS 'Every try of a webhook delivery, with what the receiver answered';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_attempts.delivery_id IS 'the delivery (webhook_deliveries.id)';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_attempts.attempted_at IS 'when it was sent';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_attempts.status IS 'the HTTP status answered; empty when none came';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_attempts.duration_ms IS 'how long the receiver took (or until the error)';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_attempts.response IS 'the first bytes of the answer';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_attempts.error IS 'why no answer came (refused, timed out, a private address), or the status''s meaning';

ALTER TABLE invoice_mirror_baseline.webhook_attempts ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME invoice_mirror_baseline.webhook_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE invoice_mirror_baseline.webhook_deliveries (
    id bigint NOT NULL,
    subscription_id integer NOT NULL,
    event_id bigint NOT NULL,
    entity text NOT NULL,
    record_id text NOT NULL,
    state text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    failures integer DEFAULT 0 NOT NULL,
    due_at timestamp with time zone DEFAULT now() NOT NULL,
    delivered_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    account_id integer NOT NULL,
    CONSTRAINT webhook_deliveries_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'delivered'::text])))
);

COMMENT ON TABLE invoice_mirror_baseline.webhook_deliveries IS 'One event for one subscription: pending until the receiver answered 2xx, in order per record';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_deliveries.subscription_id IS 'the subscription (webhook_subscriptions.id)';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_deliveries.event_id IS 'the event (events.id); its webhook-id is evt_ and this number';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_deliveries.entity IS 'the event''s entity: a record''s deliveries go out in order';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_deliveries.record_id IS 'the event''s record id';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_deliveries.state IS 'pending (to be sent, or being sent) or delivered';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_deliveries.attempts IS 'how many times it was sent';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_deliveries.failures IS 'failed attempts since the last success, retry or resume: picks the next delay';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_deliveries.due_at IS 'when it is sent next (infinity: waiting behind an earlier event of its record; while being sent: when another daemon may take it over)';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_deliveries.delivered_at IS 'when the receiver accepted it';

ALTER TABLE invoice_mirror_baseline.webhook_deliveries ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME invoice_mirror_baseline.webhook_deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE invoice_mirror_baseline.webhook_subscriptions (
    id integer NOT NULL,
    url text NOT NULL,
    secret text NOT NULL,
    event_types text[],
    state text DEFAULT 'active'::text NOT NULL,
    state_reason text,
    state_changed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    account_id integer,
    CONSTRAINT webhook_subscriptions_state_check CHECK ((state = ANY (ARRAY['active'::text, 'paused'::text])))
);

COMMENT ON TABLE invoice_mirror_baseline.webhook_subscriptions IS 'Where events are pushed, signed by the Standard Webhooks convention';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_subscriptions.url IS 'the receiver (http or https)';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_subscriptions.secret IS 'the whsec_ signing secret, encrypted with AES-256-GCM under ACCOUNTS_SECRET (never the secret itself)';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_subscriptions.event_types IS 'the event types it receives; empty: every type';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_subscriptions.state IS 'active (delivered to), paused (by a person, or after a day of failures: deliveries wait)';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_subscriptions.state_reason IS 'why it is paused';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_subscriptions.state_changed_at IS 'when it was last paused or resumed';

COMMENT ON COLUMN invoice_mirror_baseline.webhook_subscriptions.account_id IS 'the one account whose events it receives; empty: every account';

ALTER TABLE invoice_mirror_baseline.webhook_subscriptions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME invoice_mirror_baseline.webhook_subscriptions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN id SET DEFAULT nextval('invoice_mirror_baseline.changes_id_seq'::regclass);

ALTER TABLE ONLY invoice_mirror_baseline.jobs ALTER COLUMN id SET DEFAULT nextval('invoice_mirror_baseline.jobs_id_seq'::regclass);

ALTER TABLE ONLY invoice_mirror_baseline.sync_runs ALTER COLUMN id SET DEFAULT nextval('invoice_mirror_baseline.sync_runs_id_seq'::regclass);

INSERT INTO invoice_mirror_baseline.notification_channels VALUES ('jobs', 'im_jobs_' || replace(gen_random_uuid()::text, '-', ''));
INSERT INTO invoice_mirror_baseline.notification_channels VALUES ('events', 'im_events_' || replace(gen_random_uuid()::text, '-', ''));

SELECT pg_catalog.setval('invoice_mirror_baseline.accounts_id_seq', 1, false);

SELECT pg_catalog.setval('invoice_mirror_baseline.changes_id_seq', 1, false);

SELECT pg_catalog.setval('invoice_mirror_baseline.jobs_id_seq', 1, false);

SELECT pg_catalog.setval('invoice_mirror_baseline.payments_id_seq', 1, false);

SELECT pg_catalog.setval('invoice_mirror_baseline.sync_runs_id_seq', 1, false);

SELECT pg_catalog.setval('invoice_mirror_baseline.webhook_attempts_id_seq', 1, false);

SELECT pg_catalog.setval('invoice_mirror_baseline.webhook_deliveries_id_seq', 1, false);

SELECT pg_catalog.setval('invoice_mirror_baseline.webhook_subscriptions_id_seq', 1, false);

ALTER TABLE ONLY invoice_mirror_baseline.account_leases
    ADD CONSTRAINT account_leases_pkey PRIMARY KEY (account_id);

ALTER TABLE ONLY invoice_mirror_baseline.account_roles
    ADD CONSTRAINT account_roles_pkey PRIMARY KEY (account_id, role_name);

ALTER TABLE ONLY invoice_mirror_baseline.accounts
    ADD CONSTRAINT accounts_name_key UNIQUE (name);

ALTER TABLE ONLY invoice_mirror_baseline.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY invoice_mirror_baseline.categories
    ADD CONSTRAINT categories_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.changes
    ADD CONSTRAINT changes_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.clients
    ADD CONSTRAINT clients_pkey PRIMARY KEY (account_id, clientnr);

ALTER TABLE ONLY invoice_mirror_baseline.coordination_locks
    ADD CONSTRAINT coordination_locks_pkey PRIMARY KEY (account_id, purpose);

ALTER TABLE ONLY invoice_mirror_baseline.countries
    ADD CONSTRAINT countries_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.daemons
    ADD CONSTRAINT daemons_pkey PRIMARY KEY (id);

ALTER TABLE ONLY invoice_mirror_baseline.document_lines
    ADD CONSTRAINT document_lines_pkey PRIMARY KEY (account_id, document_type, document_id, "position");

ALTER TABLE ONLY invoice_mirror_baseline.entity_pulls
    ADD CONSTRAINT entity_pulls_pkey PRIMARY KEY (account_id, entity);

ALTER TABLE ONLY invoice_mirror_baseline.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.fleet_leader
    ADD CONSTRAINT fleet_leader_pkey PRIMARY KEY (duty);

ALTER TABLE ONLY invoice_mirror_baseline.held_deletes
    ADD CONSTRAINT held_deletes_pkey PRIMARY KEY (account_id, entity, entity_id);

ALTER TABLE ONLY invoice_mirror_baseline.invoice_pdfs
    ADD CONSTRAINT invoice_pdfs_pkey PRIMARY KEY (account_id, invoice_id);

ALTER TABLE ONLY invoice_mirror_baseline.invoices
    ADD CONSTRAINT invoices_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.jobs
    ADD CONSTRAINT jobs_idempotency_key_key UNIQUE (account_id, idempotency_key);

ALTER TABLE ONLY invoice_mirror_baseline.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.list_caps
    ADD CONSTRAINT list_caps_pkey PRIMARY KEY (account_id, list);

ALTER TABLE ONLY invoice_mirror_baseline.notification_channels
    ADD CONSTRAINT notification_channels_channel_key UNIQUE (channel);

ALTER TABLE ONLY invoice_mirror_baseline.notification_channels
    ADD CONSTRAINT notification_channels_pkey PRIMARY KEY (purpose);

ALTER TABLE ONLY invoice_mirror_baseline.payments
    ADD CONSTRAINT payments_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.products
    ADD CONSTRAINT products_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.pull_cursors
    ADD CONSTRAINT pull_cursors_pkey PRIMARY KEY (account_id, entity);

ALTER TABLE ONLY invoice_mirror_baseline.quotations
    ADD CONSTRAINT quotations_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.rejected_values
    ADD CONSTRAINT rejected_values_pkey PRIMARY KEY (account_id, entity, entity_id, field);

ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices
    ADD CONSTRAINT repeating_invoices_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices
    ADD CONSTRAINT saved_invoices_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.sync_runs
    ADD CONSTRAINT sync_runs_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.taxes
    ADD CONSTRAINT taxes_pkey PRIMARY KEY (account_id, rate_key);

ALTER TABLE ONLY invoice_mirror_baseline.webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (account_id, id);

ALTER TABLE ONLY invoice_mirror_baseline.webhook_subscriptions
    ADD CONSTRAINT webhook_subscriptions_pkey PRIMARY KEY (id);

CREATE INDEX account_leases_due ON invoice_mirror_baseline.account_leases USING btree (due_at);

CREATE INDEX account_leases_work_due ON invoice_mirror_baseline.account_leases USING btree (work_due_at);

CREATE INDEX categories_deleted_at ON invoice_mirror_baseline.categories USING btree (account_id, deleted_at) WHERE (deleted_at IS NOT NULL);

CREATE INDEX changes_detected_at ON invoice_mirror_baseline.changes USING brin (detected_at);

CREATE INDEX changes_entity ON invoice_mirror_baseline.changes USING btree (account_id, entity, entity_id);

CREATE INDEX changes_sync_run ON invoice_mirror_baseline.changes USING brin (sync_run_id);

CREATE INDEX clients_deleted_at ON invoice_mirror_baseline.clients USING btree (account_id, deleted_at) WHERE (deleted_at IS NOT NULL);

CREATE INDEX countries_deleted_at ON invoice_mirror_baseline.countries USING btree (account_id, deleted_at) WHERE (deleted_at IS NOT NULL);

CREATE INDEX countries_iso2 ON invoice_mirror_baseline.countries USING btree (account_id, iso2);

CREATE INDEX events_id ON invoice_mirror_baseline.events USING btree (id);

CREATE UNIQUE INDEX events_overdue_once ON invoice_mirror_baseline.events USING btree (account_id, record_id) WHERE (type = 'invoice.overdue'::text);

CREATE INDEX invoices_clientnr ON invoice_mirror_baseline.invoices USING btree (account_id, clientnr);

CREATE INDEX invoices_deleted_at ON invoice_mirror_baseline.invoices USING btree (account_id, deleted_at) WHERE (deleted_at IS NOT NULL);

CREATE UNIQUE INDEX invoices_invoicenr ON invoice_mirror_baseline.invoices USING btree (account_id, invoicenr) WHERE ((deleted_at IS NULL) AND (invoicenr <> ''::text));

CREATE INDEX invoices_open ON invoice_mirror_baseline.invoices USING btree (account_id, id) WHERE ((open <> (0)::numeric) AND (deleted_at IS NULL));

CREATE INDEX invoices_sent ON invoice_mirror_baseline.invoices USING btree (account_id, sent);

CREATE INDEX jobs_id ON invoice_mirror_baseline.jobs USING btree (id);

CREATE INDEX jobs_runnable ON invoice_mirror_baseline.jobs USING btree (account_id, run_after, id) WHERE (status = 'queued'::text);

CREATE INDEX jobs_status ON invoice_mirror_baseline.jobs USING btree (account_id, status);

CREATE INDEX payments_invoice ON invoice_mirror_baseline.payments USING btree (account_id, invoice_id);

CREATE UNIQUE INDEX payments_job ON invoice_mirror_baseline.payments USING btree (account_id, job_id) WHERE (job_id IS NOT NULL);

CREATE INDEX products_deleted_at ON invoice_mirror_baseline.products USING btree (account_id, deleted_at) WHERE (deleted_at IS NOT NULL);

CREATE INDEX quotations_clientnr ON invoice_mirror_baseline.quotations USING btree (account_id, clientnr);

CREATE INDEX quotations_date ON invoice_mirror_baseline.quotations USING btree (account_id, date);

CREATE INDEX quotations_deleted_at ON invoice_mirror_baseline.quotations USING btree (account_id, deleted_at) WHERE (deleted_at IS NOT NULL);

CREATE INDEX repeating_invoices_clientnr ON invoice_mirror_baseline.repeating_invoices USING btree (account_id, clientnr);

CREATE INDEX repeating_invoices_deleted_at ON invoice_mirror_baseline.repeating_invoices USING btree (account_id, deleted_at) WHERE (deleted_at IS NOT NULL);

CREATE INDEX repeating_invoices_nextsenddate ON invoice_mirror_baseline.repeating_invoices USING btree (account_id, nextsenddate);

CREATE INDEX saved_invoices_clientnr ON invoice_mirror_baseline.saved_invoices USING btree (account_id, clientnr);

CREATE INDEX saved_invoices_deleted_at ON invoice_mirror_baseline.saved_invoices USING btree (account_id, deleted_at) WHERE (deleted_at IS NOT NULL);

CREATE INDEX sync_runs_id ON invoice_mirror_baseline.sync_runs USING btree (id);

CREATE INDEX sync_runs_started_at ON invoice_mirror_baseline.sync_runs USING btree (account_id, started_at DESC);

CREATE INDEX taxes_deleted_at ON invoice_mirror_baseline.taxes USING btree (account_id, deleted_at) WHERE (deleted_at IS NOT NULL);

CREATE INDEX webhook_attempts_delivery ON invoice_mirror_baseline.webhook_attempts USING btree (account_id, delivery_id, id);

CREATE INDEX webhook_deliveries_due ON invoice_mirror_baseline.webhook_deliveries USING btree (due_at) WHERE (state = 'pending'::text);

CREATE INDEX webhook_deliveries_record ON invoice_mirror_baseline.webhook_deliveries USING btree (account_id, subscription_id, entity, record_id, event_id) WHERE (state = 'pending'::text);

CREATE INDEX webhook_deliveries_subscription ON invoice_mirror_baseline.webhook_deliveries USING btree (subscription_id, event_id);

CREATE TRIGGER account_lease_row AFTER INSERT ON invoice_mirror_baseline.accounts FOR EACH ROW EXECUTE FUNCTION invoice_mirror_baseline.account_lease_row();

CREATE TRIGGER account_leases_follow_job_deletes AFTER DELETE ON invoice_mirror_baseline.jobs REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_leases_follow_jobs();

CREATE TRIGGER account_leases_follow_job_inserts AFTER INSERT ON invoice_mirror_baseline.jobs REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_leases_follow_jobs();

CREATE TRIGGER account_leases_follow_job_updates AFTER UPDATE ON invoice_mirror_baseline.jobs REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_leases_follow_jobs();

CREATE TRIGGER account_leases_follow_state AFTER UPDATE OF state ON invoice_mirror_baseline.accounts FOR EACH ROW WHEN ((old.state IS DISTINCT FROM new.state)) EXECUTE FUNCTION invoice_mirror_baseline.account_leases_follow_state();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.changes REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.clients REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.countries REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.document_lines REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.events REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.invoices REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.payments REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.products REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.quotations REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.repeating_invoices REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_inserted AFTER INSERT ON invoice_mirror_baseline.saved_invoices REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_kept BEFORE DELETE OR UPDATE OF id ON invoice_mirror_baseline.accounts FOR EACH ROW EXECUTE FUNCTION invoice_mirror_baseline.account_rows_kept('changes', 'events', 'document_lines', 'payments', 'clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices', 'invoices', 'countries');

CREATE TRIGGER account_rows_kept_truncate BEFORE TRUNCATE ON invoice_mirror_baseline.accounts FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_kept('changes', 'events', 'document_lines', 'payments', 'clients', 'products', 'quotations', 'saved_invoices', 'repeating_invoices', 'invoices', 'countries');

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.changes REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.clients REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.countries REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.document_lines REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.events REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.invoices REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.payments REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.products REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.quotations REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.repeating_invoices REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER account_rows_updated AFTER UPDATE ON invoice_mirror_baseline.saved_invoices REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.account_rows_exist();

CREATE TRIGGER jobs_account BEFORE INSERT ON invoice_mirror_baseline.jobs FOR EACH ROW WHEN ((new.account_id IS NULL)) EXECUTE FUNCTION invoice_mirror_baseline.jobs_account();

CREATE TRIGGER jobs_notify AFTER INSERT OR UPDATE OF status, run_after ON invoice_mirror_baseline.jobs FOR EACH ROW WHEN ((new.status = 'queued'::text)) EXECUTE FUNCTION invoice_mirror_baseline.jobs_notify();

CREATE TRIGGER jobs_service BEFORE INSERT ON invoice_mirror_baseline.jobs FOR EACH ROW WHEN ((new.service_url IS NULL)) EXECUTE FUNCTION invoice_mirror_baseline.jobs_service();

CREATE TRIGGER payments_from_changes AFTER INSERT ON invoice_mirror_baseline.changes REFERENCING NEW TABLE AS new_changes FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.payments_from_changes();

CREATE TRIGGER payments_from_jobs AFTER UPDATE OF status ON invoice_mirror_baseline.jobs FOR EACH ROW WHEN (((new.status = 'succeeded'::text) AND (old.status IS DISTINCT FROM 'succeeded'::text) AND (new.kind = 'register_payment'::text) AND ((new.payload ->> 'id'::text) ~ '^[0-9]+$'::text))) EXECUTE FUNCTION invoice_mirror_baseline.payments_from_jobs();

ALTER TABLE ONLY invoice_mirror_baseline.account_leases
    ADD CONSTRAINT account_leases_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id) ON DELETE CASCADE;

ALTER TABLE ONLY invoice_mirror_baseline.account_roles
    ADD CONSTRAINT account_roles_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.categories
    ADD CONSTRAINT categories_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.coordination_locks
    ADD CONSTRAINT coordination_locks_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id) ON DELETE CASCADE;

ALTER TABLE ONLY invoice_mirror_baseline.entity_pulls
    ADD CONSTRAINT entity_pulls_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.held_deletes
    ADD CONSTRAINT held_deletes_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.invoice_pdfs
    ADD CONSTRAINT invoice_pdfs_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.jobs
    ADD CONSTRAINT jobs_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.list_caps
    ADD CONSTRAINT list_caps_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.pull_cursors
    ADD CONSTRAINT pull_cursors_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id) ON DELETE CASCADE;

ALTER TABLE ONLY invoice_mirror_baseline.rejected_values
    ADD CONSTRAINT rejected_values_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.sync_runs
    ADD CONSTRAINT sync_runs_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.taxes
    ADD CONSTRAINT taxes_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.webhook_attempts
    ADD CONSTRAINT webhook_attempts_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id);

ALTER TABLE ONLY invoice_mirror_baseline.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES invoice_mirror_baseline.webhook_subscriptions(id) ON DELETE CASCADE;

ALTER TABLE ONLY invoice_mirror_baseline.webhook_subscriptions
    ADD CONSTRAINT webhook_subscriptions_account_id_fkey FOREIGN KEY (account_id) REFERENCES invoice_mirror_baseline.accounts(id) ON DELETE CASCADE;

CREATE POLICY channel_readers ON invoice_mirror_baseline.notification_channels FOR SELECT USING (has_table_privilege(CURRENT_USER, ('invoice_mirror_baseline.jobs'::regclass)::oid, 'UPDATE'::text));

COMMENT ON POLICY channel_readers ON invoice_mirror_baseline.notification_channels IS 'Only a role that may update jobs reads the channels';

ALTER TABLE invoice_mirror_baseline.fleet_leader ENABLE ROW LEVEL SECURITY;

CREATE POLICY leader_readers ON invoice_mirror_baseline.fleet_leader FOR SELECT USING (has_table_privilege(CURRENT_USER, ('invoice_mirror_baseline.jobs'::regclass)::oid, 'UPDATE'::text));

COMMENT ON POLICY leader_readers ON invoice_mirror_baseline.fleet_leader IS 'Only a role that may update jobs reads the leader';

ALTER TABLE invoice_mirror_baseline.notification_channels ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON TABLE invoice_mirror_baseline.visible_account_ids TO PUBLIC;
`,
  /** The columns the migrations compress with lz4 where the server has it. */
  lz4: `
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN entity SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN entity_id SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN op SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN changed_fields SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN before SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN after SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN contact SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN company SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN address SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN address_addon SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN zipcode SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN city SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN phone SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN mobile SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN email SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN addon SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN bankcode SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN biccode SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN taxnumber SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN sendmethod SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN paymentmethod SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN mailintro SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN reference_line1 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN reference_line2 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN reference_line3 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN notes SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN default_doclang SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN email_reminder SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN currency SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN mandate_id SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN collecttype SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN tax_type SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN raw SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.clients ALTER COLUMN raw_hash SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN sendmethod SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN savename SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN quotationreference SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN reference_line1 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN reference_line2 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN reference_line3 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN profile_name SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN category_name SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN discounttype SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN paymentcondition SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN notes SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN customstatus SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN approved SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN contact SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN company SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN address SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN zipcode SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN city SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN phone SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN mobile SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN email SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN sign_url SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN raw SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.quotations ALTER COLUMN raw_hash SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN name SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN reference_line1 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN reference_line2 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN reference_line3 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN discounttype SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN paymentcondition SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN contact SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN company SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN address SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN zipcode SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN city SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN frequency SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN repeattype SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN email SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN raw SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.repeating_invoices ALTER COLUMN raw_hash SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN name SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN reference_line1 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN reference_line2 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN reference_line3 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN discounttype SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN paymentcondition SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN contact SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN company SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN address SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN zipcode SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN city SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN alreadypaidmethod SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN raw SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.saved_invoices ALTER COLUMN raw_hash SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.countries ALTER COLUMN name SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.countries ALTER COLUMN raw SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.countries ALTER COLUMN raw_hash SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.document_lines ALTER COLUMN document_type SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.document_lines ALTER COLUMN amount_desc SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.document_lines ALTER COLUMN description SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN invoicenr_full SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN invoicenr SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN reference_line1 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN reference_line2 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN reference_line3 SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN discounttype SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN paymentcondition SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN company SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN contact SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN address SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN zipcode SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN city SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN phone SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN mobile SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN email SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN taxnumber SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN invoicenote SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN uncollectible SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN taxes SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN tax_type SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN language SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN payment_url SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN history SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN raw SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.invoices ALTER COLUMN raw_hash SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.products ALTER COLUMN code SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.products ALTER COLUMN name SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.products ALTER COLUMN notes SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.products ALTER COLUMN raw SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.products ALTER COLUMN raw_hash SET COMPRESSION lz4;
`,
} as const;
