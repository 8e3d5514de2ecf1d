// Turns the per-account tables of a migrated mirror schema into tables declared
// PARTITION BY HASH (account_id), with their rows, in one transaction (see docs/scaling.md).
//   DATABASE_URL=postgres://… node scripts/partition-by-account.mjs [--schema NAME] [--partitions N] [--dry-run]
// --schema defaults to MIRROR_SCHEMA, then `invoicing`; --partitions to 8; --dry-run does it all,
// prints what it did, and rolls it back.
//
// The tables are found in the database's catalogue, not listed here: every table of the schema
// with an `account_id` column, but for `accounts`, `account_roles` and `webhook_subscriptions` (shared by every account) and
// a table with a BEFORE ROW trigger on insert or update (`jobs`): such a trigger may fill in
// account_id (jobs_account does), and Postgres routes a row to its partition before the trigger
// runs and cannot move it afterwards. A table already partitioned is left as it is, so running it
// again does nothing.
//
// It keeps every column (with its default, identity, generated expression, storage and comment),
// constraint and index (under its own name, NOT VALID ones as such), comment, trigger (and whether
// it is enabled), row-level security policy, grant and owner; the serial columns' sequences with
// their values; foreign keys to and from the tables; the views over them (recreated from their
// definitions, with their options, comments, grants and owner, so the report views need no
// migrate). The partitions <table>_p0 … get the table's owner, storage options and row-level
// security (a role granted them directly is confined as through the table), no grants.
//
// A node script rather than a SQL file: what it does depends on what the catalogue holds (which
// tables, which of their indexes, triggers, grants, views), which a SQL file could only say as one
// long PL/pgSQL block, and the test runs this script as an operator would.
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';

const USAGE =
  'usage: DATABASE_URL=postgres://… node scripts/partition-by-account.mjs [--schema NAME] [--partitions N] [--dry-run]';

/**
 * The accounts themselves and the roles confined to them: shared, read by every policy; and the
 * webhook subscriptions, each for one account or (account_id empty) for all of them.
 */
const SHARED_TABLES = ['accounts', 'account_roles', 'webhook_subscriptions'];

const ident = (name) => `"${String(name).replaceAll('"', '""')}"`;
const literal = (text) => `'${String(text).replaceAll("'", "''")}'`;

class DryRun extends Error {}

/** The options of the command line; throws a usage error (exit 2) on anything else. */
export function parseArgs(args, env = process.env) {
  const options = { schema: env.MIRROR_SCHEMA || 'invoicing', partitions: 8, dryRun: false, url: env.DATABASE_URL };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--dry-run') options.dryRun = true;
    else if (arg === '--schema' && args[i + 1]) options.schema = args[++i];
    else if (arg === '--partitions' && args[i + 1]) options.partitions = Number(args[++i]);
    else throw Object.assign(new Error(`${arg}: unknown option\n${USAGE}`), { usage: true });
  }
  if (!Number.isInteger(options.partitions) || options.partitions < 2 || options.partitions > 1024)
    throw Object.assign(new Error('--partitions: a whole number from 2 to 1024'), { usage: true });
  if (!options.url) throw Object.assign(new Error(`DATABASE_URL is not set\n${USAGE}`), { usage: true });
  return options;
}

/**
 * Partitions the schema's per-account tables; returns what it did, one line each. With `dryRun`
 * everything is done, then rolled back.
 */
export async function partitionByAccount({ url, schema, partitions = 8, dryRun = false }) {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  const report = [];
  try {
    await sql.begin(async (tx) => {
      await prepare(tx, schema);
      const plan = await planOf(tx, schema, report);
      if (plan.length > 0) await rebuild(tx, plan, partitions, report);
      if (dryRun) throw new DryRun();
    });
  } catch (error) {
    if (!(error instanceof DryRun)) throw error;
    report.push('dry run: rolled back');
  } finally {
    await sql.end();
  }
  return report;
}

