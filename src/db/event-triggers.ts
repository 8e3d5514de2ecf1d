/**
 * The SQL that writes events, made from the catalogue (src/catalog/events.ts) and applied by the
 * repeatable step (src/db/repeatable.ts): triggers, so every event is written by the statement
 * that makes its cause, in its transaction, whoever writes (the sync's page statements, a job's
 * refresh, a delete sweep, plain SQL). Nothing is written for a change that is rolled back.
 *
 * - `changes`: one AFTER INSERT trigger per statement, reading the statement's rows as a transition
 *   table, so a page of 1,000 changes costs one set-based insert, not 1,000 trigger calls. A
 *   fill's insert has no `after`: its record is read from the mirror row (see change-after.ts).
 * - `jobs` (a status becomes succeeded, failed or interrupted), `sync_runs` (failed) and
 *   `held_deletes` (new held deletes): their own small triggers.
 * - `events`: fans each new event out to the matching webhook subscriptions (`webhook_deliveries`),
 *   and a second trigger NOTIFYs the events channel (`notification_channels`, whose name only roles
 *   that may run jobs can read) once per statement, with nothing in it, for `events --follow` and
 *   the deliverers.
 *
 * Event ids are `txid * 2^24 + n` (n counting the transaction's events): ids then sort in the order
 * of the transactions, and a reader that stops below the oldest transaction still running (see
 * store.ts) never sees a smaller id appear later, so `--after ID` loses nothing.
 *
 * A pull that fills an empty mirror writes no events for what it inserts (a thousand
 * `client.created` for an account just added help nobody), unless EVENTS_ON_BACKFILL is on: the
 * sessions then carry `invoice_mirror.events_on_backfill = on` (src/db/connect.ts). "Empty" means
 * no earlier pull of the account wrote counts for the entity, or a pass that began on an empty
 * table is still under way (a fill in slices, see src/sync/resume.ts).
 */
import { EVENT_BULKY_FIELDS, EVENT_KEY_FIELDS, EVENT_TYPES } from '../catalog/index.js';
import { CHANGE_AFTER_STATEMENTS } from './change-after.js';
import { quoteLiteral } from './quote.js';

/** Per transaction: how many event ids it has taken (a transaction-local setting). */
const EVENTS_USED_SETTING = 'invoice_mirror.events_used';
/** Set to `on` on the sessions of a process with EVENTS_ON_BACKFILL. */
export const EVENTS_ON_BACKFILL_SETTING = 'invoice_mirror.events_on_backfill';
/** The events a transaction may write: 2^24. */
export const PER_TRANSACTION = 16_777_216;

const textArray = (values: readonly string[]) => `array[${values.map(quoteLiteral).join(', ')}]::text[]`;

const HELPERS = [
  // A field of a raw record as a number: the service sends numbers and decimal text alike.
  `
    create or replace function events_num(record jsonb, field text) returns numeric language sql immutable as $$
      select case when jsonb_typeof(record -> field) = 'number' then (record ->> field)::numeric
                  when btrim(record ->> field) ~ '^-?[0-9]+(\\.[0-9]+)?$' then btrim(record ->> field)::numeric end
    $$`,
  // Whether a field holds a value: the service says "none" as '', false, [] or '0'.
  `
    create or replace function events_set(record jsonb, field text) returns boolean language sql immutable as $$
      select coalesce(record -> field not in ('null', '""', 'false', '[]', '{}', '"0"', '"false"', '0'), false)
    $$`,
  `
    create or replace function events_flag(record jsonb, field text) returns boolean language sql immutable as $$
      select coalesce(lower(record ->> field) in ('true', '1', 'yes'), false)
    $$`,
  `
    create or replace function events_pick(record jsonb, fields text[]) returns jsonb language sql immutable as $$
      select coalesce(jsonb_object_agg(f, record -> f), '{}') from unnest(fields) f where record ? f
    $$`,
  // The first of n event ids this transaction takes (they are the n after it).
  `
    create or replace function events_reserve(n integer) returns bigint language plpgsql as $$
    declare
      used bigint := coalesce(nullif(current_setting('${EVENTS_USED_SETTING}', true), ''), '0')::bigint;
    begin
      if used + n >= ${PER_TRANSACTION} then
        raise exception 'one transaction may write at most ${PER_TRANSACTION - 1} events' using errcode = '54000';
      end if;
      perform set_config('${EVENTS_USED_SETTING}', (used + n)::text, true);
      return (pg_current_xact_id()::text::bigint * ${PER_TRANSACTION}) + used;
    end
    $$`,
];

