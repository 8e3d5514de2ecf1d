// Written by scripts/baseline.mjs (pg_dump of the schema the migrations and the repeatable step leave): do not edit.
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
  /** The repeatables it holds, with the hash of what each made (one whose hash changed since is applied again). */
  repeatables: {
    column_comments: '1180e1ead86f3cea66fa50f0b6413fa16a17d995e6c4bf9d0c02737bac6951d0',
    country_codes: '3911de831a08cd22b3798fbf6ce17eba928fc35b4ed94b48f9acaa47ec3027d8',
    report_views: 'dd8a48ce5b8e3523af6cf08101deb983c2b9c88d89816584d086c4bc3b72eb3a',
    job_kinds: 'b44b320f0e6c8b7a978bd6fe0309df6b7c4c5cc7df070017fb5c9391fb3c91ed',
    event_triggers: 'e2c2d400ffacda2439db51aa155e17ceb0cf4320e126d25d2a16e498954ad1e3',
    row_security: 'a00fda60c47da621032f111d0a3c3796590fcb924a728d6f354f5eb1a9f84ec7',
  },
  /** The schema's name in the text below. */
  schema: 'invoice_mirror_baseline',
  /** Every object and seeded row, in an order that needs no other. */
  definitions: `
CREATE FUNCTION invoice_mirror_baseline.account_grant(accounts_table regclass, account text, grantee text) RETURNS text
    LANGUAGE plpgsql
    AS $_$
    declare
      mirror text := (select relnamespace::regnamespace::text from pg_class where oid = accounts_table);
      owner_id oid := (select relowner from pg_class where oid = accounts_table);
      found_id integer;
      names text;
    begin
      execute format('select id from %s where name = $1', accounts_table) into found_id using account;
      if found_id is null then
        raise exception 'grant_account: no account named %', account using errcode = '22023';
      end if;
      if not exists (select from pg_roles where rolname = grantee) then
        raise exception 'grant_account: no role named % (create it first: CREATE ROLE % LOGIN PASSWORD ''…'')', grantee, grantee
          using errcode = '42704';
      end if;
      if exists (select from pg_roles where rolname = grantee and (rolsuper or rolbypassrls))
         or pg_has_role(grantee, owner_id, 'MEMBER') then
        raise exception 'grant_account: role % cannot be confined: it is a superuser, has BYPASSRLS, or is (a member of) the owner of the tables', grantee
          using errcode = '42501';
      end if;
      execute format('grant usage on schema %s to %I', mirror, grantee);
      execute format('grant select on all tables in schema %s to %I', mirror, grantee);
      execute format('grant insert on %s.jobs to %I', mirror, grantee);
      execute format('grant usage on sequence %s to %I', pg_get_serial_sequence(mirror || '.jobs', 'id'), grantee);
      execute format('insert into %s.account_roles (role_name, account_id) values ($1, $2) on conflict do nothing', mirror)
        using grantee, found_id;
      execute format('select string_agg(a.name, '', '' order by a.name) from %s.account_roles r join %s a on a.id = r.account_id where r.role_name = $1',
                     mirror, accounts_table) into names using grantee;
      return format('%s sees the rows of: %s', grantee, names);
    end
    $_$;

COMMENT ON FUNCTION invoice_mirror_baseline.account_grant(accounts_table regclass, account text, grantee text) IS 'The work of grant_account(account, role), given the accounts table';

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

CREATE FUNCTION invoice_mirror_baseline.change_after(c anyelement) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
    select change_after((c).account_id, (c).entity, (c).entity_id, (c).op, (c).id, (c).after)
  $$;

COMMENT ON FUNCTION invoice_mirror_baseline.change_after(c anyelement) IS 'A change''s after (c: a row of changes), whole also for a fill''s insert (see change_after(account, entity, entity_id, op, change_id, after))';

CREATE FUNCTION invoice_mirror_baseline.change_after(account integer, entity text, entity_id text, op text, change_id bigint, after jsonb) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
    select case when after is not null or op <> 'insert' then after else coalesce(
      (select n.before from changes n
        where n.entity = change_after.entity and n.entity_id = change_after.entity_id
          and n.account_id = change_after.account and n.id > change_after.change_id
        order by n.id limit 1),
      mirror_raw(account, entity, entity_id)) end
  $$;

COMMENT ON FUNCTION invoice_mirror_baseline.change_after(account integer, entity text, entity_id text, op text, change_id bigint, after jsonb) IS 'A change''s after: the column, or for a fill''s insert (after empty) the record as inserted: the before of its next change, else its mirror row';

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

CREATE FUNCTION invoice_mirror_baseline.countries_set_iso2() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
    begin
      if pg_trigger_depth() > 1 or not exists (select from written where iso2 is distinct from country_iso2(name)) then
        return null;
      end if;
      execute 'update countries c set iso2 = w.iso2 from (select account_id, id, country_iso2(name) as iso2 from written) w
     where c.account_id = w.account_id and c.id = w.id and c.iso2 is distinct from w.iso2';
      return null;
    end
    $$;

CREATE FUNCTION invoice_mirror_baseline.country_iso2(name text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$
      select '{"afghanistan":"AF","aland":"AX","albanie":"AL","algerije":"DZ","amerikaans-samoa":"AS","amerikaanse kleinere afgelegen eilanden":"UM","amerikaanse maagdeneilanden":"VI","amerikaanse overzeese eilanden":"UM","andorra":"AD","angola":"AO","anguilla":"AI","antarctica":"AQ","antartica":"AQ","antigua":"AG","antigua en barbuda":"AG","arabische republiek egypte":"EG","argentijnse republiek":"AR","argentinie":"AR","armenie":"AM","aruba":"AW","australie":"AU","azerbeidzjan":"AZ","bahama''s":"BS","bahrein":"BH","bangladesh":"BD","barbados":"BB","belgie":"BE","belize":"BZ","benin":"BJ","bermuda":"BM","bhutan":"BT","bolivariaanse republiek venezuela":"VE","bolivia":"BO","bolivie":"BO","bonaire, sint eustatius en saba":"BQ","bondsrepubliek duitsland":"DE","bosnie en herzegovina":"BA","bosnie-herzegovina":"BA","botswana":"BW","bouvet":"BV","bouvet eiland":"BV","brazilie":"BR","brits indische oceaan":"IO","britse maagdeneilanden":"VG","brunei":"BN","brunei darussalam":"BN","bulgarije":"BG","burkina faso":"BF","burundi":"BI","cambodja":"KH","canada":"CA","centraal-afrikaanse republiek":"CF","chili":"CL","china":"CN","christmaseiland":"CX","cocoseilanden":"CC","collectiviteit van sint-maarten":"MF","colombia":"CO","comoren":"KM","congo-brazzaville":"CG","congo-kinshasa":"CD","cookeiland":"CK","cookeilanden":"CK","cooperatieve republiek guyana":"GY","costa rica":"CR","cuba":"CU","curacao":"CW","cyprus":"CY","de bahama''s":"BS","de bahama’s":"BS","democratische republiek congo":"CD","democratische republiek sao tome en principe":"ST","democratische republiek timor-leste":"TL","democratische socialistische republiek sri lanka":"LK","democratische volksrepubliek algerije":"DZ","democratische volksrepubliek korea":"KP","denemarken":"DK","djibouti":"DJ","dominica":"DM","dominicaanse republiek":"DO","duitsland":"DE","ecuador":"EC","egypte":"EG","el salvador":"SV","equatoriaal guinee":"GQ","equatoriaal-guinea":"GQ","eritrea":"ER","estland":"EE","eswatini":"SZ","ethiopie":"ET","faeroer":"FO","falklandeilanden":"FK","federale democratische republiek ethiopie":"ET","federale democratische republiek nepal":"NP","federale republiek brazilie":"BR","federale republiek nigeria":"NG","federale republiek somalie":"SO","federale staten van micronesie":"FM","federatie saint kitts en nevis":"KN","fiji":"FJ","filipijnen":"PH","finland":"FI","frankrijk":"FR","frans-guyana":"GF","frans-polynesie":"PF","franse republiek":"FR","franse zuidelijke gebieden":"TF","gabon":"GA","gambia":"GM","gemenebest dominica":"DM","gemenebest van australie":"AU","gemenebest van de bahama''s":"BS","georgie":"GE","ghana":"GH","gibraltar":"GI","grenada":"GD","griekenland":"GR","groenland":"GL","groothertogdom luxemburg":"LU","guadeloupe":"GP","guam":"GU","guatemala":"GT","guernsey":"GG","guinea":"GN","guinee":"GN","guinee-bissau":"GW","guyana":"GY","haiti":"HT","hasjemitisch koninkrijk jordanie":"JO","heard en mcdonaldeilanden":"HM","helleense republiek":"GR","honduras":"HN","hong kong":"HK","hongaarse republiek":"HU","hongarije":"HU","hongkong":"HK","ierland":"IE","ierse republiek":"IE","ijsland":"IS","ijslandse republiek":"IS","india":"IN","indonesie":"ID","irak":"IQ","iran":"IR","islamitisch emiraat afghanistan":"AF","islamitische republiek iran":"IR","islamitische republiek mauritanie":"MR","islamitische republiek pakistan":"PK","israel":"IL","italiaanse republiek":"IT","italie":"IT","ivoorkust":"CI","jamaica":"JM","japan":"JP","jemen":"YE","jersey":"JE","jordanie":"JO","kaaimaneilanden":"KY","kaapverdie":"CV","kameroen":"CM","kazachstan":"KZ","kenia":"KE","kersteiland":"CX","kirgizie":"KG","kirgizische republiek":"KG","kiribati":"KI","koeweit":"KW","koninkrijk bahrein":"BH","koninkrijk belgie":"BE","koninkrijk bhutan":"BT","koninkrijk cambodja":"KH","koninkrijk denemarken":"DK","koninkrijk der nederlanden":"NL","koninkrijk eswatini":"SZ","koninkrijk lesotho":"LS","koninkrijk marokko":"MA","koninkrijk noorwegen":"NO","koninkrijk saudi-arabie":"SA","koninkrijk spanje":"ES","koninkrijk thailand":"TH","koninkrijk tonga":"TO","koninkrijk zweden":"SE","kosovo":"XK","kroatie":"HR","land sint maarten":"SX","lao democratische volksrepubliek":"LA","laos":"LA","lesotho":"LS","letland":"LV","libanese republiek":"LB","libanon":"LB","liberia":"LR","libie":"LY","liechtenstein":"LI","litouwen":"LT","luxemburg":"LU","maagdeneilanden (uk)":"VG","maagdeneilanden (vs)":"VI","macao":"MO","macau":"MO","macedonie":"MK","madagaskar":"MG","malawi":"MW","maldiven":"MV","malediven":"MV","maleisie":"MY","mali":"ML","malta":"MT","man eiland":"IM","marokko":"MA","marshalleilanden":"MH","martinique":"MQ","mauretanie":"MR","mauritanie":"MR","mauritius":"MU","mayotte":"YT","mexico":"MX","micronesie":"FM","moldavie":"MD","monaco":"MC","mongolie":"MN","monsterrat":"MS","montenegro":"ME","montserrat":"MS","mozambique":"MZ","myanmar":"MM","namibie":"NA","nauru":"NR","nederland":"NL","nepal":"NP","nicaragua":"NI","nieuw-caledonie":"NC","nieuw-zeeland":"NZ","niger":"NE","nigeria":"NG","niue":"NU","noord-korea":"KP","noord-macedonie":"MK","noordelijke mariana-eilanden":"MP","noordelijke marianen":"MP","noorwegen":"NO","norfolk":"NF","norkfolkeiland":"NF","oeganda":"UG","oekraine":"UA","oezbekistan":"UZ","oman":"OM","onafhankelijke staat papoea-nieuw-guinea":"PG","onafhankelijke staat samoa":"WS","oostelijke republiek uruguay":"UY","oostenrijk":"AT","pakistan":"PK","palau":"PW","palestina":"PS","panama":"PA","papoea nieuw-guinea":"PG","papoea-nieuw-guinea":"PG","paraguay":"PY","peru":"PE","pitcairn":"PN","plurinationale staat bolivia":"BO","polen":"PL","portugal":"PT","portugese republiek":"PT","puerto rico":"PR","qatar":"QA","republiek albanie":"AL","republiek angola":"AO","republiek armenie":"AM","republiek azerbeidzjan":"AZ","republiek benin":"BJ","republiek botswana":"BW","republiek bulgarije":"BG","republiek burundi":"BI","republiek chili":"CL","republiek colombia":"CO","republiek congo":"CG","republiek costa rica":"CR","republiek cuba":"CU","republiek cyprus":"CY","republiek der filipijnen":"PH","republiek der maldiven":"MV","republiek der marshalleilanden":"MH","republiek der seychellen":"SC","republiek djibouti":"DJ","republiek ecuador":"EC","republiek el salvador":"SV","republiek equatoriaal-guinea":"GQ","republiek estland":"EE","republiek fiji":"FJ","republiek finland":"FI","republiek gabon":"GA","republiek gambia":"GM","republiek ghana":"GH","republiek guatemala":"GT","republiek guinee":"GN","republiek guinee-bissau":"GW","republiek haiti":"HT","republiek honduras":"HN","republiek india":"IN","republiek indonesie":"ID","republiek irak":"IQ","republiek ivoorkust":"CI","republiek jemen":"YE","republiek kaapverdie":"CV","republiek kameroen":"CM","republiek kazachstan":"KZ","republiek kenia":"KE","republiek kiribati":"KI","republiek korea":"KR","republiek kosovo":"XK","republiek kroatie":"HR","republiek letland":"LV","republiek liberia":"LR","republiek litouwen":"LT","republiek madagaskar":"MG","republiek malawi":"MW","republiek mali":"ML","republiek malta":"MT","republiek mauritius":"MU","republiek moldavie":"MD","republiek mozambique":"MZ","republiek namibie":"NA","republiek nauru":"NR","republiek nicaragua":"NI","republiek niger":"NE","republiek noord-macedonie":"MK","republiek oeganda":"UG","republiek oezbekistan":"UZ","republiek oostenrijk":"AT","republiek palau":"PW","republiek panama":"PA","republiek paraguay":"PY","republiek peru":"PE","republiek polen":"PL","republiek rwanda":"RW","republiek san marino":"SM","republiek senegal":"SN","republiek servie":"RS","republiek sierra leone":"SL","republiek singapore":"SG","republiek slovenie":"SI","republiek soedan":"SD","republiek suriname":"SR","republiek tadzjikistan":"TJ","republiek trinidad en tobago":"TT","republiek tsjaad":"TD","republiek tunesie":"TN","republiek turkije":"TR","republiek van de unie van myanmar":"MM","republiek vanuatu":"VU","republiek wit-rusland":"BY","republiek zambia":"ZM","republiek zimbabwe":"ZW","republiek zuid-afrika":"ZA","republiek zuid-soedan":"SS","reunion":"RE","roemeense republiek":"RO","roemenie":"RO","rusland":"RU","russische federatie":"RU","rwanda":"RW","saint barthelemy":"BL","saint kitts en nevis":"KN","saint lucia":"LC","saint vincent en de grenadines":"VC","saint-pierre en miquelon":"PM","salomonseilanden":"SB","samoa":"WS","san marino":"SM","sao tome en principe":"ST","saudi-arabie":"SA","senegal":"SN","servie":"RS","seychellen":"SC","sierra leone":"SL","singapore":"SG","sint maarten":"SX","sint maarten (nederlands deel)":"SX","sint-helena":"SH","sint-maarten":"SX","sint-maarten (frans deel)":"MF","sint-maarten (franse antillen)":"MF","slovenie":"SI","slowaakse republiek":"SK","slowakije":"SK","socialistische republiek vietnam":"VN","soedan":"SD","solomoneilanden":"SB","somalie":"SO","spanje":"ES","spitsbergen en jan mayen":"SJ","sri lanka":"LK","st. helena":"SH","st. kitts":"KN","st. lucia":"LC","st. pierre":"PM","st. vincent":"VC","staat eritrea":"ER","staat israel":"IL","staat koeweit":"KW","staat libie":"LY","staat palestina":"PS","staat qatar":"QA","sudan":"SD","sultanaat oman":"OM","suriname":"SR","swaziland":"SZ","syrie":"SY","syrische arabische republiek":"SY","tadzjikistan":"TJ","taiwan":"TW","tanzania":"TZ","thailand":"TH","timor leste":"TL","togo":"TG","togolese republiek":"TG","tokelau":"TK","tonga":"TO","trinidad en tobago":"TT","tsjaad":"TD","tsjechie":"CZ","tsjechische republiek":"CZ","tunesie":"TN","turkije":"TR","turkmeense republiek":"TM","turkmenistan":"TM","turks- en caicoseilanden":"TC","tuvalu":"TV","uganda":"UG","unie der comoren":"KM","uruguay":"UY","vanuatu":"VU","vaticaanstad":"VA","venezuela":"VE","verenigd koninkrijk":"GB","verenigd koninkrijk van groot-brittannie en noord-ierland":"GB","verenigde arabische emiraten":"AE","verenigde mexicaanse staten":"MX","verenigde republiek tanzania":"TZ","verenigde staten":"US","verenigde staten van amerika":"US","vietnam":"VN","volksrepubliek bangladesh":"BD","volksrepubliek china":"CN","vorstendom andorra":"AD","vorstendom liechtenstein":"LI","vorstendom monaco":"MC","wallis en futuna":"WF","west-sahara":"EH","westelijke sahara":"EH","wit-rusland":"BY","zambia":"ZM","zimbabwe":"ZW","zuid-afrika":"ZA","zuid-georgia en de zuidelijke sandwicheilanden":"GS","zuid-korea":"KR","zuid-soedan":"SS","zweden":"SE","zwitserland":"CH","zwitserse bondsstaat":"CH"}'::jsonb
             ->> translate(lower(translate(btrim(regexp_replace(name, '\\s+', ' ', 'g')), 'ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮĲĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽƁƂƄƆƇƉƊƋƎƏƐƑƓƔƖƗƘƜƝƟƠƢƤƦƧƩƬƮƯƱƲƳƵƷƸƼǄǅǇǈǊǋǍǏǑǓǕǗǙǛǞǠǢǤǦǨǪǬǮǱǲǴǶǷǸǺǼǾȀȂȄȆȈȊȌȎȐȒȔȖȘȚȜȞȠȢȤȦȨȪȬȮȰȲȺȻȽȾɁɃɄɅɆɈɊɌɎ',
                                           'àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþāăąćĉċčďđēĕėęěĝğġģĥħĩīĭįĳĵķĺļľŀłńņňŋōŏőœŕŗřśŝşšţťŧũūŭůűųŵŷÿźżžɓƃƅɔƈɖɗƌǝəɛƒɠɣɩɨƙɯɲɵơƣƥʀƨʃƭʈưʊʋƴƶʒƹƽǆǆǉǉǌǌǎǐǒǔǖǘǚǜǟǡǣǥǧǩǫǭǯǳǳǵƕƿǹǻǽǿȁȃȅȇȉȋȍȏȑȓȕȗșțȝȟƞȣȥȧȩȫȭȯȱȳⱥȼƚⱦɂƀʉʌɇɉɋɍɏ')),
                           'àáâãäåçèéêëìíîïñòóôõöùúûüýÿ', 'aaaaaaceeeeiiiinooooouuuuyy')
    $$;

COMMENT ON FUNCTION invoice_mirror_baseline.country_iso2(name text) IS 'The ISO 3166-1 alpha-2 code of a Dutch country name as the service spells it (the Dutch names of i18n-iso-countries plus a kept list of the service''s own spellings, src/catalog/country-codes.ts), compared without case, common accents and extra spaces; NULL when the name maps to no code or to two.';

CREATE FUNCTION invoice_mirror_baseline.eu_member(code text, on_date date) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $_$
      select case when $1 is null or $2 is null then null
                  else exists (select from (values ('AT', date '1995-01-01', null::date, null), ('BE', date '1958-01-01', null::date, null), ('BG', date '2007-01-01', null::date, null), ('CY', date '2004-05-01', null::date, null), ('CZ', date '2004-05-01', null::date, null), ('DE', date '1958-01-01', null::date, null), ('DK', date '1973-01-01', null::date, null), ('EE', date '2004-05-01', null::date, null), ('ES', date '1986-01-01', null::date, null), ('FI', date '1995-01-01', null::date, null), ('FR', date '1958-01-01', null::date, null), ('GB', date '1973-01-01', date '2020-12-31', 'left the EU VAT area at the end of 2020'), ('GR', date '1981-01-01', null::date, 'VAT numbers begin with EL'), ('HR', date '2013-07-01', null::date, null), ('HU', date '2004-05-01', null::date, null), ('IE', date '1973-01-01', null::date, null), ('IM', date '1973-01-01', date '2020-12-31', 'part of the British VAT area'), ('IT', date '1958-01-01', null::date, null), ('LT', date '2004-05-01', null::date, null), ('LU', date '1958-01-01', null::date, null), ('LV', date '2004-05-01', null::date, null), ('MC', date '1958-01-01', null::date, 'part of the French VAT area'), ('MT', date '2004-05-01', null::date, null), ('NL', date '1958-01-01', null::date, null), ('PL', date '2004-05-01', null::date, null), ('PT', date '1986-01-01', null::date, null), ('RO', date '2007-01-01', null::date, null), ('SE', date '1995-01-01', null::date, null), ('SI', date '2004-05-01', null::date, null), ('SK', date '2004-05-01', null::date, null)) as m(code, from_date, until_date, note)
                                where m.code = upper($1) and $2 >= m.from_date and (m.until_date is null or $2 <= m.until_date))
             end
    $_$;

COMMENT ON FUNCTION invoice_mirror_baseline.eu_member(code text, on_date date) IS 'Whether the country (ISO code) was in the EU VAT area on the date (see eu_vat_area); NULL without a code or a date';

CREATE FUNCTION invoice_mirror_baseline.eu_vat_buyer(code text, vat_number text, on_date date) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $_$
      select eu_member($1, $3) or (upper($1) = 'GB' and $3 >= date '2021-01-01' and coalesce(upper($2) like 'XI%', false))
    $_$;

COMMENT ON FUNCTION invoice_mirror_baseline.eu_vat_buyer(code text, vat_number text, on_date date) IS 'Whether a buyer of that country and VAT number counts as in the EU on the date: a member country, or since 2021 a British buyer with an XI (Northern Ireland) VAT number';

CREATE FUNCTION invoice_mirror_baseline.events_fan_out() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  declare
    caller_path text := current_setting('search_path');
    newest bigint;
  begin
    perform set_config('search_path', quote_ident(tg_table_schema) || ', pg_catalog', true);
    
    select max(id) into newest from new_events;
    if newest is not null then
      -- A record's first pending delivery is due now, the ones after it wait (due at infinity)
      -- until it is delivered: the claim then reads due rows only (src/webhooks/deliver.ts).
      insert into webhook_deliveries (account_id, subscription_id, event_id, entity, record_id, due_at)
      select m.account_id, m.subscription_id, m.event_id, m.entity, m.record_id,
             case when m.nth = 1 and not exists (
                    select from webhook_deliveries p
                     where p.account_id = m.account_id and p.subscription_id = m.subscription_id
                       and p.entity = m.entity and p.record_id = m.record_id and p.state = 'pending')
                  then now() else 'infinity' end
        from (select e.account_id, s.id as subscription_id, e.id as event_id, e.entity, e.record_id,
                     row_number() over (partition by e.account_id, s.id, e.entity, e.record_id order by e.id) as nth
                from new_events e
                join webhook_subscriptions s on (s.account_id is null or s.account_id = e.account_id)
                                            and (s.event_types is null or e.type = any (s.event_types))) m;
    end if;
    perform set_config('search_path', caller_path, true);
    return null;
  end
  $$;

CREATE FUNCTION invoice_mirror_baseline.events_flag(record jsonb, field text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
      select coalesce(lower(record ->> field) in ('true', '1', 'yes'), false)
    $$;

CREATE FUNCTION invoice_mirror_baseline.events_from_changes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  declare
    caller_path text := current_setting('search_path');
    fill_quietly boolean := coalesce(current_setting('invoice_mirror.events_on_backfill', true), '') <> 'on';
  begin
    perform set_config('search_path', quote_ident(tg_table_schema) || ', pg_catalog', true);
    
    with quiet as materialized (
      -- The pulls among this statement's inserts that fill an empty mirror.
      select i.account_id, i.sync_run_id, i.entity
        from (select distinct account_id, sync_run_id, entity from new_changes where op = 'insert' and sync_run_id is not null) i
        join sync_runs r on r.account_id = i.account_id and r.id = i.sync_run_id and r.kind in ('backfill', 'sync')
       where fill_quietly
         and (not exists (select from sync_runs p where p.account_id = i.account_id and p.id < i.sync_run_id
                             and p.kind in ('backfill', 'sync') and p.counts ? i.entity)
              -- a fill in slices (src/sync/resume.ts): its later runs fill the mirror still
              or exists (select from pull_cursors pc where pc.account_id = i.account_id and pc.entity = i.entity
                            and pc.table_was_empty))
    ),
    heard as materialized (
      -- The changes that may make events, each with its record after the change: a fill's insert
      -- has no after (src/sync/merge.ts), and is read from the mirror row this statement wrote.
      select n.id, n.account_id, n.entity, n.entity_id, n.op, n.changed_fields, n.before, n.detected_at,
             case when n.op = 'insert' and n.after is null then mirror_raw(n.account_id, n.entity, n.entity_id)
                  else n.after end as after
        from new_changes n
       where not (n.op = 'insert' and exists (select from quiet q where q.account_id = n.account_id
                                               and q.sync_run_id = n.sync_run_id and q.entity = n.entity))
    ),
    typed as materialized (
      select c.id as change_id, c.account_id, c.entity, c.entity_id, c.detected_at, t.type, t.ord,
        jsonb_build_object('record', jsonb_build_object('id', c.entity_id) || case c.entity when 'invoices' then jsonb_strip_nulls(jsonb_build_object('invoicenr', coalesce(c.after, c.before) -> 'invoicenr', 'clientnr', coalesce(c.after, c.before) -> 'clientnr', 'totalintax', coalesce(c.after, c.before) -> 'totalintax', 'open', coalesce(c.after, c.before) -> 'open', 'sent', coalesce(c.after, c.before) -> 'sent', 'duedate', coalesce(c.after, c.before) -> 'duedate', 'paiddate', coalesce(c.after, c.before) -> 'paiddate')) when 'quotations' then jsonb_strip_nulls(jsonb_build_object('quotationreference', coalesce(c.after, c.before) -> 'quotationreference', 'clientnr', coalesce(c.after, c.before) -> 'clientnr', 'totalintax', coalesce(c.after, c.before) -> 'totalintax', 'sent', coalesce(c.after, c.before) -> 'sent', 'customstatus', coalesce(c.after, c.before) -> 'customstatus')) when 'saved_invoices' then jsonb_strip_nulls(jsonb_build_object('name', coalesce(c.after, c.before) -> 'name', 'clientnr', coalesce(c.after, c.before) -> 'clientnr', 'totalintax', coalesce(c.after, c.before) -> 'totalintax')) when 'repeating_invoices' then jsonb_strip_nulls(jsonb_build_object('name', coalesce(c.after, c.before) -> 'name', 'clientnr', coalesce(c.after, c.before) -> 'clientnr', 'totalintax', coalesce(c.after, c.before) -> 'totalintax', 'nextsenddate', coalesce(c.after, c.before) -> 'nextsenddate')) when 'clients' then jsonb_strip_nulls(jsonb_build_object('clientnr', coalesce(c.after, c.before) -> 'clientnr', 'company', coalesce(c.after, c.before) -> 'company', 'contact', coalesce(c.after, c.before) -> 'contact', 'email', coalesce(c.after, c.before) -> 'email')) when 'products' then jsonb_strip_nulls(jsonb_build_object('code', coalesce(c.after, c.before) -> 'code', 'name', coalesce(c.after, c.before) -> 'name', 'price', coalesce(c.after, c.before) -> 'price', 'stock', coalesce(c.after, c.before) -> 'stock')) else '{}'::jsonb end)
          || case when c.op = 'update' then (
               select jsonb_build_object('changed', to_jsonb(c.changed_fields),
                        'before', coalesce(jsonb_object_agg(f, c.before -> f) filter (where f <> all (array['lines', 'history', 'taxes']::text[])), '{}'),
                        'after', coalesce(jsonb_object_agg(f, c.after -> f) filter (where f <> all (array['lines', 'history', 'taxes']::text[])), '{}'))
                 from unnest(c.changed_fields) f)
             else '{}'::jsonb end as body
        from heard c
        cross join lateral unnest(case c.entity when 'invoices' then array[case when c.op in ('insert', 'restore') then 'invoice.sent' end, case when (c.op = 'update' and events_num(c.before, 'open') > 0 and events_num(c.after, 'open') <= 0) or (c.op = 'insert' and events_num(c.after, 'open') <= 0 and events_num(c.after, 'totalintax') > 0) then 'invoice.paid' end, case when c.op = 'update' and events_num(c.after, 'open') > 0 and events_num(c.after, 'open') < events_num(c.before, 'open') then 'invoice.partly_paid' end, case when c.op = 'update' and 'lastreminder' = any(c.changed_fields) and events_set(c.after, 'lastreminder') then 'invoice.reminder_sent' end, case when c.op = 'delete' then 'invoice.deleted' end] when 'quotations' then array[case when c.op in ('insert', 'restore') then 'quotation.created' end, case when (c.op = 'update' and events_flag(c.after, 'sent') and not events_flag(c.before, 'sent')) or (c.op = 'insert' and events_flag(c.after, 'sent')) then 'quotation.sent' end, case when c.op = 'update' and events_set(c.after, 'approved') and not events_set(c.before, 'approved') then 'quotation.approved' end, case when c.op = 'update' and 'customstatus' = any(c.changed_fields) then 'quotation.status_changed' end, case when c.op = 'update' and exists (select from unnest(c.changed_fields) f where f not in ('sent', 'approved', 'customstatus')) then 'quotation.changed' end, case when c.op = 'delete' then 'quotation.deleted' end] when 'saved_invoices' then array[case when c.op in ('insert', 'restore') then 'saved_invoice.created' end, case when c.op = 'update' then 'saved_invoice.changed' end, case when c.op = 'delete' then 'saved_invoice.deleted' end] when 'repeating_invoices' then array[case when c.op in ('insert', 'restore') then 'repeating_invoice.created' end, case when c.op = 'update' then 'repeating_invoice.changed' end, case when c.op = 'delete' then 'repeating_invoice.deleted' end] when 'clients' then array[case when c.op in ('insert', 'restore') then 'client.created' end, case when c.op = 'update' then 'client.changed' end, case when c.op = 'delete' then 'client.deleted' end] when 'products' then array[case when c.op in ('insert', 'restore') then 'product.created' end, case when c.op = 'update' and exists (select from unnest(c.changed_fields) f where f <> 'stock') then 'product.changed' end, case when c.op = 'delete' then 'product.deleted' end, case when c.op = 'update' and 'stock' = any(c.changed_fields) then 'product.stock_changed' end] else '{}'::text[] end) with ordinality as t(type, ord)
       where t.type is not null
    ),
    reserved as (select events_reserve((select count(*) from typed)::integer) as base)
    insert into events (id, account_id, type, occurred_at, entity, record_id, body, change_id)
    select reserved.base + row_number() over (order by t.change_id, t.ord), t.account_id, t.type, t.detected_at,
           t.entity, t.entity_id, t.body, t.change_id
      from typed t, reserved;
    perform set_config('search_path', caller_path, true);
    return null;
  end
  $$;

CREATE FUNCTION invoice_mirror_baseline.events_from_held() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  declare
    caller_path text := current_setting('search_path');
    
  begin
    perform set_config('search_path', quote_ident(tg_table_schema) || ', pg_catalog', true);
    
    with held as materialized (
      select account_id, entity, count(*)::int as n, max(run_id) as run_id,
             (array_agg(entity_id order by entity_id::int))[1:100] as ids
        from new_held group by account_id, entity
    ),
    reserved as (select events_reserve((select count(*) from held)::integer) as base)
    insert into events (id, account_id, type, occurred_at, entity, record_id, body)
    select reserved.base + row_number() over (order by h.account_id, h.entity), h.account_id, 'deletes.held', now(),
           'held_deletes', h.entity, jsonb_build_object('entity', h.entity, 'held', h.n, 'run_id', h.run_id, 'ids', to_jsonb(h.ids))
      from held h, reserved;
    perform set_config('search_path', caller_path, true);
    return null;
  end
  $$;

CREATE FUNCTION invoice_mirror_baseline.events_from_jobs() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  declare
    caller_path text := current_setting('search_path');
    
  begin
    perform set_config('search_path', quote_ident(tg_table_schema) || ', pg_catalog', true);
    
    insert into events (id, account_id, type, occurred_at, entity, record_id, body)
    values (events_reserve(1) + 1, new.account_id, 'job.' || new.status, coalesce(new.finished_at, now()), 'jobs', new.id::text, jsonb_build_object('job', jsonb_strip_nulls(jsonb_build_object('id', new.id, 'kind', new.kind, 'attempts', new.attempts,
         'result', case when new.status = 'succeeded' then new.result end,
         'error', case when new.status <> 'succeeded' then new.last_error end))));
    perform set_config('search_path', caller_path, true);
    return null;
  end
  $$;

CREATE FUNCTION invoice_mirror_baseline.events_from_runs() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
  declare
    caller_path text := current_setting('search_path');
    
  begin
    perform set_config('search_path', quote_ident(tg_table_schema) || ', pg_catalog', true);
    
    insert into events (id, account_id, type, occurred_at, entity, record_id, body)
    values (events_reserve(1) + 1, new.account_id, 'sync.failed', coalesce(new.finished_at, now()), 'sync_runs', new.id::text, jsonb_build_object('run', jsonb_build_object('id', new.id, 'kind', new.kind, 'entities', to_jsonb(new.entities), 'error', new.error)));
    perform set_config('search_path', caller_path, true);
    return null;
  end
  $$;

CREATE FUNCTION invoice_mirror_baseline.events_notify() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  declare
    channel text;
  begin
    if exists (select from new_events) then
      execute format('select channel from %I.notification_channels where purpose = ''events''', tg_table_schema) into channel;
      if channel is not null then
        perform pg_notify(channel, '');
      end if;
    end if;
    return null;
  end
  $$;

CREATE FUNCTION invoice_mirror_baseline.events_num(record jsonb, field text) RETURNS numeric
    LANGUAGE sql IMMUTABLE
    AS $_$
      select case when jsonb_typeof(record -> field) = 'number' then (record ->> field)::numeric
                  when btrim(record ->> field) ~ '^-?[0-9]+(\\.[0-9]+)?$' then btrim(record ->> field)::numeric end
    $_$;

CREATE FUNCTION invoice_mirror_baseline.events_pick(record jsonb, fields text[]) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$
      select coalesce(jsonb_object_agg(f, record -> f), '{}') from unnest(fields) f where record ? f
    $$;

CREATE FUNCTION invoice_mirror_baseline.events_reserve(n integer) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
    declare
      used bigint := coalesce(nullif(current_setting('invoice_mirror.events_used', true), ''), '0')::bigint;
    begin
      if used + n >= 16777216 then
        raise exception 'one transaction may write at most 16777215 events' using errcode = '54000';
      end if;
      perform set_config('invoice_mirror.events_used', (used + n)::text, true);
      return (pg_current_xact_id()::text::bigint * 16777216) + used;
    end
    $$;

CREATE FUNCTION invoice_mirror_baseline.events_set(record jsonb, field text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
      select coalesce(record -> field not in ('null', '""', 'false', '[]', '{}', '"0"', '"false"', '0'), false)
    $$;

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

CREATE FUNCTION invoice_mirror_baseline.grant_account(account_name text, role_name text) RETURNS text
    LANGUAGE sql
    BEGIN ATOMIC
 SELECT invoice_mirror_baseline.account_grant('invoice_mirror_baseline.accounts'::regclass, account_name, role_name) AS account_grant;
END;

COMMENT ON FUNCTION invoice_mirror_baseline.grant_account(account_name text, role_name text) IS 'Confines an existing role to an account by row-level security and grants it what it needs: USAGE on the schema, SELECT on every table and view, INSERT on jobs (a role may be confined to several accounts)';

CREATE FUNCTION invoice_mirror_baseline.invoice_is_open(open numeric, uncollectible text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
      select coalesce(open, 0) > 0 and coalesce(uncollectible, '') in ('', '0', 'false')
    $$;

COMMENT ON FUNCTION invoice_mirror_baseline.invoice_is_open(open numeric, uncollectible text) IS 'Whether a sent invoice is still to be paid: something open, and not written off as uncollectible.';

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

CREATE FUNCTION invoice_mirror_baseline.mirror_raw(account integer, entity text, entity_id text) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $_$
    select case when entity_id ~ '^-?[0-9]{1,18}$' then case entity
      when 'countries' then (select t.raw from countries t
        where t.account_id = mirror_raw.account and t.id = mirror_raw.entity_id::bigint)
      when 'taxes' then (select t.raw from taxes t
        where t.account_id = mirror_raw.account and t.rate_key = mirror_raw.entity_id::bigint)
      when 'categories' then (select t.raw from categories t
        where t.account_id = mirror_raw.account and t.id = mirror_raw.entity_id::bigint)
      when 'clients' then (select t.raw from clients t
        where t.account_id = mirror_raw.account and t.clientnr = mirror_raw.entity_id::bigint)
      when 'products' then (select t.raw from products t
        where t.account_id = mirror_raw.account and t.id = mirror_raw.entity_id::bigint)
      when 'quotations' then (select t.raw from quotations t
        where t.account_id = mirror_raw.account and t.id = mirror_raw.entity_id::bigint)
      when 'saved_invoices' then (select t.raw from saved_invoices t
        where t.account_id = mirror_raw.account and t.id = mirror_raw.entity_id::bigint)
      when 'repeating_invoices' then (select t.raw from repeating_invoices t
        where t.account_id = mirror_raw.account and t.id = mirror_raw.entity_id::bigint)
      when 'invoices' then (select t.raw from invoices t
        where t.account_id = mirror_raw.account and t.id = mirror_raw.entity_id::bigint)
    end end
  $_$;

COMMENT ON FUNCTION invoice_mirror_baseline.mirror_raw(account integer, entity text, entity_id text) IS 'The raw record of a mirror row, by account, table and key as text';

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

CREATE FUNCTION invoice_mirror_baseline.vat_amount(value jsonb) RETURNS numeric
    LANGUAGE sql IMMUTABLE
    AS $_$
      select case jsonb_typeof($1)
               when 'number' then ($1 #>> '{}')::numeric
               when 'string' then case when btrim($1 #>> '{}') ~ '^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)$'
                                       then btrim($1 #>> '{}')::numeric end
             end
    $_$;

COMMENT ON FUNCTION invoice_mirror_baseline.vat_amount(value jsonb) IS 'A JSON number or decimal text as a number; NULL for anything else';

CREATE FUNCTION invoice_mirror_baseline.vat_problem_text(kind text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $_$
      select v.meaning from (values ('no_taxes', 'the invoice has a total but no VAT per rate (taxes is empty): check it in the service'), ('unreadable_taxes', 'a VAT entry whose rate, VAT or base is not a number: check the invoice in the service'), ('no_date', 'the invoice has no date (sent is empty), so it falls in no period: enter it by hand'), ('vat_without_base', 'VAT without a base (sum_of 0 beside a VAT amount), as old records hold: enter base and VAT by hand'), ('former_rate', 'a former Dutch rate (19 % until 2012-09-30, 6 % until 2018-12-31) on a later invoice: rubric 1c if the supply was made before the change, else a mistake to correct with a credit note'), ('unknown_rate', 'a rate that is not one of the account country''s VAT rates on the invoice date: check the invoice'), ('vat_at_zero_rate', 'VAT at a 0 % rate: check the invoice'), ('vat_on_shifted', 'VAT charged on an invoice whose VAT is shifted to the buyer (reverse charge): check the invoice'), ('shifted_without_vat_number', 'VAT shifted to the buyer, but the invoice has no buyer''s VAT number'), ('no_country', 'the invoice''s country is missing, or not in the country list: set the client''s country'), ('unmapped_country', 'the invoice''s country name maps to no ISO code (see countries.iso2), so EU or not cannot be told: set another country, or report the name'), ('eu_without_vat_number', 'no VAT charged to a buyer in another EU country without a VAT number (an intra-EU supply needs the buyer''s VAT number): check the invoice')) as v(kind, meaning) where v.kind = $1
    $_$;

COMMENT ON FUNCTION invoice_mirror_baseline.vat_problem_text(kind text) IS 'What a kind of VAT problem (vat_problems.problem) means and what to do';

CREATE FUNCTION invoice_mirror_baseline.vat_rate_kind(country text, rate numeric, on_date date) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $_$
      with rates(country, kind, rate, from_date, until_date) as (values ('NL', 'high', 17.5, date '1992-10-01', date '2000-12-31'), ('NL', 'high', 19, date '2001-01-01', date '2012-09-30'), ('NL', 'high', 21, date '2012-10-01', null::date), ('NL', 'low', 6, date '1986-10-01', date '2018-12-31'), ('NL', 'low', 9, date '2019-01-01', null::date), ('BE', 'high', 21, date '1996-01-01', null::date), ('BE', 'intermediate', 12, date '1992-04-01', null::date), ('BE', 'low', 6, date '1971-01-01', null::date))
      select case
               when $2 is null then null
               when $2 = 0 then 'zero'
               else coalesce(
                 (select r.kind from rates r
                   where r.country = $1 and r.rate = $2 and $3 >= r.from_date and (r.until_date is null or $3 <= r.until_date)),
                 case when exists (select from rates r where r.country = $1 and r.rate = $2) then 'former' else 'unknown' end)
             end
    $_$;

COMMENT ON FUNCTION invoice_mirror_baseline.vat_rate_kind(country text, rate numeric, on_date date) IS 'What a VAT rate is in a country (NL, BE) on a date: high, low, intermediate, zero, former (a rate of the country that did not apply on that date) or unknown';

CREATE FUNCTION invoice_mirror_baseline.vat_tax_entries(taxes jsonb) RETURNS TABLE(entry_key text, rate numeric, vat numeric, base numeric, readable boolean)
    LANGUAGE sql IMMUTABLE
    AS $_$
      select t.k, vat_amount(t.e -> 'rate'), vat_amount(t.e -> 'sum'), vat_amount(coalesce(t.e -> 'sum_of', t.e -> 'sumof')),
             coalesce(jsonb_typeof(t.e) = 'object' and vat_amount(t.e -> 'rate') is not null
                      and vat_amount(t.e -> 'sum') is not null
                      and vat_amount(coalesce(t.e -> 'sum_of', t.e -> 'sumof')) is not null, false)
        from (select key as k, value as e
                from jsonb_each(case when jsonb_typeof($1) = 'object' then $1 else '{}'::jsonb end)
              union all
              select (n - 1)::text, value
                from jsonb_array_elements(case when jsonb_typeof($1) = 'array' then $1 else '[]'::jsonb end)
                     with ordinality as a(value, n)) t
    $_$;

COMMENT ON FUNCTION invoice_mirror_baseline.vat_tax_entries(taxes jsonb) IS 'The entries of a sent invoice''s taxes (rate, VAT sum, base sum_of), whether each could be read';

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

COMMENT ON COLUMN invoice_mirror_baseline.categories.id IS 'category id, as used in \`category\` and \`default_category\`';

COMMENT ON COLUMN invoice_mirror_baseline.categories.name IS 'category name';

COMMENT ON COLUMN invoice_mirror_baseline.categories.ledger IS 'the ledger account of the category in the bookkeeping; empty when none (\`false\`)';

COMMENT ON COLUMN invoice_mirror_baseline.categories.raw IS 'the record exactly as the service sent it (JSON)';

COMMENT ON COLUMN invoice_mirror_baseline.categories.raw_hash IS 'the record''s text as received: its length in bytes and SHA-256 (\`947:base64\`)';

COMMENT ON COLUMN invoice_mirror_baseline.categories.first_seen_at IS 'when the mirror first saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.categories.last_changed_at IS 'when the record last changed in the mirror';

COMMENT ON COLUMN invoice_mirror_baseline.categories.last_seen_at IS 'when a complete pull last saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.categories.deleted_at IS 'when the record disappeared from the service; empty while it exists';

COMMENT ON COLUMN invoice_mirror_baseline.categories.account_id IS 'the account of the service the row belongs to (accounts.id)';

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

COMMENT ON COLUMN invoice_mirror_baseline.clients.clientnr IS 'client number';

COMMENT ON COLUMN invoice_mirror_baseline.clients.contact IS 'contact name';

COMMENT ON COLUMN invoice_mirror_baseline.clients.showcontact IS 'show the contact name on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.clients.company IS 'company name';

COMMENT ON COLUMN invoice_mirror_baseline.clients.address IS 'street address';

COMMENT ON COLUMN invoice_mirror_baseline.clients.address_addon IS 'extra address line';

COMMENT ON COLUMN invoice_mirror_baseline.clients.zipcode IS 'postal code';

COMMENT ON COLUMN invoice_mirror_baseline.clients.city IS 'city';

COMMENT ON COLUMN invoice_mirror_baseline.clients.country IS 'country id (see \`countries\`; 146 is the Netherlands)';

COMMENT ON COLUMN invoice_mirror_baseline.clients.phone IS 'phone number';

COMMENT ON COLUMN invoice_mirror_baseline.clients.mobile IS 'mobile number';

COMMENT ON COLUMN invoice_mirror_baseline.clients.email IS 'e-mail address invoices go to when the send method is \`email\`';

COMMENT ON COLUMN invoice_mirror_baseline.clients.addon IS 'extra information, e.g. a department';

COMMENT ON COLUMN invoice_mirror_baseline.clients.bankcode IS 'the client''s IBAN';

COMMENT ON COLUMN invoice_mirror_baseline.clients.biccode IS 'the client''s BIC';

COMMENT ON COLUMN invoice_mirror_baseline.clients.taxnumber IS 'the client''s VAT number';

COMMENT ON COLUMN invoice_mirror_baseline.clients.tax_shifted IS 'tax on the client''s invoices is shifted to the receiver (reverse charge)';

COMMENT ON COLUMN invoice_mirror_baseline.clients.lastinvoice IS 'date the last invoice to this client was sent';

COMMENT ON COLUMN invoice_mirror_baseline.clients.sendmethod IS 'how invoices are sent: \`mail\` (you print them), \`email\`, \`printcenter\`';

COMMENT ON COLUMN invoice_mirror_baseline.clients.paymentmethod IS '\`bank\` (normal transfer) or \`autocollect\` (direct debit)';

COMMENT ON COLUMN invoice_mirror_baseline.clients.top IS 'term of payment in days';

COMMENT ON COLUMN invoice_mirror_baseline.clients.stddiscount IS 'standard discount percentage applied to every invoice of the client';

COMMENT ON COLUMN invoice_mirror_baseline.clients.mailintro IS 'first line of the e-mail to the client';

COMMENT ON COLUMN invoice_mirror_baseline.clients.reference_line1 IS 'first reference line printed on the client''s invoices';

COMMENT ON COLUMN invoice_mirror_baseline.clients.reference_line2 IS 'second reference line';

COMMENT ON COLUMN invoice_mirror_baseline.clients.reference_line3 IS 'third reference line';

COMMENT ON COLUMN invoice_mirror_baseline.clients.notes IS 'notes saved for the client';

COMMENT ON COLUMN invoice_mirror_baseline.clients.notes_on_invoice IS 'print the notes on every invoice of the client';

COMMENT ON COLUMN invoice_mirror_baseline.clients.active IS 'false for non-active clients (hidden in the web application)';

COMMENT ON COLUMN invoice_mirror_baseline.clients.default_doclang IS 'invoice language: empty (default), \`nl\`, \`en\`, \`de\`, \`fr\`, \`es\`, \`it\`';

COMMENT ON COLUMN invoice_mirror_baseline.clients.default_category IS 'default category id';

COMMENT ON COLUMN invoice_mirror_baseline.clients.default_email IS 'id of the e-mail text used';

COMMENT ON COLUMN invoice_mirror_baseline.clients.email_reminder IS 'address payment reminders go to';

COMMENT ON COLUMN invoice_mirror_baseline.clients.currency IS 'currency code used on invoices, e.g. \`EUR\`';

COMMENT ON COLUMN invoice_mirror_baseline.clients.mandate_id IS 'direct-debit mandate identification';

COMMENT ON COLUMN invoice_mirror_baseline.clients.mandate_date IS 'date the mandate was signed';

COMMENT ON COLUMN invoice_mirror_baseline.clients.collecttype IS 'direct-debit type: \`OOFF\` single, \`FRST\` first, \`RCUR\` recurring';

COMMENT ON COLUMN invoice_mirror_baseline.clients.tax_type IS '\`intax\`: prices include tax; \`extax\`: prices exclude tax';

COMMENT ON COLUMN invoice_mirror_baseline.clients.raw IS 'the record exactly as the service sent it (JSON)';

COMMENT ON COLUMN invoice_mirror_baseline.clients.raw_hash IS 'the record''s text as received: its length in bytes and SHA-256 (\`947:base64\`)';

COMMENT ON COLUMN invoice_mirror_baseline.clients.first_seen_at IS 'when the mirror first saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.clients.last_changed_at IS 'when the record last changed in the mirror';

COMMENT ON COLUMN invoice_mirror_baseline.clients.last_seen_at IS 'when a complete pull last saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.clients.deleted_at IS 'when the record disappeared from the service; empty while it exists';

COMMENT ON COLUMN invoice_mirror_baseline.clients.account_id IS 'the account of the service the row belongs to (accounts.id)';

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

COMMENT ON COLUMN invoice_mirror_baseline.countries.id IS 'country id, as used in the \`country\` columns';

COMMENT ON COLUMN invoice_mirror_baseline.countries.name IS 'country name';

COMMENT ON COLUMN invoice_mirror_baseline.countries.raw IS 'the record exactly as the service sent it (JSON)';

COMMENT ON COLUMN invoice_mirror_baseline.countries.raw_hash IS 'the record''s text as received: its length in bytes and SHA-256 (\`947:base64\`)';

COMMENT ON COLUMN invoice_mirror_baseline.countries.first_seen_at IS 'when the mirror first saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.countries.last_changed_at IS 'when the record last changed in the mirror';

COMMENT ON COLUMN invoice_mirror_baseline.countries.last_seen_at IS 'when a complete pull last saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.countries.deleted_at IS 'when the record disappeared from the service; empty while it exists';

COMMENT ON COLUMN invoice_mirror_baseline.countries.account_id IS 'the account of the service the row belongs to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.countries.iso2 IS 'ISO 3166-1 alpha-2 code of the country, derived by the mirror from the Dutch name (country_iso2); empty when the name maps to none';

CREATE TABLE invoice_mirror_baseline.held_deletes (
    entity text NOT NULL,
    entity_id text NOT NULL,
    run_id bigint,
    held_at timestamp with time zone DEFAULT now() NOT NULL,
    account_id integer NOT NULL
);

COMMENT ON TABLE invoice_mirror_baseline.held_deletes IS 'Records a pull found missing upstream but did not mark deleted: too many at once (the delete safeguard)';

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

COMMENT ON COLUMN invoice_mirror_baseline.invoices.id IS 'invoice id (not the invoice number)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.invoicenr_full IS 'invoice number as printed, with any prefix';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.invoicenr IS 'invoice number (unique; may contain \`/\`)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.reference_line1 IS 'first reference line printed on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.reference_line2 IS 'second reference line';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.reference_line3 IS 'third reference line';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.profile IS 'id of the layout profile used (0: none, on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.category IS 'category id';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.discounttype IS '\`amount\` or \`percentage\` (empty on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.discount IS 'discount amount, or percentage when \`discounttype\` is \`percentage\`';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.paymentcondition IS 'payment condition text (may hold placeholders such as \`%PAYMENT_PERIOD%\`)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.paymentperiod IS 'term of payment in days';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.collection IS 'paid by direct debit (collected from the client)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.tax IS 'total tax';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.totalintax IS 'invoice total including tax';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.clientnr IS 'client number (0: none, on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.company IS 'client''s company name, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.contact IS 'client''s contact name, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.address IS 'client''s address, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.zipcode IS 'client''s postal code, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.city IS 'client''s city, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.country IS 'client''s country id, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.phone IS 'client''s phone number';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.mobile IS 'client''s mobile number';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.email IS 'client''s e-mail address';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.taxnumber IS 'client''s VAT number';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.invoicenote IS 'note printed on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.sent IS 'date the invoice was sent; empty on some old records';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.uncollectible IS 'set (as the service sends it: a date or a flag) when marked uncollectible; empty otherwise';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.lastreminder IS 'date the last payment reminder was sent';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.open IS 'amount still to be paid (0 when paid; negative when paid too much)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.paiddate IS 'date the invoice was paid in full';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.taxes IS 'tax per rate: \`{"tax1": {"rate", "sum", "sum_of"}, …}\` (\`[]\` when none)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.tax_type IS '\`intax\`: prices include tax; \`extax\`: prices exclude tax';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.language IS 'language of the invoice, e.g. \`nl\`';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.tax_shifted IS 'tax shifted to the receiver (reverse charge)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.payment_url IS 'where the client can pay online';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.duedate IS 'date payment is due (sent date plus the term of payment)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.history IS 'what happened to the invoice: \`{"item1": {"date", "time", "description"}, …}\` (\`[]\` when none)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.raw IS 'the record exactly as the service sent it (JSON)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.raw_hash IS 'the record''s text as received: its length in bytes and SHA-256 (\`947:base64\`)';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.first_seen_at IS 'when the mirror first saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.last_changed_at IS 'when the record last changed in the mirror';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.last_seen_at IS 'when a complete pull last saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.deleted_at IS 'when the record disappeared from the service; empty while it exists';

COMMENT ON COLUMN invoice_mirror_baseline.invoices.account_id IS 'the account of the service the row belongs to (accounts.id)';

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

COMMENT ON COLUMN invoice_mirror_baseline.products.id IS 'product id';

COMMENT ON COLUMN invoice_mirror_baseline.products.code IS 'your own product code (not printed on invoices)';

COMMENT ON COLUMN invoice_mirror_baseline.products.name IS 'name shown on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.products.price IS 'unit price excluding tax';

COMMENT ON COLUMN invoice_mirror_baseline.products.taxes IS 'tax percentage';

COMMENT ON COLUMN invoice_mirror_baseline.products.priceintax IS 'unit price including tax';

COMMENT ON COLUMN invoice_mirror_baseline.products.notes IS 'internal notes';

COMMENT ON COLUMN invoice_mirror_baseline.products.stock IS 'units in stock; empty when stock is not tracked (may be negative)';

COMMENT ON COLUMN invoice_mirror_baseline.products.stock_use IS 'whether stock is tracked for the product';

COMMENT ON COLUMN invoice_mirror_baseline.products.raw IS 'the record exactly as the service sent it (JSON)';

COMMENT ON COLUMN invoice_mirror_baseline.products.raw_hash IS 'the record''s text as received: its length in bytes and SHA-256 (\`947:base64\`)';

COMMENT ON COLUMN invoice_mirror_baseline.products.first_seen_at IS 'when the mirror first saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.products.last_changed_at IS 'when the record last changed in the mirror';

COMMENT ON COLUMN invoice_mirror_baseline.products.last_seen_at IS 'when a complete pull last saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.products.deleted_at IS 'when the record disappeared from the service; empty while it exists';

COMMENT ON COLUMN invoice_mirror_baseline.products.account_id IS 'the account of the service the row belongs to (accounts.id)';

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

COMMENT ON COLUMN invoice_mirror_baseline.quotations.id IS 'quotation id';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.sendmethod IS 'how it was sent: \`mail\`, \`email\`, \`printcenter\`; empty for a draft';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.savename IS 'name the quotation was saved under (your own reference)';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.quotationreference IS 'public reference printed on the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.reference_line1 IS 'first reference line printed on the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.reference_line2 IS 'second reference line';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.reference_line3 IS 'third reference line';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.profile IS 'id of the layout profile used (0: none, on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.profile_name IS 'name of the profile';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.category IS 'category id';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.category_name IS 'name of the category';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.discounttype IS '\`amount\` or \`percentage\` (empty on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.discount IS 'discount amount, or percentage when \`discounttype\` is \`percentage\`';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.paymentcondition IS 'payment condition text (may hold placeholders such as \`%PAYMENT_PERIOD%\`)';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.quotationperiod IS 'days the quotation is valid';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.showtotals IS 'print the totals including tax on the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.date IS 'date the quotation was sent or saved';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.datedue IS 'date plus the quotation period: last day it is valid';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.notes IS 'internal note';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.totalintax IS 'total including tax';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.convert_prices_to_euro IS 'prices are converted to euro at the quotation date';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.sent IS 'false: draft, not sent to the client; true: sent';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.customstatus IS 'status set by hand: \`progress\`, \`completed\`, \`billable\`, \`declined\`; empty when none';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.approved IS 'the client''s approval \`{name, date, ip, comments}\`; empty when not approved';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.clientnr IS 'client number (0: none, on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.contact IS 'client''s contact name, as on the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.company IS 'client''s company name, as on the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.address IS 'client''s address, as on the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.zipcode IS 'client''s postal code, as on the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.city IS 'client''s city, as on the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.country IS 'client''s country id, as on the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.phone IS 'client''s phone number';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.mobile IS 'client''s mobile number';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.email IS 'client''s e-mail address';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.sign_url IS 'where the client can sign the quotation';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.raw IS 'the record exactly as the service sent it (JSON)';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.raw_hash IS 'the record''s text as received: its length in bytes and SHA-256 (\`947:base64\`)';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.first_seen_at IS 'when the mirror first saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.last_changed_at IS 'when the record last changed in the mirror';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.last_seen_at IS 'when a complete pull last saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.deleted_at IS 'when the record disappeared from the service; empty while it exists';

COMMENT ON COLUMN invoice_mirror_baseline.quotations.account_id IS 'the account of the service the row belongs to (accounts.id)';

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

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.id IS 'repeating invoice id';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.name IS 'name of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.reference_line1 IS 'first reference line printed on the invoices';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.reference_line2 IS 'second reference line';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.reference_line3 IS 'third reference line';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.profile IS 'id of the layout profile used (0: none, on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.discounttype IS '\`amount\` or \`percentage\` (empty on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.discount IS 'discount amount, or percentage when \`discounttype\` is \`percentage\`';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.paymentcondition IS 'payment condition text (may hold placeholders such as \`%PAYMENT_PERIOD%\`)';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.paymentperiod IS 'term of payment in days';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.totalintax IS 'total including tax of each invoice sent';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.clientnr IS 'client number (0: none, on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.contact IS 'client''s contact name, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.company IS 'client''s company name, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.address IS 'client''s address, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.zipcode IS 'client''s postal code, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.city IS 'client''s city, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.country IS 'client''s country id, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.datesaved IS 'date the repeating invoice was saved';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.initialdate IS 'date the first invoice is (or was) sent';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.nextsenddate IS 'date the next invoice is sent';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.finalsenddate IS 'date the last invoice is sent (after it the repeating invoice is deleted); empty: no end';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.frequency IS '\`weekly\`, \`biweekly\`, \`fourweekly\`, \`monthly\`, \`bimonthly\`, \`quarterly\`, \`halfyearly\`, \`yearly\`';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.repeattype IS '\`auto\`: the service sends each invoice; \`manual\`: someone sends it';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.email IS 'address the invoices are e-mailed to';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.raw IS 'the record exactly as the service sent it (JSON)';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.raw_hash IS 'the record''s text as received: its length in bytes and SHA-256 (\`947:base64\`)';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.first_seen_at IS 'when the mirror first saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.last_changed_at IS 'when the record last changed in the mirror';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.last_seen_at IS 'when a complete pull last saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.deleted_at IS 'when the record disappeared from the service; empty while it exists';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoices.account_id IS 'the account of the service the row belongs to (accounts.id)';

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

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.id IS 'saved invoice id';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.name IS 'unique name of the invoice (may contain \`/\`)';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.reference_line1 IS 'first reference line printed on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.reference_line2 IS 'second reference line';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.reference_line3 IS 'third reference line';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.profile IS 'id of the layout profile used (0: none, on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.discounttype IS '\`amount\` or \`percentage\` (empty on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.discount IS 'discount amount, or percentage when \`discounttype\` is \`percentage\`';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.paymentcondition IS 'payment condition text (may hold placeholders such as \`%PAYMENT_PERIOD%\`)';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.paymentperiod IS 'term of payment in days';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.totalintax IS 'invoice total including tax';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.clientnr IS 'client number (0: none, on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.contact IS 'client''s contact name, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.company IS 'client''s company name, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.address IS 'client''s address, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.zipcode IS 'client''s postal code, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.city IS 'client''s city, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.country IS 'client''s country id, as on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.totaldiscount IS 'total amount of discount';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.alreadypaid IS 'amount already marked as paid';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.alreadypaidmethod IS 'payment method of the part already paid';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.raw IS 'the record exactly as the service sent it (JSON)';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.raw_hash IS 'the record''s text as received: its length in bytes and SHA-256 (\`947:base64\`)';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.first_seen_at IS 'when the mirror first saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.last_changed_at IS 'when the record last changed in the mirror';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.last_seen_at IS 'when a complete pull last saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.deleted_at IS 'when the record disappeared from the service; empty while it exists';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices.account_id IS 'the account of the service the row belongs to (accounts.id)';

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

COMMENT ON COLUMN invoice_mirror_baseline.taxes.rate_key IS 'the mirror''s key of the rate (the service gives none): a number made from its country, type and percentage';

COMMENT ON COLUMN invoice_mirror_baseline.taxes.percentage IS 'the VAT rate in percent';

COMMENT ON COLUMN invoice_mirror_baseline.taxes.type IS '\`H\` high, \`L\` low, \`Z\` zero, \`N\` none (no VAT)';

COMMENT ON COLUMN invoice_mirror_baseline.taxes."default" IS 'whether it is the rate new lines get';

COMMENT ON COLUMN invoice_mirror_baseline.taxes.country IS 'the country of a foreign rate, as the service gives it; empty for the home rates';

COMMENT ON COLUMN invoice_mirror_baseline.taxes.raw IS 'the record exactly as the service sent it (JSON)';

COMMENT ON COLUMN invoice_mirror_baseline.taxes.raw_hash IS 'the record''s text as received: its length in bytes and SHA-256 (\`947:base64\`)';

COMMENT ON COLUMN invoice_mirror_baseline.taxes.first_seen_at IS 'when the mirror first saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.taxes.last_changed_at IS 'when the record last changed in the mirror';

COMMENT ON COLUMN invoice_mirror_baseline.taxes.last_seen_at IS 'when a complete pull last saw the record';

COMMENT ON COLUMN invoice_mirror_baseline.taxes.deleted_at IS 'when the record disappeared from the service; empty while it exists';

COMMENT ON COLUMN invoice_mirror_baseline.taxes.account_id IS 'the account of the service the row belongs to (accounts.id)';

CREATE VIEW invoice_mirror_baseline.accounts_overview WITH (security_invoker='true') AS
 WITH live AS (
         SELECT countries.account_id,
            count(*) AS n
           FROM invoice_mirror_baseline.countries
          WHERE (countries.deleted_at IS NULL)
          GROUP BY countries.account_id
        UNION ALL
         SELECT taxes.account_id,
            count(*) AS n
           FROM invoice_mirror_baseline.taxes
          WHERE (taxes.deleted_at IS NULL)
          GROUP BY taxes.account_id
        UNION ALL
         SELECT categories.account_id,
            count(*) AS n
           FROM invoice_mirror_baseline.categories
          WHERE (categories.deleted_at IS NULL)
          GROUP BY categories.account_id
        UNION ALL
         SELECT clients.account_id,
            count(*) AS n
           FROM invoice_mirror_baseline.clients
          WHERE (clients.deleted_at IS NULL)
          GROUP BY clients.account_id
        UNION ALL
         SELECT products.account_id,
            count(*) AS n
           FROM invoice_mirror_baseline.products
          WHERE (products.deleted_at IS NULL)
          GROUP BY products.account_id
        UNION ALL
         SELECT quotations.account_id,
            count(*) AS n
           FROM invoice_mirror_baseline.quotations
          WHERE (quotations.deleted_at IS NULL)
          GROUP BY quotations.account_id
        UNION ALL
         SELECT saved_invoices.account_id,
            count(*) AS n
           FROM invoice_mirror_baseline.saved_invoices
          WHERE (saved_invoices.deleted_at IS NULL)
          GROUP BY saved_invoices.account_id
        UNION ALL
         SELECT repeating_invoices.account_id,
            count(*) AS n
           FROM invoice_mirror_baseline.repeating_invoices
          WHERE (repeating_invoices.deleted_at IS NULL)
          GROUP BY repeating_invoices.account_id
        UNION ALL
         SELECT invoices.account_id,
            count(*) AS n
           FROM invoice_mirror_baseline.invoices
          WHERE (invoices.deleted_at IS NULL)
          GROUP BY invoices.account_id
        ), records AS (
         SELECT live.account_id,
            (sum(live.n))::bigint AS n
           FROM live
          GROUP BY live.account_id
        ), pulls AS (
         SELECT sync_runs.account_id,
            max(sync_runs.finished_at) AS at
           FROM invoice_mirror_baseline.sync_runs
          WHERE ((sync_runs.status = 'succeeded'::text) AND (sync_runs.kind = ANY (ARRAY['backfill'::text, 'sync'::text])))
          GROUP BY sync_runs.account_id
        ), queue AS (
         SELECT jobs.account_id,
            (count(*) FILTER (WHERE (jobs.status = 'queued'::text)))::integer AS queued,
            (count(*) FILTER (WHERE (jobs.status = ANY (ARRAY['failed'::text, 'interrupted'::text]))))::integer AS failed
           FROM invoice_mirror_baseline.jobs
          GROUP BY jobs.account_id
        ), held AS (
         SELECT held_deletes.account_id,
            (count(*))::integer AS n
           FROM invoice_mirror_baseline.held_deletes
          GROUP BY held_deletes.account_id
        ), rejected AS (
         SELECT rejected_values.account_id,
            (count(*))::integer AS n
           FROM invoice_mirror_baseline.rejected_values
          GROUP BY rejected_values.account_id
        )
 SELECT a.id AS account_id,
    a.name AS account_name,
    a.state,
    a.state_reason,
    p.at AS last_complete_sync_at,
    date_trunc('second'::text, (now() - p.at)) AS sync_age,
    COALESCE(r.n, (0)::bigint) AS records,
    COALESCE(q.queued, 0) AS queued_jobs,
    COALESCE(q.failed, 0) AS failed_jobs,
    COALESCE(h.n, 0) AS held_deletes,
    COALESCE(x.n, 0) AS rejected_values
   FROM (((((invoice_mirror_baseline.accounts a
     LEFT JOIN records r ON ((r.account_id = a.id)))
     LEFT JOIN pulls p ON ((p.account_id = a.id)))
     LEFT JOIN queue q ON ((q.account_id = a.id)))
     LEFT JOIN held h ON ((h.account_id = a.id)))
     LEFT JOIN rejected x ON ((x.account_id = a.id)));

COMMENT ON VIEW invoice_mirror_baseline.accounts_overview IS 'One row per account of the mirror: its state, when a complete pull (backfill or sync) last succeeded and how long ago, how many live records it holds, its job queue, and what waits for a person (held deletes, values not stored as sent).';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.account_id IS 'id of the account (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.account_name IS 'name of the account';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.state IS 'active (pulled and running jobs), paused, refused (the service refused its key) or removed';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.state_reason IS 'why it is paused, refused or removed';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.last_complete_sync_at IS 'when the newest backfill or sync of the account that succeeded (every entity pulled completely) finished; empty: never';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.sync_age IS 'how long ago that was, to the second';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.records IS 'live records of the account in the mirror tables (countries, taxes, categories, clients, products, quotations, saved_invoices, repeating_invoices, invoices; lines not counted)';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.queued_jobs IS 'jobs waiting to run';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.failed_jobs IS 'jobs that failed or were interrupted (they wait for a person: jobs retry or cancel)';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.held_deletes IS 'deletes held by the delete safeguard (see held_deletes)';

COMMENT ON COLUMN invoice_mirror_baseline.accounts_overview.rejected_values IS 'values not stored as the service sent them (see rejected_values)';

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

CREATE VIEW invoice_mirror_baseline.open_quotations WITH (security_invoker='true') AS
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
    q.totalintax AS total_incl_tax,
    q.account_id,
    a.name AS account_name
   FROM (invoice_mirror_baseline.quotations q
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = q.account_id)))
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

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.open_quotations.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.client_overview WITH (security_invoker='true') AS
 WITH quotation_counts AS (
         SELECT quotations.account_id,
            quotations.clientnr,
            count(*) AS n
           FROM invoice_mirror_baseline.quotations
          WHERE (quotations.deleted_at IS NULL)
          GROUP BY quotations.account_id, quotations.clientnr
        ), invoice_sums AS (
         SELECT invoices.account_id,
            invoices.clientnr,
            count(*) AS n,
            sum(invoices.totalintax) AS invoiced,
            sum(invoices.open) FILTER (WHERE invoice_mirror_baseline.invoice_is_open(invoices.open, invoices.uncollectible)) AS open
           FROM invoice_mirror_baseline.invoices
          WHERE (invoices.deleted_at IS NULL)
          GROUP BY invoices.account_id, invoices.clientnr
        ), open_quotation_counts AS (
         SELECT open_quotations.account_id,
            open_quotations.client_number AS clientnr,
            count(*) AS n,
            sum(open_quotations.total_incl_tax) AS total
           FROM invoice_mirror_baseline.open_quotations
          GROUP BY open_quotations.account_id, open_quotations.client_number
        ), saved_counts AS (
         SELECT saved_invoices.account_id,
            saved_invoices.clientnr,
            count(*) AS n,
            sum(saved_invoices.totalintax) AS total
           FROM invoice_mirror_baseline.saved_invoices
          WHERE (saved_invoices.deleted_at IS NULL)
          GROUP BY saved_invoices.account_id, saved_invoices.clientnr
        ), repeating_counts AS (
         SELECT repeating_invoices.account_id,
            repeating_invoices.clientnr,
            count(*) AS n,
            sum((repeating_invoices.totalintax * (invoice_mirror_baseline.sends_per_year(repeating_invoices.frequency))::numeric)) AS yearly
           FROM invoice_mirror_baseline.repeating_invoices
          WHERE (repeating_invoices.deleted_at IS NULL)
          GROUP BY repeating_invoices.account_id, repeating_invoices.clientnr
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
    (((COALESCE(oq.n, (0)::bigint) + COALESCE(s.n, (0)::bigint)) + COALESCE(r.n, (0)::bigint)))::integer AS open_document_count,
    (COALESCE(i.n, (0)::bigint))::integer AS invoice_count,
    COALESCE(i.invoiced, (0)::numeric) AS invoiced_incl_tax,
    COALESCE(i.open, (0)::numeric) AS open_invoice_amount,
    c.account_id,
    a.name AS account_name
   FROM ((((((invoice_mirror_baseline.clients c
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = c.account_id)))
     LEFT JOIN quotation_counts q ON (((q.account_id = c.account_id) AND (q.clientnr = c.clientnr))))
     LEFT JOIN open_quotation_counts oq ON (((oq.account_id = c.account_id) AND (oq.clientnr = c.clientnr))))
     LEFT JOIN saved_counts s ON (((s.account_id = c.account_id) AND (s.clientnr = c.clientnr))))
     LEFT JOIN repeating_counts r ON (((r.account_id = c.account_id) AND (r.clientnr = c.clientnr))))
     LEFT JOIN invoice_sums i ON (((i.account_id = c.account_id) AND (i.clientnr = c.clientnr))))
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

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.invoice_count IS 'sent invoices (any state)';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.invoiced_incl_tax IS 'sum of the sent invoices, including tax';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.open_invoice_amount IS 'what is still to be paid on the sent invoices (not counting those written off)';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.client_overview.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.client_payment_behaviour WITH (security_invoker='true') AS
 SELECT i.clientnr AS client_number,
    invoice_mirror_baseline.client_display_name(c.company, c.contact) AS client_name,
    (count(*))::integer AS invoice_count,
    (count(*) FILTER (WHERE (i.paiddate IS NOT NULL)))::integer AS paid_invoice_count,
    round(avg((i.paiddate - i.sent)) FILTER (WHERE ((i.paiddate IS NOT NULL) AND (i.sent IS NOT NULL))), 1) AS average_days_to_pay,
    round(avg((i.paiddate - i.duedate)) FILTER (WHERE ((i.paiddate IS NOT NULL) AND (i.duedate IS NOT NULL))), 1) AS average_days_late,
    (count(*) FILTER (WHERE invoice_mirror_baseline.invoice_is_open(i.open, i.uncollectible)))::integer AS open_invoice_count,
    COALESCE(sum(i.open) FILTER (WHERE invoice_mirror_baseline.invoice_is_open(i.open, i.uncollectible)), (0)::numeric) AS open_amount,
    i.account_id,
    a.name AS account_name
   FROM ((invoice_mirror_baseline.invoices i
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = i.account_id)))
     LEFT JOIN invoice_mirror_baseline.clients c ON (((c.account_id = i.account_id) AND (c.clientnr = i.clientnr) AND (c.deleted_at IS NULL))))
  WHERE (i.deleted_at IS NULL)
  GROUP BY i.account_id, a.name, i.clientnr, c.company, c.contact;

COMMENT ON VIEW invoice_mirror_baseline.client_payment_behaviour IS 'Per client with sent invoices: how many were paid in full, how many days after sending they were paid on average, how many days after the due date (negative: early), and what is still open.';

COMMENT ON COLUMN invoice_mirror_baseline.client_payment_behaviour.client_number IS 'client number (0: invoices without a client, on old records)';

COMMENT ON COLUMN invoice_mirror_baseline.client_payment_behaviour.client_name IS 'client name (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.client_payment_behaviour.invoice_count IS 'sent invoices';

COMMENT ON COLUMN invoice_mirror_baseline.client_payment_behaviour.paid_invoice_count IS 'of which paid in full';

COMMENT ON COLUMN invoice_mirror_baseline.client_payment_behaviour.average_days_to_pay IS 'average days from sending to payment in full (one decimal)';

COMMENT ON COLUMN invoice_mirror_baseline.client_payment_behaviour.average_days_late IS 'average days from the due date to payment in full; negative when paid early (one decimal)';

COMMENT ON COLUMN invoice_mirror_baseline.client_payment_behaviour.open_invoice_count IS 'invoices still to be paid (not counting those written off)';

COMMENT ON COLUMN invoice_mirror_baseline.client_payment_behaviour.open_amount IS 'what they still have to be paid';

COMMENT ON COLUMN invoice_mirror_baseline.client_payment_behaviour.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.client_payment_behaviour.account_name IS 'name of that account (accounts.name)';

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

COMMENT ON COLUMN invoice_mirror_baseline.document_lines.amount IS 'quantity; empty on a text line';

COMMENT ON COLUMN invoice_mirror_baseline.document_lines.amount_desc IS 'unit of the quantity, e.g. \`uur\`';

COMMENT ON COLUMN invoice_mirror_baseline.document_lines.description IS 'text of the line';

COMMENT ON COLUMN invoice_mirror_baseline.document_lines.tax_rate IS 'tax percentage of the line';

COMMENT ON COLUMN invoice_mirror_baseline.document_lines.price IS 'unit price';

COMMENT ON COLUMN invoice_mirror_baseline.document_lines.discount_pct IS 'discount percentage of the line';

COMMENT ON COLUMN invoice_mirror_baseline.document_lines.linetotal IS 'line total as computed by the service';

COMMENT ON COLUMN invoice_mirror_baseline.document_lines.account_id IS 'the account of the service the row belongs to (accounts.id)';

CREATE VIEW invoice_mirror_baseline.ending_repeating_invoices WITH (security_invoker='true') AS
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
    ((remaining.sends)::numeric * r.totalintax) AS remaining_amount,
    r.account_id,
    a.name AS account_name
   FROM ((invoice_mirror_baseline.repeating_invoices r
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = r.account_id)))
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

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.ending_repeating_invoices.account_name IS 'name of that account (accounts.name)';

CREATE TABLE invoice_mirror_baseline.entity_pulls (
    entity text NOT NULL,
    last_complete_at timestamp with time zone,
    last_complete_run_id bigint,
    since_cursor date,
    account_id integer NOT NULL
);

CREATE VIEW invoice_mirror_baseline.eu_vat_area AS
 SELECT m.code,
    m.member_from,
    m.member_until,
    m.note
   FROM ( VALUES ('AT'::text,'1995-01-01'::date,NULL::date,NULL::text), ('BE'::text,'1958-01-01'::date,NULL::date,NULL::text), ('BG'::text,'2007-01-01'::date,NULL::date,NULL::text), ('CY'::text,'2004-05-01'::date,NULL::date,NULL::text), ('CZ'::text,'2004-05-01'::date,NULL::date,NULL::text), ('DE'::text,'1958-01-01'::date,NULL::date,NULL::text), ('DK'::text,'1973-01-01'::date,NULL::date,NULL::text), ('EE'::text,'2004-05-01'::date,NULL::date,NULL::text), ('ES'::text,'1986-01-01'::date,NULL::date,NULL::text), ('FI'::text,'1995-01-01'::date,NULL::date,NULL::text), ('FR'::text,'1958-01-01'::date,NULL::date,NULL::text), ('GB'::text,'1973-01-01'::date,'2020-12-31'::date,'left the EU VAT area at the end of 2020'::text), ('GR'::text,'1981-01-01'::date,NULL::date,'VAT numbers begin with EL'::text), ('HR'::text,'2013-07-01'::date,NULL::date,NULL::text), ('HU'::text,'2004-05-01'::date,NULL::date,NULL::text), ('IE'::text,'1973-01-01'::date,NULL::date,NULL::text), ('IM'::text,'1973-01-01'::date,'2020-12-31'::date,'part of the British VAT area'::text), ('IT'::text,'1958-01-01'::date,NULL::date,NULL::text), ('LT'::text,'2004-05-01'::date,NULL::date,NULL::text), ('LU'::text,'1958-01-01'::date,NULL::date,NULL::text), ('LV'::text,'2004-05-01'::date,NULL::date,NULL::text), ('MC'::text,'1958-01-01'::date,NULL::date,'part of the French VAT area'::text), ('MT'::text,'2004-05-01'::date,NULL::date,NULL::text), ('NL'::text,'1958-01-01'::date,NULL::date,NULL::text), ('PL'::text,'2004-05-01'::date,NULL::date,NULL::text), ('PT'::text,'1986-01-01'::date,NULL::date,NULL::text), ('RO'::text,'2007-01-01'::date,NULL::date,NULL::text), ('SE'::text,'1995-01-01'::date,NULL::date,NULL::text), ('SI'::text,'2004-05-01'::date,NULL::date,NULL::text), ('SK'::text,'2004-05-01'::date,NULL::date,NULL::text)) m(code, member_from, member_until, note);

COMMENT ON VIEW invoice_mirror_baseline.eu_vat_area IS 'The countries of the EU VAT area by ISO code, with the days their membership began and ended (inclusive); what eu_member() reads';

COMMENT ON COLUMN invoice_mirror_baseline.eu_vat_area.code IS 'ISO 3166-1 alpha-2 code';

COMMENT ON COLUMN invoice_mirror_baseline.eu_vat_area.member_from IS 'first day in the EU VAT area';

COMMENT ON COLUMN invoice_mirror_baseline.eu_vat_area.member_until IS 'last day in it; empty while a member';

COMMENT ON COLUMN invoice_mirror_baseline.eu_vat_area.note IS 'what else to know (Greece: VAT numbers begin with EL; Monaco: French VAT area; …)';

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

CREATE VIEW invoice_mirror_baseline.vat_entries WITH (security_invoker='true') AS
 WITH invoice_entries AS (
         SELECT i.account_id,
            a.name AS account_name,
            a.vat_country AS account_country,
            i.id AS invoice_id,
            i.invoicenr AS invoice_number,
            i.sent AS invoice_date,
            i.clientnr AS client_number,
            invoice_mirror_baseline.client_display_name(i.company, i.contact) AS client_name,
            i.country AS country_id,
            c.name AS country_name,
            c.iso2 AS country_iso2,
            (c.id IS NOT NULL) AS country_listed,
            NULLIF(upper(regexp_replace(COALESCE(i.taxnumber, ''::text), '[^A-Za-z0-9]'::text, ''::text, 'g'::text)), ''::text) AS vat_number,
            COALESCE(i.tax_shifted, false) AS tax_shifted,
            e.entry_key,
            e.rate,
            e.base,
            e.vat,
            e.readable
           FROM (((invoice_mirror_baseline.invoices i
             JOIN invoice_mirror_baseline.accounts a ON ((a.id = i.account_id)))
             LEFT JOIN invoice_mirror_baseline.countries c ON (((c.account_id = i.account_id) AND (c.id = i.country) AND (c.deleted_at IS NULL))))
             LEFT JOIN LATERAL ( SELECT vat_tax_entries.entry_key,
                    vat_tax_entries.rate,
                    vat_tax_entries.vat,
                    vat_tax_entries.base,
                    vat_tax_entries.readable
                   FROM invoice_mirror_baseline.vat_tax_entries(i.taxes) vat_tax_entries(entry_key, rate, vat, base, readable)
                 OFFSET 0) e ON (true))
          WHERE ((i.deleted_at IS NULL) AND ((e.entry_key IS NOT NULL) OR (COALESCE(i.totalintax, (0)::numeric) <> (0)::numeric)))
        ), judged AS (
         SELECT x.account_id,
            x.account_name,
            x.account_country,
            x.invoice_id,
            x.invoice_number,
            x.invoice_date,
            x.client_number,
            x.client_name,
            x.country_id,
            x.country_name,
            x.country_iso2,
            x.country_listed,
            x.vat_number,
            x.tax_shifted,
            x.entry_key,
            x.rate,
            x.base,
            x.vat,
            x.readable,
            k.rate_kind,
            (x.country_iso2 = x.account_country) AS domestic,
            k.eu_buyer,
            (x.tax_shifted OR (x.rate = (0)::numeric)) AS untaxed
           FROM (invoice_entries x
             CROSS JOIN LATERAL ( SELECT invoice_mirror_baseline.vat_rate_kind(x.account_country, x.rate, x.invoice_date) AS rate_kind,
                    invoice_mirror_baseline.eu_vat_buyer(x.country_iso2, x.vat_number, x.invoice_date) AS eu_buyer
                 OFFSET 0) k)
        ), classified AS (
         SELECT j.account_id,
            j.account_name,
            j.account_country,
            j.invoice_id,
            j.invoice_number,
            j.invoice_date,
            j.client_number,
            j.client_name,
            j.country_id,
            j.country_name,
            j.country_iso2,
            j.country_listed,
            j.vat_number,
            j.tax_shifted,
            j.entry_key,
            j.rate,
            j.base,
            j.vat,
            j.readable,
            j.rate_kind,
            j.domestic,
            j.eu_buyer,
            j.untaxed,
                CASE
                    WHEN (j.entry_key IS NULL) THEN 'no_taxes'::text
                    WHEN (NOT j.readable) THEN 'unreadable_taxes'::text
                    WHEN (j.invoice_date IS NULL) THEN 'no_date'::text
                    WHEN ((j.base = (0)::numeric) AND (j.vat <> (0)::numeric)) THEN 'vat_without_base'::text
                    WHEN (j.rate_kind = 'former'::text) THEN 'former_rate'::text
                    WHEN (j.rate_kind = 'unknown'::text) THEN 'unknown_rate'::text
                    WHEN ((j.rate_kind = 'zero'::text) AND (j.vat <> (0)::numeric)) THEN 'vat_at_zero_rate'::text
                    WHEN (j.tax_shifted AND (j.vat <> (0)::numeric)) THEN 'vat_on_shifted'::text
                    WHEN (j.tax_shifted AND (j.vat_number IS NULL)) THEN 'shifted_without_vat_number'::text
                    WHEN (j.untaxed AND ((COALESCE(j.country_id, 0) = 0) OR (NOT j.country_listed))) THEN 'no_country'::text
                    WHEN (j.untaxed AND (j.country_iso2 IS NULL)) THEN 'unmapped_country'::text
                    WHEN (j.untaxed AND (NOT j.domestic) AND j.eu_buyer AND (j.vat_number IS NULL)) THEN 'eu_without_vat_number'::text
                    ELSE NULL::text
                END AS problem
           FROM judged j
        ), treated AS (
         SELECT c.account_id,
            c.account_name,
            c.account_country,
            c.invoice_id,
            c.invoice_number,
            c.invoice_date,
            c.client_number,
            c.client_name,
            c.country_id,
            c.country_name,
            c.country_iso2,
            c.country_listed,
            c.vat_number,
            c.tax_shifted,
            c.entry_key,
            c.rate,
            c.base,
            c.vat,
            c.readable,
            c.rate_kind,
            c.domestic,
            c.eu_buyer,
            c.untaxed,
            c.problem,
                CASE
                    WHEN (c.problem IS NOT NULL) THEN NULL::text
                    WHEN c.untaxed THEN
                    CASE
                        WHEN c.domestic THEN
                        CASE
                            WHEN c.tax_shifted THEN 'reverse_charge'::text
                            ELSE 'zero_rated'::text
                        END
                        WHEN c.eu_buyer THEN 'intra_eu'::text
                        ELSE 'export'::text
                    END
                    ELSE 'domestic_vat'::text
                END AS treatment
           FROM classified c
        )
 SELECT t.invoice_id,
    t.invoice_number,
    t.invoice_date,
    to_char((t.invoice_date)::timestamp with time zone, 'YYYY-"Q"Q'::text) AS quarter,
    to_char((t.invoice_date)::timestamp with time zone, 'YYYY-MM'::text) AS month,
    t.client_number,
    t.client_name,
    t.country_id,
    t.country_name,
    t.country_iso2,
    t.eu_buyer,
    t.vat_number,
    t.tax_shifted,
    t.entry_key,
    t.rate,
    t.base,
    t.vat,
    t.treatment,
        CASE t.treatment
            WHEN 'domestic_vat'::text THEN 'S'::text
            WHEN 'zero_rated'::text THEN 'Z'::text
            WHEN 'reverse_charge'::text THEN 'AE'::text
            WHEN 'intra_eu'::text THEN 'K'::text
            WHEN 'export'::text THEN 'G'::text
            ELSE NULL::text
        END AS peppol_category,
        CASE
            WHEN (t.account_country = 'NL'::text) THEN
            CASE t.treatment
                WHEN 'domestic_vat'::text THEN
                CASE t.rate_kind
                    WHEN 'high'::text THEN '1a'::text
                    WHEN 'low'::text THEN '1b'::text
                    ELSE '1c'::text
                END
                WHEN 'zero_rated'::text THEN '1e'::text
                WHEN 'reverse_charge'::text THEN '1e'::text
                WHEN 'intra_eu'::text THEN '3b'::text
                WHEN 'export'::text THEN '3a'::text
                ELSE NULL::text
            END
            ELSE NULL::text
        END AS nl_rubric,
        CASE
            WHEN (t.account_country = 'BE'::text) THEN
            CASE
                WHEN (t.treatment IS NULL) THEN NULL::text
                WHEN (t.base < (0)::numeric) THEN
                CASE
                    WHEN (t.treatment = 'intra_eu'::text) THEN '48'::text
                    ELSE '49'::text
                END
                WHEN (t.treatment = 'domestic_vat'::text) THEN
                CASE t.rate_kind
                    WHEN 'high'::text THEN '03'::text
                    WHEN 'intermediate'::text THEN '02'::text
                    ELSE '01'::text
                END
                ELSE
                CASE t.treatment
                    WHEN 'zero_rated'::text THEN '00'::text
                    WHEN 'reverse_charge'::text THEN '45'::text
                    WHEN 'intra_eu'::text THEN '46'::text
                    ELSE '47'::text
                END
            END
            ELSE NULL::text
        END AS be_grid,
        CASE
            WHEN ((t.account_country = 'BE'::text) AND (t.treatment = 'domestic_vat'::text)) THEN
            CASE
                WHEN (t.base < (0)::numeric) THEN '64'::text
                ELSE '54'::text
            END
            ELSE NULL::text
        END AS be_vat_grid,
    t.problem,
    t.account_country,
    t.account_id,
    t.account_name
   FROM treated t;

COMMENT ON VIEW invoice_mirror_baseline.vat_entries IS 'One row per VAT entry (rate, VAT, base) of every live sent invoice, as the service computed it (taxes), classified: treatment, rubric of the Dutch return, grid of the Belgian one, Peppol VAT category; or the problem that keeps it out of every rubric. Dated by the invoice date (sent). An invoice with a total but no entries is one row with problem no_taxes.';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.invoice_id IS 'id of the sent invoice';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.invoice_number IS 'its invoice number';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.invoice_date IS 'its date (sent): the date that places it in a period; empty on some old records';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.quarter IS 'the quarter of the invoice date, e.g. 2026-Q1';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.month IS 'the month of the invoice date, e.g. 2026-03';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.client_number IS 'client number on the invoice (0: none)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.client_name IS 'client name as printed on the invoice (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.country_id IS 'the invoice''s country id (countries.id); empty or 0 when missing';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.country_name IS 'that country as the service names it (in Dutch)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.country_iso2 IS 'its ISO 3166-1 alpha-2 code (countries.iso2); empty when the name maps to none';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.eu_buyer IS 'whether the buyer counts as in the EU VAT area on the invoice date (eu_vat_buyer: a member country, or a British buyer with an XI VAT number since 2021)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.vat_number IS 'the buyer''s VAT number on the invoice, upper case, without spaces and punctuation; empty: none';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.tax_shifted IS 'whether the VAT is shifted to the buyer (reverse charge); false on records that predate the field';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.entry_key IS 'the key of the entry in taxes (tax1, …); empty on a row of problem no_taxes';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.rate IS 'the VAT rate in percent, as the service gave it';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.base IS 'the amount the VAT is over (sum_of), as the service computed it; negative on a credit note';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.vat IS 'the VAT (sum), as the service computed it';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.treatment IS 'domestic_vat (VAT of the account country charged), zero_rated (0 % at home), reverse_charge (shifted to a buyer at home), intra_eu (0 % or shifted to a buyer in another EU country), export (0 % or shifted to a buyer outside the EU); empty when a problem keeps it out';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.peppol_category IS 'the Peppol BIS / EN 16931 VAT category of the treatment: S, Z, AE, K (intra-EU), G (export); empty with a problem';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.nl_rubric IS 'rubric of the Dutch return (1a, 1b, 1c, 1e, 3a, 3b) for an account whose vat_country is NL';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.be_grid IS 'grid of the Belgian return for an account whose vat_country is BE: 00, 01, 02, 03, 45, 46, 47, and for credit notes 48 (of 46) or 49';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.be_vat_grid IS 'grid of its VAT in the Belgian return: 54 (VAT due), 64 (VAT on credit notes issued)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.problem IS 'why it cannot be classified (see vat_problems); empty when classified';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.account_country IS 'the account''s VAT country (accounts.vat_country)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_entries.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.icp_return WITH (security_invoker='true') AS
 SELECT e.quarter AS period,
    'quarter'::text AS period_kind,
    e.country_iso2,
        CASE
            WHEN (e.vat_number ~ '^[A-Z]{2}'::text) THEN "left"(e.vat_number, 2)
            ELSE NULL::text
        END AS vat_prefix,
    e.vat_number,
    sum(e.base) AS base,
    (count(*))::integer AS entries,
    (count(DISTINCT e.invoice_id))::integer AS invoices,
    e.account_id,
    e.account_name
   FROM invoice_mirror_baseline.vat_entries e
  WHERE (e.treatment = 'intra_eu'::text)
  GROUP BY e.account_id, e.account_name, e.quarter, e.country_iso2, e.vat_number
UNION ALL
 SELECT e.month AS period,
    'month'::text AS period_kind,
    e.country_iso2,
        CASE
            WHEN (e.vat_number ~ '^[A-Z]{2}'::text) THEN "left"(e.vat_number, 2)
            ELSE NULL::text
        END AS vat_prefix,
    e.vat_number,
    sum(e.base) AS base,
    (count(*))::integer AS entries,
    (count(DISTINCT e.invoice_id))::integer AS invoices,
    e.account_id,
    e.account_name
   FROM invoice_mirror_baseline.vat_entries e
  WHERE (e.treatment = 'intra_eu'::text)
  GROUP BY e.account_id, e.account_name, e.month, e.country_iso2, e.vat_number;

COMMENT ON VIEW invoice_mirror_baseline.icp_return IS 'The Opgaaf intracommunautaire prestaties (the Belgian listing likewise): per account, period (quarter and month of the invoice date), buyer country and VAT number, the base of the entries vat_entries treats as intra_eu, goods and services together (the invoices do not tell them apart). Its total per period equals rubric 3b of vat_return_nl.';

COMMENT ON COLUMN invoice_mirror_baseline.icp_return.period IS 'the period: a quarter (2026-Q1) or a month (2026-03) of the invoice date';

COMMENT ON COLUMN invoice_mirror_baseline.icp_return.period_kind IS 'quarter or month';

COMMENT ON COLUMN invoice_mirror_baseline.icp_return.country_iso2 IS 'the buyer''s country (ISO code)';

COMMENT ON COLUMN invoice_mirror_baseline.icp_return.vat_prefix IS 'the country prefix of the buyer''s VAT number (EL for Greece, XI for Northern Ireland)';

COMMENT ON COLUMN invoice_mirror_baseline.icp_return.vat_number IS 'the buyer''s VAT number, as on the invoices (upper case, no spaces)';

COMMENT ON COLUMN invoice_mirror_baseline.icp_return.base IS 'the amount supplied to the buyer in the period, goods and services together; negative after credit notes';

COMMENT ON COLUMN invoice_mirror_baseline.icp_return.entries IS 'how many VAT entries it adds up';

COMMENT ON COLUMN invoice_mirror_baseline.icp_return.invoices IS 'how many invoices';

COMMENT ON COLUMN invoice_mirror_baseline.icp_return.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.icp_return.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.inactive_clients_with_open_documents WITH (security_invoker='true') AS
 SELECT client_overview.client_number,
    client_overview.client_name,
    client_overview.city,
    client_overview.last_invoice_date,
    client_overview.open_quotation_count,
    client_overview.saved_invoice_count,
    client_overview.repeating_invoice_count,
    client_overview.open_document_count,
    client_overview.account_id,
    client_overview.account_name
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

COMMENT ON COLUMN invoice_mirror_baseline.inactive_clients_with_open_documents.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.inactive_clients_with_open_documents.account_name IS 'name of that account (accounts.name)';

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

CREATE VIEW invoice_mirror_baseline.invoice_revenue_per_month WITH (security_invoker='true') AS
 SELECT (date_trunc('month'::text, (i.sent)::timestamp with time zone))::date AS month,
    (count(*))::integer AS invoice_count,
    COALESCE(sum((i.totalintax - COALESCE(i.tax, (0)::numeric))), (0)::numeric) AS total_excl_tax,
    COALESCE(sum(i.tax), (0)::numeric) AS tax,
    COALESCE(sum(i.totalintax), (0)::numeric) AS total_incl_tax,
    COALESCE(sum(i.open) FILTER (WHERE invoice_mirror_baseline.invoice_is_open(i.open, i.uncollectible)), (0)::numeric) AS still_open,
    i.account_id,
    a.name AS account_name
   FROM (invoice_mirror_baseline.invoices i
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = i.account_id)))
  WHERE ((i.deleted_at IS NULL) AND (i.sent IS NOT NULL))
  GROUP BY i.account_id, a.name, (date_trunc('month'::text, (i.sent)::timestamp with time zone));

COMMENT ON VIEW invoice_mirror_baseline.invoice_revenue_per_month IS 'Sent invoices per calendar month of their send date: how many, their totals excluding tax, the tax and including tax, and what of them is still to be paid. Invoices without a send date (some old ones) are left out.';

COMMENT ON COLUMN invoice_mirror_baseline.invoice_revenue_per_month.month IS 'first day of the month the invoices were sent in';

COMMENT ON COLUMN invoice_mirror_baseline.invoice_revenue_per_month.invoice_count IS 'invoices sent that month';

COMMENT ON COLUMN invoice_mirror_baseline.invoice_revenue_per_month.total_excl_tax IS 'their totals excluding tax';

COMMENT ON COLUMN invoice_mirror_baseline.invoice_revenue_per_month.tax IS 'their tax';

COMMENT ON COLUMN invoice_mirror_baseline.invoice_revenue_per_month.total_incl_tax IS 'their totals including tax';

COMMENT ON COLUMN invoice_mirror_baseline.invoice_revenue_per_month.still_open IS 'what of them is still to be paid (not counting those written off)';

COMMENT ON COLUMN invoice_mirror_baseline.invoice_revenue_per_month.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.invoice_revenue_per_month.account_name IS 'name of that account (accounts.name)';

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

CREATE VIEW invoice_mirror_baseline.product_stock WITH (security_invoker='true') AS
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
    round((p.stock * p.price), 2) AS stock_value_excl_tax,
    p.account_id,
    a.name AS account_name
   FROM (invoice_mirror_baseline.products p
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = p.account_id)))
  WHERE ((p.deleted_at IS NULL) AND p.stock_use);

COMMENT ON VIEW invoice_mirror_baseline.product_stock IS 'Products whose stock is tracked, with stock value and status (negative, out of stock, low = fewer than 5 units, in stock).';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.product_id IS 'id of the product';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.product_code IS 'your own product code';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.product_name IS 'name shown on invoices';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.stock IS 'units in stock (can be negative)';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.stock_status IS 'negative, out of stock (0), low (fewer than 5), in stock; unknown when the service sent no number';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.price_excl_tax IS 'unit price excluding tax';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.stock_value_excl_tax IS 'stock x unit price excluding tax, rounded to cents';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.product_stock.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.low_stock_products WITH (security_invoker='true') AS
 SELECT product_stock.product_id,
    product_stock.product_code,
    product_stock.product_name,
    product_stock.stock,
    product_stock.stock_status,
    product_stock.price_excl_tax,
    product_stock.account_id,
    product_stock.account_name
   FROM invoice_mirror_baseline.product_stock
  WHERE (product_stock.stock_status = ANY (ARRAY['negative'::text, 'out of stock'::text, 'low'::text]));

COMMENT ON VIEW invoice_mirror_baseline.low_stock_products IS 'Stock-tracked products that need attention: negative stock, out of stock, or fewer than 5 units (see product_stock).';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.product_id IS 'id of the product';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.product_code IS 'your own product code';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.product_name IS 'name shown on invoices';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.stock IS 'units in stock (can be negative)';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.stock_status IS 'negative, out of stock (0) or low (fewer than 5)';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.price_excl_tax IS 'unit price excluding tax';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.low_stock_products.account_name IS 'name of that account (accounts.name)';

CREATE TABLE invoice_mirror_baseline.notification_channels (
    purpose text NOT NULL,
    channel text NOT NULL,
    CONSTRAINT notification_channels_purpose_check CHECK ((purpose = ANY (ARRAY['jobs'::text, 'events'::text])))
);

COMMENT ON TABLE invoice_mirror_baseline.notification_channels IS 'The NOTIFY channels of queued jobs and new events: readable only by roles that may run jobs (UPDATE on jobs)';

COMMENT ON COLUMN invoice_mirror_baseline.notification_channels.purpose IS 'jobs (a job was queued) or events (events were written)';

COMMENT ON COLUMN invoice_mirror_baseline.notification_channels.channel IS 'the channel''s name, with a random part no other role can read';

CREATE VIEW invoice_mirror_baseline.open_receivables WITH (security_invoker='true') AS
 SELECT i.id AS invoice_id,
    i.invoicenr AS invoice_number,
    i.clientnr AS client_number,
    invoice_mirror_baseline.client_display_name(i.company, i.contact) AS client_name,
    i.sent AS sent_date,
    i.duedate AS due_date,
    COALESCE((i.duedate < CURRENT_DATE), false) AS overdue,
    GREATEST(COALESCE((CURRENT_DATE - i.duedate), 0), 0) AS days_overdue,
        CASE
            WHEN (COALESCE((CURRENT_DATE - i.duedate), 0) <= 30) THEN '0-30'::text
            WHEN ((CURRENT_DATE - i.duedate) <= 60) THEN '31-60'::text
            WHEN ((CURRENT_DATE - i.duedate) <= 90) THEN '61-90'::text
            ELSE '90+'::text
        END AS aging_bucket,
    i.totalintax AS total_incl_tax,
    i.open AS open_amount,
    i.account_id,
    a.name AS account_name
   FROM (invoice_mirror_baseline.invoices i
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = i.account_id)))
  WHERE ((i.deleted_at IS NULL) AND invoice_mirror_baseline.invoice_is_open(i.open, i.uncollectible));

COMMENT ON VIEW invoice_mirror_baseline.open_receivables IS 'Sent invoices with something still to be paid (not written off as uncollectible), with how many days they are past their due date and their aging bucket (0-30, 31-60, 61-90, 90+ days overdue; not yet due counts as 0).';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.invoice_id IS 'id of the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.invoice_number IS 'invoice number';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.client_number IS 'number of the client the invoice is for';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.client_name IS 'client name as printed on the document (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.sent_date IS 'date the invoice was sent';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.due_date IS 'date payment was due';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.overdue IS 'true when the due date has passed';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.days_overdue IS 'days since the due date (0 when not yet due, or without a due date)';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.aging_bucket IS '0-30, 31-60, 61-90 or 90+ days overdue';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.total_incl_tax IS 'invoice total including tax';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.open_amount IS 'what is still to be paid';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.open_receivables.account_name IS 'name of that account (accounts.name)';

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

CREATE VIEW invoice_mirror_baseline.payments_received WITH (security_invoker='true') AS
 SELECT to_char((COALESCE(p.paid_on, (p.detected_at)::date))::timestamp with time zone, 'YYYY-"Q"Q'::text) AS period,
    to_char((COALESCE(p.paid_on, (p.detected_at)::date))::timestamp with time zone, 'YYYY-MM'::text) AS month,
    COALESCE(p.method, 'unknown'::text) AS method,
    p.source,
    (count(*))::integer AS payments,
    COALESCE(sum(p.amount), (0)::numeric) AS amount,
    (count(*) FILTER (WHERE (p.amount IS NULL)))::integer AS amount_unknown,
    p.account_id,
    a.name AS account_name
   FROM (invoice_mirror_baseline.payments p
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = p.account_id)))
  GROUP BY p.account_id, a.name, (to_char((COALESCE(p.paid_on, (p.detected_at)::date))::timestamp with time zone, 'YYYY-"Q"Q'::text)), (to_char((COALESCE(p.paid_on, (p.detected_at)::date))::timestamp with time zone, 'YYYY-MM'::text)), COALESCE(p.method, 'unknown'::text), p.source;

COMMENT ON VIEW invoice_mirror_baseline.payments_received IS 'The payments of sent invoices the mirror knows (table payments), per month of the payment, method and source: registered (by a register_payment job: its date and method) or observed (a drop of the open amount between two reads: dated by the paid date the service gives when the drop paid the invoice, else by when the mirror saw it; method unknown). A payment whose amount is not known yet (a registered "full" payment not seen since) is counted, without an amount.';

COMMENT ON COLUMN invoice_mirror_baseline.payments_received.period IS 'the quarter of the payment date, e.g. 2026-Q1';

COMMENT ON COLUMN invoice_mirror_baseline.payments_received.month IS 'the month of the payment date (its paid_on, else the day the mirror saw it)';

COMMENT ON COLUMN invoice_mirror_baseline.payments_received.method IS 'how it was paid, as the job said (bank, cash, …); unknown for observed payments';

COMMENT ON COLUMN invoice_mirror_baseline.payments_received.source IS 'registered (by the mirror, through a register_payment job) or observed (a drop of open seen by a pull)';

COMMENT ON COLUMN invoice_mirror_baseline.payments_received.payments IS 'how many payments';

COMMENT ON COLUMN invoice_mirror_baseline.payments_received.amount IS 'their amounts added up';

COMMENT ON COLUMN invoice_mirror_baseline.payments_received.amount_unknown IS 'of which the amount is not known yet (a registered "full" payment not seen by a pull since)';

COMMENT ON COLUMN invoice_mirror_baseline.payments_received.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.payments_received.account_name IS 'name of that account (accounts.name)';

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

CREATE VIEW invoice_mirror_baseline.quotation_pipeline WITH (security_invoker='true') AS
 SELECT staged.stage,
    staged.custom_status,
    staged.approved,
    (count(*))::integer AS quotation_count,
    COALESCE(sum(staged.totalintax), (0)::numeric) AS total_incl_tax,
    min(staged.date) AS oldest_quotation_date,
    staged.account_id,
    staged.account_name
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
            q.date,
            q.account_id,
            a.name AS account_name
           FROM (invoice_mirror_baseline.quotations q
             JOIN invoice_mirror_baseline.accounts a ON ((a.id = q.account_id)))
          WHERE (q.deleted_at IS NULL)) staged
  GROUP BY staged.account_id, staged.account_name, staged.stage, staged.custom_status, staged.approved;

COMMENT ON VIEW invoice_mirror_baseline.quotation_pipeline IS 'Live quotations counted by stage and custom status. Stage: draft (not sent), declined (custom status declined), approved (approved by the client), open (sent, waiting for an answer).';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.stage IS 'draft (not sent), open (sent, waiting for an answer), approved, or declined';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.custom_status IS 'status set by hand: progress, completed, billable, declined; none when not set';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.approved IS 'whether the client approved these quotations';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.quotation_count IS 'number of quotations';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.total_incl_tax IS 'sum of their totals including tax';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.oldest_quotation_date IS 'date of the oldest quotation in the group';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.quotation_pipeline.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.receivables_aging WITH (security_invoker='true') AS
 SELECT open_receivables.aging_bucket,
    (count(*))::integer AS invoice_count,
    COALESCE(sum(open_receivables.open_amount), (0)::numeric) AS open_amount,
    max(open_receivables.days_overdue) AS most_days_overdue,
    open_receivables.account_id,
    open_receivables.account_name
   FROM invoice_mirror_baseline.open_receivables
  GROUP BY open_receivables.account_id, open_receivables.account_name, open_receivables.aging_bucket;

COMMENT ON VIEW invoice_mirror_baseline.receivables_aging IS 'Open receivables (see open_receivables) summed per aging bucket: 0-30, 31-60, 61-90 and 90+ days overdue.';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_aging.aging_bucket IS '0-30, 31-60, 61-90 or 90+ days overdue';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_aging.invoice_count IS 'invoices in the bucket';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_aging.open_amount IS 'what they still have to be paid';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_aging.most_days_overdue IS 'days overdue of the oldest one';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_aging.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_aging.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.receivables_by_account WITH (security_invoker='true') AS
 SELECT r.account_id,
    r.account_name,
    r.client_number,
    COALESCE(invoice_mirror_baseline.client_display_name(c.company, c.contact), (array_agg(r.client_name ORDER BY r.invoice_id DESC))[1]) AS client_name,
    (count(*))::integer AS open_invoices,
    COALESCE(sum(r.open_amount), (0)::numeric) AS open_amount,
    (count(*) FILTER (WHERE r.overdue))::integer AS overdue_invoices,
    COALESCE(sum(r.open_amount) FILTER (WHERE r.overdue), (0)::numeric) AS overdue_amount,
    min(r.due_date) AS oldest_due_date,
    max(r.days_overdue) AS most_days_overdue
   FROM (invoice_mirror_baseline.open_receivables r
     LEFT JOIN invoice_mirror_baseline.clients c ON (((c.account_id = r.account_id) AND (c.clientnr = r.client_number) AND (c.deleted_at IS NULL))))
  GROUP BY r.account_id, r.account_name, r.client_number, c.company, c.contact;

COMMENT ON VIEW invoice_mirror_baseline.receivables_by_account IS 'Open receivables (see open_receivables) per account and client: how many invoices are still to be paid and for how much, how much of it is overdue, and the oldest due date.';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_by_account.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_by_account.account_name IS 'name of that account (accounts.name)';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_by_account.client_number IS 'client number on the invoices (0: invoices without a client)';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_by_account.client_name IS 'client name (company, or contact when there is no company); from the client record, or from the newest invoice when the client is gone';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_by_account.open_invoices IS 'invoices still to be paid (not counting those written off)';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_by_account.open_amount IS 'what they still have to be paid';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_by_account.overdue_invoices IS 'of which past their due date';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_by_account.overdue_amount IS 'what the overdue ones still have to be paid';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_by_account.oldest_due_date IS 'the earliest due date among them';

COMMENT ON COLUMN invoice_mirror_baseline.receivables_by_account.most_days_overdue IS 'days overdue of the oldest one (0 when none is overdue)';

CREATE VIEW invoice_mirror_baseline.recent_changes WITH (security_invoker='true') AS
 SELECT (ch.detected_at)::date AS day,
    ch.entity,
    (count(*) FILTER (WHERE (ch.op = 'insert'::text)))::integer AS inserted,
    (count(*) FILTER (WHERE (ch.op = 'update'::text)))::integer AS updated,
    (count(*) FILTER (WHERE (ch.op = 'delete'::text)))::integer AS deleted,
    (count(*) FILTER (WHERE (ch.op = 'restore'::text)))::integer AS restored,
    (count(*))::integer AS total_changes,
    ch.account_id,
    a.name AS account_name
   FROM (invoice_mirror_baseline.changes ch
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = ch.account_id)))
  WHERE (ch.detected_at >= (CURRENT_DATE - 30))
  GROUP BY ch.account_id, a.name, ((ch.detected_at)::date), ch.entity;

COMMENT ON VIEW invoice_mirror_baseline.recent_changes IS 'History: the changes the mirror detected in the last 30 days (and today), counted per account, day and table, deleted records included. For older history or details, query changes.';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.day IS 'day the changes were detected (time zone of the database session)';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.entity IS 'table the changed records live in, e.g. clients';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.inserted IS 'records that appeared';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.updated IS 'records that changed';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.deleted IS 'records that disappeared from the service';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.restored IS 'records that came back after being deleted';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.total_changes IS 'all changes of the day for this table';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.recent_changes.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.recurring_revenue WITH (security_invoker='true') AS
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
    r.finalsenddate AS final_send_date,
    r.account_id,
    a.name AS account_name
   FROM (invoice_mirror_baseline.repeating_invoices r
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = r.account_id)))
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

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.recurring_revenue_by_frequency WITH (security_invoker='true') AS
 SELECT
        CASE
            WHEN (GROUPING(lower(r.frequency)) = 1) THEN 'all frequencies'::text
            ELSE lower(r.frequency)
        END AS frequency,
        CASE
            WHEN (GROUPING(lower(r.frequency)) = 0) THEN max(invoice_mirror_baseline.sends_per_year(r.frequency))
            ELSE NULL::integer
        END AS sends_per_year,
    (count(*))::integer AS repeating_invoice_count,
    COALESCE(sum((r.totalintax * (invoice_mirror_baseline.sends_per_year(r.frequency))::numeric)), (0)::numeric) AS yearly_amount,
    round((COALESCE(sum((r.totalintax * (invoice_mirror_baseline.sends_per_year(r.frequency))::numeric)), (0)::numeric) / (12)::numeric), 2) AS monthly_amount,
    r.account_id,
    a.name AS account_name
   FROM (invoice_mirror_baseline.repeating_invoices r
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = r.account_id)))
  WHERE (r.deleted_at IS NULL)
  GROUP BY r.account_id, a.name, ROLLUP((lower(r.frequency)));

COMMENT ON VIEW invoice_mirror_baseline.recurring_revenue_by_frequency IS 'Recurring revenue per frequency, plus a final row "all frequencies" with the totals, per account. Monthly amount = sum of (amount per invoice x sends per year) / 12, rounded to cents (see recurring_revenue).';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.frequency IS 'how often the invoices are sent; "all frequencies" on the totals row';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.sends_per_year IS 'invoices sent per year at this frequency (empty on the totals row)';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.repeating_invoice_count IS 'number of repeating invoices';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.yearly_amount IS 'sum of amount per invoice x sends per year, including tax';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.monthly_amount IS 'yearly amount / 12, rounded to cents';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.recurring_revenue_by_frequency.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.repeating_invoice_sends AS
SELECT
    NULL::integer AS repeating_invoice_id,
    NULL::text AS invoice_name,
    NULL::integer AS client_number,
    NULL::text AS client_name,
    NULL::text AS frequency,
    NULL::numeric AS amount_per_invoice,
    NULL::date AS initial_date,
    NULL::integer AS matched_invoice_count,
    NULL::date AS last_sent_date,
    NULL::numeric AS matched_total_incl_tax,
    NULL::numeric AS open_amount,
    NULL::integer AS account_id,
    NULL::text AS account_name;

COMMENT ON VIEW invoice_mirror_baseline.repeating_invoice_sends IS 'Per repeating invoice, the sent invoices that match it: same client, same total including tax, sent on or after its initial date. The service records no link from a sent invoice to the repeating invoice that made it, so this is a match, not a link: an invoice sent by hand with the same client and total counts too.';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.repeating_invoice_id IS 'id of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.invoice_name IS 'name of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.client_number IS 'number of the client invoiced';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.client_name IS 'client name as printed on the document (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.frequency IS 'how often it is sent';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.amount_per_invoice IS 'total including tax of each invoice sent';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.initial_date IS 'date the first invoice is (or was) sent';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.matched_invoice_count IS 'sent invoices that match it (same client and total, sent since the initial date)';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.last_sent_date IS 'send date of the latest of them';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.matched_total_incl_tax IS 'their totals including tax';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.open_amount IS 'what of them is still to be paid';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.repeating_invoice_sends.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.revenue_per_account_month WITH (security_invoker='true') AS
 SELECT m.account_id,
    m.account_name,
    m.month,
    m.invoice_count,
    m.total_excl_tax,
    m.tax,
    m.total_incl_tax,
    m.still_open,
    round((((100)::numeric * m.total_incl_tax) / NULLIF(sum(m.total_incl_tax) OVER (PARTITION BY m.month), (0)::numeric)), 1) AS share_of_month_pct
   FROM invoice_mirror_baseline.invoice_revenue_per_month m;

COMMENT ON VIEW invoice_mirror_baseline.revenue_per_account_month IS 'Sent invoices per calendar month and account (see invoice_revenue_per_month), side by side per month, with each account’s share of the month’s total including tax over all the accounts the querying role may read.';

COMMENT ON COLUMN invoice_mirror_baseline.revenue_per_account_month.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.revenue_per_account_month.account_name IS 'name of that account (accounts.name)';

COMMENT ON COLUMN invoice_mirror_baseline.revenue_per_account_month.month IS 'first day of the month the invoices were sent in';

COMMENT ON COLUMN invoice_mirror_baseline.revenue_per_account_month.invoice_count IS 'invoices the account sent that month';

COMMENT ON COLUMN invoice_mirror_baseline.revenue_per_account_month.total_excl_tax IS 'their totals excluding tax';

COMMENT ON COLUMN invoice_mirror_baseline.revenue_per_account_month.tax IS 'their tax';

COMMENT ON COLUMN invoice_mirror_baseline.revenue_per_account_month.total_incl_tax IS 'their totals including tax';

COMMENT ON COLUMN invoice_mirror_baseline.revenue_per_account_month.still_open IS 'what of them is still to be paid (not counting those written off)';

COMMENT ON COLUMN invoice_mirror_baseline.revenue_per_account_month.share_of_month_pct IS 'the account’s part of the month’s total including tax over all the accounts the querying role may read (also when the report shows fewer), in percent (one decimal); empty when that total is 0';

CREATE VIEW invoice_mirror_baseline.saved_invoices_by_client WITH (security_invoker='true') AS
 SELECT s.clientnr AS client_number,
    COALESCE(invoice_mirror_baseline.client_display_name(c.company, c.contact), (array_agg(invoice_mirror_baseline.client_display_name(s.company, s.contact) ORDER BY s.id DESC))[1]) AS client_name,
    (count(*))::integer AS saved_invoice_count,
    COALESCE(sum(s.totalintax), (0)::numeric) AS total_incl_tax,
    COALESCE(sum(s.totaldiscount), (0)::numeric) AS total_discount,
    COALESCE(sum(s.alreadypaid), (0)::numeric) AS already_paid,
    (COALESCE(sum(s.totalintax), (0)::numeric) - COALESCE(sum(s.alreadypaid), (0)::numeric)) AS still_to_pay,
    s.account_id,
    a.name AS account_name
   FROM ((invoice_mirror_baseline.saved_invoices s
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = s.account_id)))
     LEFT JOIN invoice_mirror_baseline.clients c ON (((c.account_id = s.account_id) AND (c.clientnr = s.clientnr) AND (c.deleted_at IS NULL))))
  WHERE (s.deleted_at IS NULL)
  GROUP BY s.account_id, a.name, s.clientnr, c.company, c.contact;

COMMENT ON VIEW invoice_mirror_baseline.saved_invoices_by_client IS 'Saved invoices (drafts not yet sent) per client, with their totals and what is still to be paid.';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.client_number IS 'client number on the invoices (0: no client)';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.client_name IS 'client name (company, or contact when there is no company); from the client record, or from the newest invoice when the client is gone';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.saved_invoice_count IS 'number of saved invoices';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.total_incl_tax IS 'sum of the invoice totals including tax';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.total_discount IS 'sum of the discounts given on the invoices';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.already_paid IS 'sum of the amounts already marked as paid';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.still_to_pay IS 'total including tax minus what is already paid';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.saved_invoices_by_client.account_name IS 'name of that account (accounts.name)';

CREATE SEQUENCE invoice_mirror_baseline.sync_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE invoice_mirror_baseline.sync_runs_id_seq OWNED BY invoice_mirror_baseline.sync_runs.id;

CREATE VIEW invoice_mirror_baseline.upcoming_repeating_sends WITH (security_invoker='true') AS
 SELECT r.id AS repeating_invoice_id,
    r.name AS invoice_name,
    r.clientnr AS client_number,
    invoice_mirror_baseline.client_display_name(r.company, r.contact) AS client_name,
    (d.send_date)::date AS send_date,
    lower(r.frequency) AS frequency,
    r.totalintax AS amount_incl_tax,
    (lower(r.repeattype) = 'auto'::text) AS sent_automatically,
    r.account_id,
    a.name AS account_name
   FROM ((invoice_mirror_baseline.repeating_invoices r
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = r.account_id)))
     CROSS JOIN LATERAL generate_series((r.nextsenddate)::timestamp without time zone, LEAST((r.finalsenddate)::timestamp without time zone, ((CURRENT_DATE + '1 year'::interval) - '1 day'::interval)), invoice_mirror_baseline.frequency_step(r.frequency)) d(send_date))
  WHERE ((r.deleted_at IS NULL) AND (d.send_date >= CURRENT_DATE));

COMMENT ON VIEW invoice_mirror_baseline.upcoming_repeating_sends IS 'Every invoice the repeating invoices will send in the coming year: one row per send date from today on (a next send date in the past, which the service has not moved on yet, is stepped forward), each one step of the frequency after the previous (weekly 7 days, biweekly 14, fourweekly 28, monthly 1 month, bimonthly 2, quarterly 3, halfyearly 6, yearly 12; a monthly send on the 31st moves to the 28th in February and stays there), up to the final send date and to before the same day next year.';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.repeating_invoice_id IS 'id of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.invoice_name IS 'name of the repeating invoice';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.client_number IS 'number of the client invoiced';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.client_name IS 'client name as printed on the document (company, or contact when there is no company)';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.send_date IS 'date this invoice is sent';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.frequency IS 'how often the repeating invoice is sent';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.amount_incl_tax IS 'total including tax of the invoice sent on this date';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.sent_automatically IS 'true when the service sends it by itself, false when someone sends it by hand';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.upcoming_repeating_sends.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.vat_problems WITH (security_invoker='true') AS
 SELECT vat_entries.invoice_id,
    vat_entries.invoice_number,
    vat_entries.invoice_date,
    vat_entries.quarter AS period,
    vat_entries.month,
    vat_entries.client_number,
    vat_entries.client_name,
    vat_entries.country_id,
    vat_entries.country_name,
    vat_entries.country_iso2,
    vat_entries.vat_number,
    vat_entries.tax_shifted,
    vat_entries.entry_key,
    vat_entries.rate,
    vat_entries.base,
    vat_entries.vat,
    vat_entries.problem,
    invoice_mirror_baseline.vat_problem_text(vat_entries.problem) AS what_to_do,
    vat_entries.account_id,
    vat_entries.account_name
   FROM invoice_mirror_baseline.vat_entries
  WHERE (vat_entries.problem IS NOT NULL);

COMMENT ON VIEW invoice_mirror_baseline.vat_problems IS 'The VAT entries of sent invoices that no rubric holds (see vat_entries), each with the kind of problem and what to do: the VAT returns count them per period (row unclassified), and nothing is left out silently.';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.invoice_id IS 'id of the sent invoice';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.invoice_number IS 'its invoice number';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.invoice_date IS 'its date (sent); empty on records without one';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.period IS 'the quarter of the invoice date, e.g. 2026-Q1; empty without a date';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.month IS 'the month of the invoice date, e.g. 2026-03';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.client_number IS 'client number on the invoice (0: none)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.client_name IS 'client name as printed on the invoice';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.country_id IS 'the invoice''s country id; empty or 0 when missing';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.country_name IS 'that country as the service names it';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.country_iso2 IS 'its ISO code; empty when the name maps to none';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.vat_number IS 'the buyer''s VAT number on the invoice; empty: none';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.tax_shifted IS 'whether the VAT is shifted to the buyer';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.entry_key IS 'the key of the entry in taxes; empty when the invoice has none';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.rate IS 'the VAT rate in percent';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.base IS 'the amount the VAT is over (sum_of)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.vat IS 'the VAT (sum)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.problem IS 'the kind: no_taxes, unreadable_taxes, no_date, vat_without_base, former_rate, unknown_rate, vat_at_zero_rate, vat_on_shifted, shifted_without_vat_number, no_country, unmapped_country, eu_without_vat_number';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.what_to_do IS 'what the kind means and what to do about it';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_problems.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.vat_return_be WITH (security_invoker='true') AS
 WITH form_rows("position", code, name_nl, name_en, coverage, with_base, with_vat, note) AS (
         VALUES (1,'00'::text,'Handelingen onderworpen aan een bijzondere regeling'::text,'Operations under a special regime (and at 0 %)'::text,'yes'::text,true,false,'0 % to a buyer in Belgium'::text), (2,'01'::text,'Handelingen waarvoor de btw verschuldigd is door de aangever: 6 %'::text,'Operations at 6 %'::text,'yes'::text,true,false,'base of the 6 % invoices'::text), (3,'02'::text,'Handelingen waarvoor de btw verschuldigd is door de aangever: 12 %'::text,'Operations at 12 %'::text,'yes'::text,true,false,'base of the 12 % invoices'::text), (4,'03'::text,'Handelingen waarvoor de btw verschuldigd is door de aangever: 21 %'::text,'Operations at 21 %'::text,'yes'::text,true,false,'base of the 21 % invoices'::text), (5,'44'::text,'Diensten waarvoor de buitenlandse btw verschuldigd is door de medecontractant'::text,'Services to EU businesses (VAT due by the customer)'::text,'no'::text,true,false,'not told apart from goods: every intra-EU amount is in 46; move services here by hand'::text), (6,'45'::text,'Handelingen waarvoor de btw verschuldigd is door de medecontractant'::text,'Operations where the customer owes the VAT (domestic reverse charge)'::text,'yes'::text,true,false,'VAT shifted to a buyer in Belgium'::text), (7,'46'::text,'Vrijgestelde intracommunautaire leveringen'::text,'Exempt intra-Community supplies'::text,'yes'::text,true,false,'0 % or shifted to a buyer with a VAT number in another EU country'::text), (8,'47'::text,'Andere vrijgestelde handelingen en handelingen verricht in het buitenland'::text,'Other exempt operations and operations abroad'::text,'yes'::text,true,false,'0 % or shifted to a buyer outside the EU'::text), (9,'48'::text,'Creditnota''s met betrekking tot de handelingen in 44 en 46'::text,'Credit notes relating to 44 and 46'::text,'yes'::text,true,false,'intra-EU credit notes, as a positive amount'::text), (10,'49'::text,'Creditnota''s met betrekking tot de andere handelingen van kader II'::text,'Credit notes relating to the other operations'::text,'yes'::text,true,false,'the other credit notes, as a positive amount'::text), (11,'54'::text,'Btw op de handelingen aangegeven in 01, 02 en 03'::text,'VAT on the operations in 01, 02 and 03'::text,'yes'::text,false,true,'VAT of the invoices at 6, 12 and 21 %'::text), (12,'64'::text,'Btw op de uitgereikte creditnota''s'::text,'VAT on credit notes issued'::text,'yes'::text,false,true,'VAT of the credit notes at 6, 12 and 21 %, as a positive amount'::text), (13,'59'::text,'Aftrekbare btw'::text,'Deductible VAT'::text,'no'::text,false,true,'not covered: purchases: the mirror holds only sales'::text), (14,'81-88'::text,'Inkomende handelingen'::text,'Incoming operations'::text,'no'::text,true,false,'not covered: purchases: the mirror holds only sales'::text), (15,'unclassified'::text,'Niet ingedeeld (zie vat_problems)'::text,'Not classified (see vat_problems)'::text,'problems'::text,true,true,'entries of the period that no grid holds: see vat_problems'::text)
        )
 SELECT p.period,
    p.period_kind,
    p.period_start,
    (((p.period_start +
        CASE p.period_kind
            WHEN 'quarter'::text THEN '3 mons'::interval
            ELSE '1 mon'::interval
        END) - '1 day'::interval))::date AS period_end,
    r.code AS grid,
    r.name_nl,
    r.name_en,
    r.coverage,
        CASE
            WHEN (r.with_base AND (r.coverage <> 'no'::text)) THEN COALESCE((((p.sums -> r.code) ->> 'base'::text))::numeric, 0.00)
            ELSE NULL::numeric
        END AS base,
        CASE
            WHEN (r.with_vat AND (r.coverage <> 'no'::text)) THEN
            CASE
                WHEN (r.coverage = 'partly'::text) THEN p.partly_vat
                ELSE COALESCE((((p.sums -> r.code) ->> 'vat'::text))::numeric, 0.00)
            END
            ELSE NULL::numeric
        END AS vat,
        CASE
            WHEN (r.coverage = ANY (ARRAY['yes'::text, 'problems'::text])) THEN COALESCE((((p.sums -> r.code) ->> 'entries'::text))::integer, 0)
            ELSE NULL::integer
        END AS entries,
    p.unclassified_entries,
    r.note,
    r."position",
    p.account_id,
    p.account_name
   FROM (( SELECT s.account_id,
            s.account_name,
            s.period_kind,
            s.period,
            s.period_start,
            jsonb_object_agg(s.code, jsonb_build_object('base', s.base, 'vat', s.vat, 'entries', s.entries)) AS sums,
            (COALESCE(sum(s.entries) FILTER (WHERE (s.code = 'unclassified'::text)), (0)::numeric))::integer AS unclassified_entries,
            NULL::numeric AS partly_vat
           FROM ( SELECT e.account_id,
                    e.account_name,
                    e.period_kind,
                    e.period,
                    e.period_start,
                    c.code,
                    sum(c.base) AS base,
                    sum(c.vat) AS vat,
                    count(*) AS entries
                   FROM (( SELECT vat_entries.account_id,
                            vat_entries.account_name,
                            'quarter'::text AS period_kind,
                            vat_entries.quarter AS period,
                            (date_trunc('quarter'::text, (vat_entries.invoice_date)::timestamp with time zone))::date AS period_start,
                            vat_entries.nl_rubric,
                            vat_entries.be_grid,
                            vat_entries.be_vat_grid,
                            vat_entries.base,
                            vat_entries.vat
                           FROM invoice_mirror_baseline.vat_entries
                          WHERE ((vat_entries.account_country = 'BE'::text) AND (vat_entries.invoice_date IS NOT NULL))
                        UNION ALL
                         SELECT vat_entries.account_id,
                            vat_entries.account_name,
                            'month'::text AS period_kind,
                            vat_entries.month AS period,
                            (date_trunc('month'::text, (vat_entries.invoice_date)::timestamp with time zone))::date AS period_start,
                            vat_entries.nl_rubric,
                            vat_entries.be_grid,
                            vat_entries.be_vat_grid,
                            vat_entries.base,
                            vat_entries.vat
                           FROM invoice_mirror_baseline.vat_entries
                          WHERE ((vat_entries.account_country = 'BE'::text) AND (vat_entries.invoice_date IS NOT NULL))) e
                     CROSS JOIN LATERAL ( VALUES (COALESCE(e.be_grid, 'unclassified'::text),
                                CASE
                                    WHEN (e.be_grid = ANY (ARRAY['48'::text, '49'::text])) THEN (- e.base)
                                    ELSE e.base
                                END,e.vat), (e.be_vat_grid,NULL::numeric,
                                CASE
                                    WHEN (e.be_vat_grid = '64'::text) THEN (- e.vat)
                                    ELSE e.vat
                                END)) c(code, base, vat))
                  WHERE (c.code IS NOT NULL)
                  GROUP BY e.account_id, e.account_name, e.period_kind, e.period, e.period_start, c.code) s
          GROUP BY s.account_id, s.account_name, s.period_kind, s.period, s.period_start) p
     CROSS JOIN form_rows r);

COMMENT ON VIEW invoice_mirror_baseline.vat_return_be IS 'The sales side of the Belgian periodic VAT return of each account whose vat_country is BE, per quarter and month of the invoice date, one row per grid: 00, 01, 02, 03, 45, 46, 47, 48, 49 (bases), 54 and 64 (VAT) from vat_entries; 44 (services, not told from goods), 59 and 81-88 (purchases) are named as not covered; row unclassified adds up what vat_problems lists.';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.period IS 'the period: a quarter (2026-Q1) or a month (2026-03)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.period_kind IS 'quarter or month (every period appears as both)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.period_start IS 'first day of the period';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.period_end IS 'last day of the period';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.grid IS 'the grid of the return; unclassified: the entries no grid holds (see vat_problems)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.name_nl IS 'the grid''s name on the form, in Dutch';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.name_en IS 'the grid''s name in English';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.coverage IS 'yes: the figure from the invoices; partly: the part the invoices give (see note); no: not covered, left empty (never 0); problems: the entries of row unclassified';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.base IS 'the amount (base) of the grid, in euros to the cent (the form takes whole euros); empty when it has none or is not covered';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.vat IS 'the VAT of the grid, in euros to the cent; empty when it has none or is not covered';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.entries IS 'how many VAT entries of sent invoices it adds up; empty when not covered';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.unclassified_entries IS 'entries of the period no row classifies (vat_problems), the same on every row of the period';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.note IS 'what the row holds, or why the mirror cannot fill it';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be."position" IS 'its place on the form';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_be.account_name IS 'name of that account (accounts.name)';

CREATE VIEW invoice_mirror_baseline.vat_return_nl WITH (security_invoker='true') AS
 WITH form_rows("position", code, name_nl, name_en, coverage, with_base, with_vat, note) AS (
         VALUES (1,'1a'::text,'Leveringen/diensten belast met hoog tarief'::text,'Supplies/services taxed at the standard rate (21 %)'::text,'yes'::text,true,true,'Dutch VAT charged at the high rate of the invoice date, to any buyer'::text), (2,'1b'::text,'Leveringen/diensten belast met laag tarief'::text,'Supplies/services taxed at the reduced rate (9 %)'::text,'yes'::text,true,true,'Dutch VAT charged at the low rate of the invoice date'::text), (3,'1c'::text,'Leveringen/diensten belast met overige tarieven, behalve 0%'::text,'Supplies/services taxed at other rates, except 0 %'::text,'yes'::text,true,true,'none of the invoices: a former rate (19 %, 6 %) is listed in vat_problems, to be put here by hand when the supply predates the change'::text), (4,'1d'::text,'Privégebruik'::text,'Private use'::text,'no'::text,true,true,'not covered: private use is not invoiced'::text), (5,'1e'::text,'Leveringen/diensten belast met 0% of niet bij u belast'::text,'Supplies/services taxed at 0 % or not taxed at you'::text,'yes'::text,true,false,'0 % to a buyer in the Netherlands, and VAT shifted to a Dutch buyer (verlegd); base only'::text), (6,'2a'::text,'Leveringen/diensten waarbij de heffing van omzetbelasting naar u is verlegd'::text,'Supplies/services with the VAT shifted to you'::text,'no'::text,true,true,'not covered: purchases: the mirror holds only sales'::text), (7,'3a'::text,'Leveringen naar landen buiten de EU (uitvoer)'::text,'Supplies to countries outside the EU (export)'::text,'yes'::text,true,false,'every 0 % or shifted amount to a buyer outside the EU, read as goods: services to buyers outside the EU belong in no rubric, so leave those out'::text), (8,'3b'::text,'Leveringen naar of diensten in landen binnen de EU'::text,'Supplies to or services in EU countries'::text,'yes'::text,true,false,'0 % or shifted to a buyer with a VAT number in another EU country, goods and services; equals the Opgaaf ICP (icp_return)'::text), (9,'3c'::text,'Installatie/afstandsverkopen binnen de EU'::text,'Installation/distance sales within the EU'::text,'no'::text,true,false,'not covered: the invoices do not say which supplies are installations or distance sales'::text), (10,'4a'::text,'Leveringen/diensten uit landen buiten de EU'::text,'Supplies/services from countries outside the EU'::text,'no'::text,true,true,'not covered: purchases: the mirror holds only sales'::text), (11,'4b'::text,'Leveringen/diensten uit landen binnen de EU'::text,'Supplies/services from EU countries'::text,'no'::text,true,true,'not covered: purchases: the mirror holds only sales'::text), (12,'5a'::text,'Verschuldigde omzetbelasting (rubrieken 1a t/m 4b)'::text,'VAT due (rubrics 1a to 4b)'::text,'partly'::text,false,true,'the VAT of 1a, 1b, 1c and 1e only: add 1d, 2a, 4a and 4b'::text), (13,'5b'::text,'Voorbelasting'::text,'Input VAT'::text,'no'::text,false,true,'not covered: purchases: the mirror holds only sales'::text), (14,'unclassified'::text,'Niet ingedeeld (zie vat_problems)'::text,'Not classified (see vat_problems)'::text,'problems'::text,true,true,'entries of the period that no rubric holds: see vat_problems, and add them by hand'::text)
        )
 SELECT p.period,
    p.period_kind,
    p.period_start,
    (((p.period_start +
        CASE p.period_kind
            WHEN 'quarter'::text THEN '3 mons'::interval
            ELSE '1 mon'::interval
        END) - '1 day'::interval))::date AS period_end,
    r.code AS rubric,
    r.name_nl,
    r.name_en,
    r.coverage,
        CASE
            WHEN (r.with_base AND (r.coverage <> 'no'::text)) THEN COALESCE((((p.sums -> r.code) ->> 'base'::text))::numeric, 0.00)
            ELSE NULL::numeric
        END AS base,
        CASE
            WHEN (r.with_vat AND (r.coverage <> 'no'::text)) THEN
            CASE
                WHEN (r.coverage = 'partly'::text) THEN p.partly_vat
                ELSE COALESCE((((p.sums -> r.code) ->> 'vat'::text))::numeric, 0.00)
            END
            ELSE NULL::numeric
        END AS vat,
        CASE
            WHEN (r.coverage = ANY (ARRAY['yes'::text, 'problems'::text])) THEN COALESCE((((p.sums -> r.code) ->> 'entries'::text))::integer, 0)
            ELSE NULL::integer
        END AS entries,
    p.unclassified_entries,
    r.note,
    r."position",
    p.account_id,
    p.account_name
   FROM (( SELECT s.account_id,
            s.account_name,
            s.period_kind,
            s.period,
            s.period_start,
            jsonb_object_agg(s.code, jsonb_build_object('base', s.base, 'vat', s.vat, 'entries', s.entries)) AS sums,
            (COALESCE(sum(s.entries) FILTER (WHERE (s.code = 'unclassified'::text)), (0)::numeric))::integer AS unclassified_entries,
            COALESCE(sum(s.vat) FILTER (WHERE (s.code = ANY (ARRAY['1a'::text, '1b'::text, '1c'::text, '1e'::text]))), 0.00) AS partly_vat
           FROM ( SELECT e.account_id,
                    e.account_name,
                    e.period_kind,
                    e.period,
                    e.period_start,
                    c.code,
                    sum(c.base) AS base,
                    sum(c.vat) AS vat,
                    count(*) AS entries
                   FROM (( SELECT vat_entries.account_id,
                            vat_entries.account_name,
                            'quarter'::text AS period_kind,
                            vat_entries.quarter AS period,
                            (date_trunc('quarter'::text, (vat_entries.invoice_date)::timestamp with time zone))::date AS period_start,
                            vat_entries.nl_rubric,
                            vat_entries.be_grid,
                            vat_entries.be_vat_grid,
                            vat_entries.base,
                            vat_entries.vat
                           FROM invoice_mirror_baseline.vat_entries
                          WHERE ((vat_entries.account_country = 'NL'::text) AND (vat_entries.invoice_date IS NOT NULL))
                        UNION ALL
                         SELECT vat_entries.account_id,
                            vat_entries.account_name,
                            'month'::text AS period_kind,
                            vat_entries.month AS period,
                            (date_trunc('month'::text, (vat_entries.invoice_date)::timestamp with time zone))::date AS period_start,
                            vat_entries.nl_rubric,
                            vat_entries.be_grid,
                            vat_entries.be_vat_grid,
                            vat_entries.base,
                            vat_entries.vat
                           FROM invoice_mirror_baseline.vat_entries
                          WHERE ((vat_entries.account_country = 'NL'::text) AND (vat_entries.invoice_date IS NOT NULL))) e
                     CROSS JOIN LATERAL ( VALUES (COALESCE(e.nl_rubric, 'unclassified'::text),e.base,e.vat)) c(code, base, vat))
                  WHERE (c.code IS NOT NULL)
                  GROUP BY e.account_id, e.account_name, e.period_kind, e.period, e.period_start, c.code) s
          GROUP BY s.account_id, s.account_name, s.period_kind, s.period, s.period_start) p
     CROSS JOIN form_rows r);

COMMENT ON VIEW invoice_mirror_baseline.vat_return_nl IS 'The sales side of the Dutch VAT return (aangifte omzetbelasting) of each account whose vat_country is NL, per quarter and per month of the invoice date (factuurstelsel), one row per rubric: 1a, 1b, 1c, 1e, 3a, 3b with base and VAT from vat_entries, 5a as the VAT of 1a to 1e; 1d, 2a, 3c, 4a, 4b and 5b are named as not covered (empty); row unclassified adds up what vat_problems lists. Amounts to the cent; the form takes whole euros.';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.period IS 'the period: a quarter (2026-Q1) or a month (2026-03)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.period_kind IS 'quarter or month (every period appears as both)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.period_start IS 'first day of the period';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.period_end IS 'last day of the period';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.rubric IS 'the rubric of the return; unclassified: the entries no rubric holds (see vat_problems)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.name_nl IS 'the rubric''s name on the form, in Dutch';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.name_en IS 'the rubric''s name in English';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.coverage IS 'yes: the figure from the invoices; partly: the part the invoices give (see note); no: not covered, left empty (never 0); problems: the entries of row unclassified';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.base IS 'the amount (base) of the rubric, in euros to the cent (the form takes whole euros); empty when it has none or is not covered';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.vat IS 'the VAT of the rubric, in euros to the cent; empty when it has none or is not covered';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.entries IS 'how many VAT entries of sent invoices it adds up; empty when not covered';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.unclassified_entries IS 'entries of the period no row classifies (vat_problems), the same on every row of the period';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.note IS 'what the row holds, or why the mirror cannot fill it';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl."position" IS 'its place on the form';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.account_id IS 'id of the account the rows belong to (accounts.id)';

COMMENT ON COLUMN invoice_mirror_baseline.vat_return_nl.account_name IS 'name of that account (accounts.name)';

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

ALTER TABLE invoice_mirror_baseline.jobs
    ADD CONSTRAINT jobs_kind_known CHECK ((kind = ANY (ARRAY['send_saved_invoices'::text, 'delete_saved_invoice'::text, 'delete_repeating_invoice'::text, 'create_client'::text, 'update_client'::text, 'delete_client'::text, 'create_product'::text, 'update_product'::text, 'set_product_stock'::text, 'delete_product'::text, 'create_quotation'::text, 'send_quotation'::text, 'approve_quotation'::text, 'remove_quotation_approval'::text, 'set_quotation_status'::text, 'delete_quotation'::text, 'create_invoice'::text, 'register_payment'::text, 'send_reminder'::text, 'delete_invoice'::text, 'fetch_invoice_pdf'::text]))) NOT VALID;

COMMENT ON CONSTRAINT jobs_kind_known ON invoice_mirror_baseline.jobs IS 'kind must be one of: send_saved_invoices, delete_saved_invoice, delete_repeating_invoice, create_client, update_client, delete_client, create_product, update_product, set_product_stock, delete_product, create_quotation, send_quotation, approve_quotation, remove_quotation_approval, set_quotation_status, delete_quotation, create_invoice, register_payment, send_reminder, delete_invoice, fetch_invoice_pdf';

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

CREATE OR REPLACE VIEW invoice_mirror_baseline.repeating_invoice_sends WITH (security_invoker='true') AS
 SELECT r.id AS repeating_invoice_id,
    r.name AS invoice_name,
    r.clientnr AS client_number,
    invoice_mirror_baseline.client_display_name(r.company, r.contact) AS client_name,
    lower(r.frequency) AS frequency,
    r.totalintax AS amount_per_invoice,
    r.initialdate AS initial_date,
    (count(i.id))::integer AS matched_invoice_count,
    max(i.sent) AS last_sent_date,
    COALESCE(sum(i.totalintax), (0)::numeric) AS matched_total_incl_tax,
    COALESCE(sum(i.open) FILTER (WHERE invoice_mirror_baseline.invoice_is_open(i.open, i.uncollectible)), (0)::numeric) AS open_amount,
    r.account_id,
    a.name AS account_name
   FROM ((invoice_mirror_baseline.repeating_invoices r
     JOIN invoice_mirror_baseline.accounts a ON ((a.id = r.account_id)))
     LEFT JOIN invoice_mirror_baseline.invoices i ON (((i.account_id = r.account_id) AND (i.deleted_at IS NULL) AND (i.clientnr = r.clientnr) AND (i.totalintax = r.totalintax) AND (i.sent >= r.initialdate))))
  WHERE (r.deleted_at IS NULL)
  GROUP BY r.account_id, r.id, a.name;

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

CREATE TRIGGER countries_iso2_insert AFTER INSERT ON invoice_mirror_baseline.countries REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.countries_set_iso2();

CREATE TRIGGER countries_iso2_update AFTER UPDATE ON invoice_mirror_baseline.countries REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.countries_set_iso2();

CREATE TRIGGER events_fan_out AFTER INSERT ON invoice_mirror_baseline.events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.events_fan_out();

CREATE TRIGGER events_from_changes AFTER INSERT ON invoice_mirror_baseline.changes REFERENCING NEW TABLE AS new_changes FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.events_from_changes();

CREATE TRIGGER events_from_held AFTER INSERT ON invoice_mirror_baseline.held_deletes REFERENCING NEW TABLE AS new_held FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.events_from_held();

CREATE TRIGGER events_from_jobs AFTER UPDATE OF status ON invoice_mirror_baseline.jobs FOR EACH ROW WHEN (((new.status = ANY (ARRAY['succeeded'::text, 'failed'::text, 'interrupted'::text])) AND (old.status IS DISTINCT FROM new.status))) EXECUTE FUNCTION invoice_mirror_baseline.events_from_jobs();

CREATE TRIGGER events_from_runs AFTER UPDATE OF status ON invoice_mirror_baseline.sync_runs FOR EACH ROW WHEN (((new.status = 'failed'::text) AND (old.status IS DISTINCT FROM new.status))) EXECUTE FUNCTION invoice_mirror_baseline.events_from_runs();

CREATE TRIGGER events_notify AFTER INSERT ON invoice_mirror_baseline.events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION invoice_mirror_baseline.events_notify();

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

ALTER TABLE invoice_mirror_baseline.account_leases ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.account_roles ENABLE ROW LEVEL SECURITY;

CREATE POLICY account_rows ON invoice_mirror_baseline.account_leases USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.account_leases IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.account_roles USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.account_roles IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.accounts USING ((id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.accounts IS 'A role named in account_roles sees only its own accounts';

CREATE POLICY account_rows ON invoice_mirror_baseline.categories USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.categories IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.changes USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.changes IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.clients USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.clients IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.coordination_locks USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.coordination_locks IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.countries USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.countries IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.document_lines USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.document_lines IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.entity_pulls USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.entity_pulls IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.events USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.events IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.held_deletes USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.held_deletes IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.invoice_pdfs USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.invoice_pdfs IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.invoices USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.invoices IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.jobs USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.jobs IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.list_caps USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.list_caps IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.payments USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.payments IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.products USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.products IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.pull_cursors USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.pull_cursors IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.quotations USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.quotations IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.rejected_values USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.rejected_values IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.repeating_invoices USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.repeating_invoices IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.saved_invoices USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.saved_invoices IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.sync_runs USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.sync_runs IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.taxes USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.taxes IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.webhook_attempts USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.webhook_attempts IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.webhook_deliveries USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.webhook_deliveries IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

CREATE POLICY account_rows ON invoice_mirror_baseline.webhook_subscriptions USING ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[]))) WITH CHECK ((account_id = ANY (( SELECT invoice_mirror_baseline.visible_accounts((CURRENT_USER)::text) AS visible_accounts)::integer[])));

COMMENT ON POLICY account_rows ON invoice_mirror_baseline.webhook_subscriptions IS 'A role named in account_roles sees and writes only the rows of its accounts; any other role is not confined';

ALTER TABLE invoice_mirror_baseline.accounts ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.categories ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.changes ENABLE ROW LEVEL SECURITY;

CREATE POLICY channel_readers ON invoice_mirror_baseline.notification_channels FOR SELECT USING (has_table_privilege(CURRENT_USER, ('invoice_mirror_baseline.jobs'::regclass)::oid, 'UPDATE'::text));

COMMENT ON POLICY channel_readers ON invoice_mirror_baseline.notification_channels IS 'Only a role that may update jobs reads the channels';

ALTER TABLE invoice_mirror_baseline.clients ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.coordination_locks ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.countries ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.document_lines ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.entity_pulls ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.events ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.fleet_leader ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.held_deletes ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.invoice_pdfs ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.invoices ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.jobs ENABLE ROW LEVEL SECURITY;

CREATE POLICY leader_readers ON invoice_mirror_baseline.fleet_leader FOR SELECT USING (has_table_privilege(CURRENT_USER, ('invoice_mirror_baseline.jobs'::regclass)::oid, 'UPDATE'::text));

COMMENT ON POLICY leader_readers ON invoice_mirror_baseline.fleet_leader IS 'Only a role that may update jobs reads the leader';

ALTER TABLE invoice_mirror_baseline.list_caps ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.notification_channels ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.payments ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.products ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.pull_cursors ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.quotations ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.rejected_values ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.repeating_invoices ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.saved_invoices ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.sync_runs ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.taxes ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.webhook_attempts ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.webhook_deliveries ENABLE ROW LEVEL SECURITY;

ALTER TABLE invoice_mirror_baseline.webhook_subscriptions ENABLE ROW LEVEL SECURITY;

GRANT SELECT ON TABLE invoice_mirror_baseline.visible_account_ids TO PUBLIC;
`,
  /** The columns the migrations compress with lz4 where the server has it. */
  lz4: `
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
ALTER TABLE ONLY invoice_mirror_baseline.countries ALTER COLUMN name SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.countries ALTER COLUMN raw SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.countries ALTER COLUMN raw_hash SET COMPRESSION lz4;
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
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN entity SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN entity_id SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN op SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN changed_fields SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN before SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.changes ALTER COLUMN after SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.document_lines ALTER COLUMN document_type SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.document_lines ALTER COLUMN amount_desc SET COMPRESSION lz4;
ALTER TABLE ONLY invoice_mirror_baseline.document_lines ALTER COLUMN description SET COMPRESSION lz4;
`,
} as const;