/** The schema's search path, and the migrations' lock: `invoice-mirror migrate` waits meanwhile. */
async function prepare(tx, schema) {
  const [found] = await tx`select to_regclass(${`${ident(schema)}.schema_migrations`}) is not null as migrated`;
  if (!found.migrated) throw new Error(`schema ${schema} is not a migrated mirror: run invoice-mirror migrate first`);
  await tx.unsafe(`set local search_path to ${ident(schema)}`);
  await tx.unsafe(`lock table ${ident(schema)}.schema_migrations in exclusive mode`);
}

/** Every table to partition, described before anything changes; the others in the report, with why. */
async function planOf(tx, schema, report) {
  const tables = await tx`
    -- tgtype bits: 1 row, 2 before, 4 insert, 16 update.
    select c.oid, c.relname as name, c.relkind = 'p' as partitioned,
           (select string_agg(t.tgname, ', ' order by t.tgname) from pg_trigger t
             where t.tgrelid = c.oid and not t.tgisinternal
               and (t.tgtype & 3) = 3 and (t.tgtype & (4 | 16)) <> 0) as before_row_triggers
      from pg_class c
     where c.relnamespace = (select oid from pg_namespace where nspname = ${schema})
       and c.relkind in ('r', 'p') and not c.relispartition and c.relname <> all(${SHARED_TABLES})
       and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped)
     order by c.relname`;
  const plan = [];
  for (const table of tables) {
    if (table.partitioned) report.push(`${table.name}: already partitioned, left as it is`);
    else if (table.before_row_triggers)
      report.push(
        `${table.name}: left as it is: its BEFORE ROW trigger (${table.before_row_triggers}) may set account_id, and Postgres cannot move a row to another partition once routed`,
      );
    else plan.push(await describeTable(tx, schema, table));
  }
  return plan;
}

async function describeTable(tx, schema, { oid, name }) {
  const [table] = await tx`
    select pg_get_userbyid(c.relowner) as owner, obj_description(c.oid, 'pg_class') as comment,
           array_to_string(c.reloptions, ', ') as options, c.relrowsecurity as rls, c.relforcerowsecurity as force_rls
      from pg_class c where c.oid = ${oid}`;
  return {
    oid,
    name,
    schema,
    qualified: `${ident(schema)}.${ident(name)}`,
    old: `${ident(schema)}.${ident(`${name}_unpartitioned`)}`,
    ...table,
    columns: await tx`
      select a.attname as name, a.attidentity <> '' as identity,
             (select s.relname from pg_depend d join pg_class s on s.oid = d.objid and s.relkind = 'S'
               where d.refobjid = a.attrelid and d.refobjsubid = a.attnum and d.deptype = 'i') as sequence
        from pg_attribute a
       where a.attrelid = ${oid} and a.attnum > 0 and not a.attisdropped and a.attgenerated = '' order by a.attnum`,
    grants: await grantsOf(tx, oid, `${ident(schema)}.${ident(name)}`),
    constraints: await tx`
      select co.conname as name, co.contype as kind, pg_get_constraintdef(co.oid) as definition,
             obj_description(co.oid, 'pg_constraint') as comment
        from pg_constraint co where co.conrelid = ${oid} and co.contype in ('p', 'u', 'x', 'c', 'f')
       order by position(co.contype in 'puxcf'), co.conname`,
    indexes: await tx`
      select ic.relname as name, pg_get_indexdef(i.indexrelid) as definition,
             obj_description(i.indexrelid, 'pg_class') as comment
        from pg_index i join pg_class ic on ic.oid = i.indexrelid
       where i.indrelid = ${oid}
         and not exists (select from pg_constraint co where co.conindid = i.indexrelid and co.conrelid = i.indrelid)
       order by ic.relname`,
    triggers: await tx`
      select t.tgname as name, pg_get_triggerdef(t.oid) as definition, t.tgenabled as enabled,
             obj_description(t.oid, 'pg_trigger') as comment
        from pg_trigger t where t.tgrelid = ${oid} and not t.tgisinternal order by t.tgname`,
    policies: await policiesOf(tx, oid),
    serials: await tx`
      select format('%I.%I', n.nspname, s.relname) as sequence, a.attname as column
        from pg_depend d join pg_class s on s.oid = d.objid and s.relkind = 'S'
        join pg_namespace n on n.oid = s.relnamespace
        join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
       where d.refobjid = ${oid} and d.classid = 'pg_class'::regclass and d.deptype = 'a'`,
    incoming: await tx`
      select co.conrelid as from_oid, format('%s', co.conrelid::regclass) as "table", co.conname as name,
             pg_get_constraintdef(co.oid) as definition, obj_description(co.oid, 'pg_constraint') as comment
        from pg_constraint co where co.confrelid = ${oid} and co.conrelid <> ${oid} and co.contype = 'f'`,
  };
}