/**
 * A trigger function whose names resolve in the trigger's own schema, whatever the search_path of
 * the session that writes (plain SQL may name `invoicing.jobs` from anywhere): it is set for the
 * body and given back after. Not a SET clause on the function, which would name the schema in the
 * function's definition.
 */
function triggerFunction(name: string, declarations: string, body: string): string {
  return `
  create or replace function ${name}() returns trigger language plpgsql as $$
  declare
    caller_path text := current_setting('search_path');
    ${declarations}
  begin
    perform set_config('search_path', quote_ident(tg_table_schema) || ', pg_catalog', true);
    ${body}
    perform set_config('search_path', caller_path, true);
    return null;
  end
  $$`;
}

/** `array[...]` of the types a changes row `c` makes, per entity. */
function typesOfChange(): string {
  const byEntity = new Map<string, string[]>();
  for (const event of EVENT_TYPES) {
    if (!event.change) continue;
    const list = byEntity.get(event.change.entity) ?? [];
    list.push(`case when ${event.change.when.replace(/\s+/g, ' ')} then ${quoteLiteral(event.type)} end`);
    byEntity.set(event.change.entity, list);
  }
  const arms = [...byEntity].map(([entity, types]) => `when ${quoteLiteral(entity)} then array[${types.join(', ')}]`);
  return `case c.entity ${arms.join(' ')} else '{}'::text[] end`;
}

/**
 * The record's key fields, from its raw record after the change (before it, for a delete): built
 * field by field per entity, which costs far less per row than a function over a field list.
 * A field the record lacks is left out.
 */
function recordOf(): string {
  const raw = 'coalesce(c.after, c.before)';
  const arms = Object.entries(EVENT_KEY_FIELDS).map(
    ([entity, fields]) =>
      `when ${quoteLiteral(entity)} then jsonb_strip_nulls(jsonb_build_object(${fields.map((f) => `${quoteLiteral(f)}, ${raw} -> ${quoteLiteral(f)}`).join(', ')}))`,
  );
  return `jsonb_build_object('id', c.entity_id) || case c.entity ${arms.join(' ')} else '{}'::jsonb end`;
}

const FROM_CHANGES = triggerFunction(
  'events_from_changes',
  `fill_quietly boolean := coalesce(current_setting('${EVENTS_ON_BACKFILL_SETTING}', true), '') <> 'on';`,
  `
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
        jsonb_build_object('record', ${recordOf()})
          || case when c.op = 'update' then (
               select jsonb_build_object('changed', to_jsonb(c.changed_fields),
                        'before', coalesce(jsonb_object_agg(f, c.before -> f) filter (where f <> all (${textArray(EVENT_BULKY_FIELDS)})), '{}'),
                        'after', coalesce(jsonb_object_agg(f, c.after -> f) filter (where f <> all (${textArray(EVENT_BULKY_FIELDS)})), '{}'))
                 from unnest(c.changed_fields) f)
             else '{}'::jsonb end as body
        from heard c
        cross join lateral unnest(${typesOfChange()}) with ordinality as t(type, ord)
       where t.type is not null
    ),
    reserved as (select events_reserve((select count(*) from typed)::integer) as base)
    insert into events (id, account_id, type, occurred_at, entity, record_id, body, change_id)
    select reserved.base + row_number() over (order by t.change_id, t.ord), t.account_id, t.type, t.detected_at,
           t.entity, t.entity_id, t.body, t.change_id
      from typed t, reserved;`,
);