/** GRANT statements that give again what the relation's (and its columns') access lists hold. */
async function grantsOf(tx, oid, qualified) {
  const rows = await tx`
    select format('grant %s%s on %s to %s%s', g.privilege_type, coalesce(' (' || quote_ident(g.attname) || ')', ''),
                  ${qualified}::text, case when g.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(g.grantee)) end,
                  case when g.is_grantable then ' with grant option' else '' end) as statement
      from (select (aclexplode(c.relacl)).*, null::name as attname from pg_class c where c.oid = ${oid}
            union all
            select (aclexplode(a.attacl)).*, a.attname from pg_attribute a
             where a.attrelid = ${oid} and a.attacl is not null and not a.attisdropped) g`;
  return rows.map((row) => row.statement);
}

/** A table's policies, to be made on the partitioned table and on each partition. */
function policiesOf(tx, oid) {
  return tx`
    select p.polname as name, obj_description(p.oid, 'pg_policy') as comment,
           format('as %s for %s to %s%s%s',
                  case when p.polpermissive then 'permissive' else 'restrictive' end,
                  case p.polcmd when 'r' then 'select' when 'a' then 'insert' when 'w' then 'update' when 'd' then 'delete' else 'all' end,
                  (select string_agg(case when r = 0 then 'public' else quote_ident(pg_get_userbyid(r)) end, ', ')
                     from unnest(p.polroles) r),
                  ' using (' || pg_get_expr(p.polqual, p.polrelid) || ')',
                  ' with check (' || pg_get_expr(p.polwithcheck, p.polrelid) || ')') as clauses
      from pg_policy p where p.polrelid = ${oid} order by p.polname`;
}

/**
 * The views that read the tables, directly or through other views, in an order they can be made
 * in. A materialized view would lose its data and indexes: it stops the script, named.
 */
async function dependentViews(tx, oids) {
  const views = await tx`
    with recursive dependent(oid, depth) as (
      select r.ev_class, 1 from pg_depend d join pg_rewrite r on r.oid = d.objid
       where d.classid = 'pg_rewrite'::regclass and d.refclassid = 'pg_class'::regclass
         and d.refobjid = any(${oids}::oid[]) and r.ev_class <> d.refobjid
      union
      select r.ev_class, p.depth + 1 from dependent p
        join pg_depend d on d.refobjid = p.oid and d.refclassid = 'pg_class'::regclass and d.classid = 'pg_rewrite'::regclass
        join pg_rewrite r on r.oid = d.objid
       where r.ev_class <> p.oid
    )
    select v.oid, format('%s', v.oid::regclass) as name, v.relkind as kind, pg_get_viewdef(v.oid) as definition,
           array_to_string(v.reloptions, ', ') as options, pg_get_userbyid(v.relowner) as owner,
           obj_description(v.oid, 'pg_class') as comment,
           (select coalesce(json_agg(json_build_object('column', a.attname, 'comment', d.description)), '[]')
              from pg_description d join pg_attribute a on a.attrelid = d.objoid and a.attnum = d.objsubid
             where d.objoid = v.oid and d.classoid = 'pg_class'::regclass and d.objsubid > 0) as column_comments
      from (select oid, max(depth) as depth from dependent group by oid) p join pg_class v on v.oid = p.oid
     order by p.depth, v.relname`;
  const blocking = views.filter((view) => view.kind !== 'v').map((view) => view.name);
  if (blocking.length > 0)
    throw new Error(
      `materialized views read the tables and are not made again here (${blocking.join(', ')}): save their definitions, drop them, run this again, then create them again`,
    );
  for (const view of views) view.grants = await grantsOf(tx, view.oid, view.name);
  return views;
}

async function rebuild(tx, plan, partitions, report) {
  const oids = plan.map((table) => table.oid);
  const views = await dependentViews(tx, oids);
  // Foreign keys between the tables are their own constraints, made again with them.
  for (const table of plan) table.incoming = table.incoming.filter((fk) => !oids.includes(fk.from_oid));
  for (const table of plan) await replaceWithPartitioned(tx, table, partitions, report);
  if (views.length > 0) await tx.unsafe(`drop view ${views.map((view) => view.name).join(', ')}`);
  for (const table of plan)
    for (const fk of table.incoming) await tx.unsafe(`alter table ${fk.table} drop constraint ${ident(fk.name)}`);
  await tx.unsafe(`drop table ${plan.map((table) => table.old).join(', ')}`);
  for (const table of plan) await restoreTable(tx, table, partitions);
  for (const table of plan) await restoreForeignKeys(tx, table);
  for (const view of views) await restoreView(tx, view);
  if (views.length > 0) report.push(`views made again: ${views.map((view) => view.name).join(', ')}`);
}

/** The table's partitions, `<table>_p0` to `<table>_p<N-1>`, qualified. */
const partitionsOf = (table, partitions) =>
  Array.from({ length: partitions }, (_, i) => `${ident(table.schema)}.${ident(`${table.name}_p${i}`)}`);

/**
 * The table under its own name, partitioned, with the old one's columns and rows; the old one,
 * renamed, is dropped once every table is done. Constraints and indexes come after the copy (they
 * are built once, over the rows, and keep their names, which the old table holds until then).
 */
async function replaceWithPartitioned(tx, table, partitions, report) {
  const { old } = table;
  await tx.unsafe(`alter table ${table.qualified} rename to ${ident(`${table.name}_unpartitioned`)}`);
  await tx.unsafe(
    `create table ${table.qualified} (like ${old} including all excluding constraints excluding indexes) partition by hash (account_id)`,
  );
  // The serial's sequence would go with the old table: it follows its column, keeping its value.
  for (const { sequence, column } of table.serials)
    await tx.unsafe(`alter sequence ${sequence} owned by ${table.qualified}.${ident(column)}`);
  for (const [i, partition] of partitionsOf(table, partitions).entries()) {
    await tx.unsafe(
      `create table ${partition} partition of ${table.qualified} for values with (modulus ${partitions}, remainder ${i})`,
    );
    // Storage options belong to partitions: a partitioned table holds no rows of its own.
    if (table.options) await tx.unsafe(`alter table ${partition} set (${table.options})`);
  }
  const columns = table.columns.map((column) => ident(column.name)).join(', ');
  const copied = await tx.unsafe(
    `insert into ${table.qualified} (${columns}) overriding system value select ${columns} from ${old}`,
  );
  await carryIdentities(tx, table, old);
  report.push(`${table.name}: ${partitions} partitions, ${copied.count} rows`);
}

/** An identity column gets a sequence of its own from LIKE: it continues where the old one was. */
async function carryIdentities(tx, table, old) {
  for (const column of table.columns.filter((c) => c.identity)) {
    const [{ from, to }] = await tx`
      select pg_get_serial_sequence(${old}, ${column.name}) as from,
             pg_get_serial_sequence(${table.qualified}, ${column.name}) as to`;
    await tx.unsafe(`select setval(${literal(to)}, last_value, is_called) from ${from}`);
  }
}