/** One event of a row trigger: `type`, `entity`, `record`, `occurred` and `body` are SQL over `new`. */
const oneEvent = (type: string, entity: string, record: string, occurred: string, body: string) => `
    insert into events (id, account_id, type, occurred_at, entity, record_id, body)
    values (events_reserve(1) + 1, new.account_id, ${type}, ${occurred}, ${entity}, ${record}, ${body});`;

const FROM_JOBS = triggerFunction(
  'events_from_jobs',
  '',
  oneEvent(
    `'job.' || new.status`,
    `'jobs'`,
    'new.id::text',
    'coalesce(new.finished_at, now())',
    `jsonb_build_object('job', jsonb_strip_nulls(jsonb_build_object('id', new.id, 'kind', new.kind, 'attempts', new.attempts,
         'result', case when new.status = 'succeeded' then new.result end,
         'error', case when new.status <> 'succeeded' then new.last_error end)))`,
  ),
);

const FROM_RUNS = triggerFunction(
  'events_from_runs',
  '',
  oneEvent(
    `'sync.failed'`,
    `'sync_runs'`,
    'new.id::text',
    'coalesce(new.finished_at, now())',
    `jsonb_build_object('run', jsonb_build_object('id', new.id, 'kind', new.kind, 'entities', to_jsonb(new.entities), 'error', new.error))`,
  ),
);

const FROM_HELD = triggerFunction(
  'events_from_held',
  '',
  `
    with held as materialized (
      select account_id, entity, count(*)::int as n, max(run_id) as run_id,
             (array_agg(entity_id order by entity_id::int))[1:100] as ids
        from new_held group by account_id, entity
    ),
    reserved as (select events_reserve((select count(*) from held)::integer) as base)
    insert into events (id, account_id, type, occurred_at, entity, record_id, body)
    select reserved.base + row_number() over (order by h.account_id, h.entity), h.account_id, 'deletes.held', now(),
           'held_deletes', h.entity, jsonb_build_object('entity', h.entity, 'held', h.n, 'run_id', h.run_id, 'ids', to_jsonb(h.ids))
      from held h, reserved;`,
);

/** New events go to the matching subscriptions. */
const FAN_OUT = triggerFunction(
  'events_fan_out',
  'newest bigint;',
  `
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
    end if;`,
);

/**
 * Their readers are woken: a bare notification on the events channel. Security definer, to read
 * the channel's name (notification_channels), which the role writing may not; it reads nothing else.
 */
const NOTIFY = `
  create or replace function events_notify() returns trigger language plpgsql security definer
    set search_path = pg_catalog, pg_temp as $$
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
  $$`;

const TRIGGERS = [
  'drop trigger if exists events_from_changes on changes',
  `create trigger events_from_changes after insert on changes referencing new table as new_changes
     for each statement execute function events_from_changes()`,
  'drop trigger if exists events_from_jobs on jobs',
  `create trigger events_from_jobs after update of status on jobs for each row
     when (new.status in ('succeeded', 'failed', 'interrupted') and old.status is distinct from new.status)
     execute function events_from_jobs()`,
  'drop trigger if exists events_from_runs on sync_runs',
  `create trigger events_from_runs after update of status on sync_runs for each row
     when (new.status = 'failed' and old.status is distinct from new.status) execute function events_from_runs()`,
  'drop trigger if exists events_from_held on held_deletes',
  `create trigger events_from_held after insert on held_deletes referencing new table as new_held
     for each statement execute function events_from_held()`,
  'drop trigger if exists events_fan_out on events',
  `create trigger events_fan_out after insert on events referencing new table as new_events
     for each statement execute function events_fan_out()`,
  'drop trigger if exists events_notify on events',
  `create trigger events_notify after insert on events referencing new table as new_events
     for each statement execute function events_notify()`,
];

/** Every statement, in order: functions first, then the triggers that call them. */
export const EVENT_TRIGGER_STATEMENTS: readonly string[] = [
  ...CHANGE_AFTER_STATEMENTS,
  ...HELPERS,
  FROM_CHANGES,
  FROM_JOBS,
  FROM_RUNS,
  FROM_HELD,
  FAN_OUT,
  NOTIFY,
  ...TRIGGERS,
];