/** What the old table had besides its columns and rows, once it is gone and its names are free. */
async function restoreTable(tx, table, partitions) {
  await renameIdentitySequences(tx, table);
  for (const constraint of table.constraints.filter((c) => c.kind !== 'f'))
    await tx.unsafe(`alter table ${table.qualified} add constraint ${ident(constraint.name)} ${constraint.definition}`);
  for (const index of table.indexes) await tx.unsafe(index.definition);
  for (const trigger of table.triggers) await restoreTrigger(tx, table, trigger);
  for (const statement of table.grants) await tx.unsafe(statement);
  await restoreComments(tx, table);
  // The partitions get the table's owner and row-level security, no grants: a role granted a
  // partition directly (grant_account grants every table) is still confined to its accounts.
  for (const target of [table.qualified, ...partitionsOf(table, partitions)]) {
    await tx.unsafe(`alter table ${target} owner to ${ident(table.owner)}`);
    await restoreRowSecurity(tx, table, target);
  }
}

/** LIKE named an identity's new sequence after the old one (`…_seq1`): it takes the old name back. */
async function renameIdentitySequences(tx, table) {
  for (const column of table.columns.filter((c) => c.identity)) {
    const [{ sequence }] = await tx`select pg_get_serial_sequence(${table.qualified}, ${column.name}) as sequence`;
    await tx.unsafe(`alter sequence ${sequence} rename to ${ident(column.sequence)}`);
  }
}

const TRIGGER_STATES = { D: 'disable trigger', R: 'enable replica trigger', A: 'enable always trigger' };

async function restoreTrigger(tx, table, trigger) {
  await tx.unsafe(trigger.definition);
  const state = TRIGGER_STATES[trigger.enabled];
  if (state) await tx.unsafe(`alter table ${table.qualified} ${state} ${ident(trigger.name)}`);
}

/** The comments LIKE leaves behind: the table's, and those of constraints and indexes made again here. */
async function restoreComments(tx, table) {
  const on = table.qualified;
  const comments = [
    [`table ${on}`, table.comment],
    ...table.constraints.map((c) => [`constraint ${ident(c.name)} on ${on}`, c.comment]),
    ...table.indexes.map((i) => [`index ${ident(i.name)}`, i.comment]),
    ...table.triggers.map((t) => [`trigger ${ident(t.name)} on ${on}`, t.comment]),
  ];
  for (const [object, comment] of comments)
    if (comment !== null) await tx.unsafe(`comment on ${object} is ${literal(comment)}`);
}

async function restoreRowSecurity(tx, table, target) {
  if (table.rls) await tx.unsafe(`alter table ${target} enable row level security`);
  if (table.force_rls) await tx.unsafe(`alter table ${target} force row level security`);
  for (const policy of table.policies) {
    await tx.unsafe(`create policy ${ident(policy.name)} on ${target} ${policy.clauses}`);
    if (policy.comment !== null)
      await tx.unsafe(`comment on policy ${ident(policy.name)} on ${target} is ${literal(policy.comment)}`);
  }
}

/** The table's own foreign keys and those of other tables to it, once every table is in place. */
async function restoreForeignKeys(tx, table) {
  const own = table.constraints.filter((c) => c.kind === 'f').map((c) => ({ ...c, table: table.qualified }));
  for (const fk of [...own, ...table.incoming]) {
    await tx.unsafe(`alter table ${fk.table} add constraint ${ident(fk.name)} ${fk.definition}`);
    if (fk.comment !== null)
      await tx.unsafe(`comment on constraint ${ident(fk.name)} on ${fk.table} is ${literal(fk.comment)}`);
  }
}

async function restoreView(tx, view) {
  const options = view.options ? ` with (${view.options})` : '';
  await tx.unsafe(`create view ${view.name}${options} as ${view.definition}`);
  await tx.unsafe(`alter view ${view.name} owner to ${ident(view.owner)}`);
  for (const statement of view.grants) await tx.unsafe(statement);
  if (view.comment !== null) await tx.unsafe(`comment on view ${view.name} is ${literal(view.comment)}`);
  for (const { column, comment } of view.column_comments)
    await tx.unsafe(`comment on column ${view.name}.${ident(column)} is ${literal(comment)}`);
}

async function main() {
  try {
    const options = parseArgs(process.argv.slice(2));
    const report = await partitionByAccount(options);
    for (const line of report) console.log(line);
    if (report.length === 0) console.log(`no table with account_id in schema ${options.schema}`);
  } catch (error) {
    console.error(error.message);
    process.exitCode = error.usage ? 2 : 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
