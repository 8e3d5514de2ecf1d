/**
 * The set-based diff. A page of records is sent to Postgres as one text parameter (see page-text.ts)
 * and merged in a single statement: rows whose raw record is unchanged are skipped (not even
 * rewritten), new ones are inserted, changed or returning ones updated, and a `changes` row is
 * written for each in the same statement, hence the same transaction; so are the lines of the
 * documents whose lines changed. One statement per page keeps Postgres busy with work rather than
 * waiting for this process, which meanwhile parses the next page. Deletes are a separate sweep,
 * run only after a complete pull.
 */
import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import { LINE_COLUMNS, type Column } from '../catalog/index.js';
import { quoteName, type Database } from '../db/index.js';
import type { EntityDefinition, RecordIdentity, StagedRow } from './entities.js';
import { decodePageSql, encodePage, typedFieldSql, type PageText } from './page-text.js';

export interface MergeResult {
  inserted: number;
  updated: number;
  restored: number;
  unchanged: number;
}

/** SQL literal of a JSON key or path element (column names are plain identifiers). */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The SQL expression that computes a column from a staged record (see StagedRow and page-text.ts). */
function columnExpression(definition: EntityDefinition, column: Column): string {
  if (column.name === definition.key) return 'x.k';
  const wire = column.subfield
    ? `x.r -> ${literal(column.field!)} ->> ${literal(column.subfield)}`
    : `x.r ->> ${literal(column.field ?? column.name)}`;
  if (column.type === 'text') {
    return `case when x.o ? ${literal(column.name)} then x.o ->> ${literal(column.name)} else ${wire} end`;
  }
  const field = typedFieldSql(definition, column, 'x');
  // Money and quantities are cast from the wire's own decimal text (exact: 59.90 stays 59.90;
  // jsonb keeps a JSON number's digits too). The field only says whether there is one: the client
  // checked it is a number in range, and a value it rejected is null here.
  if (column.type === 'numeric')
    return `case when ${field} = '' then null else nullif(btrim(${wire}), '')::numeric end`;
  return `nullif(${field}, '')::${column.type}`;
}

/**
 * How a page is written. `merge` is the general statement: it compares with what is stored and
 * writes only what changed. `insert` is for a page of records none of which is stored yet (a
 * backfill into an empty table): plain inserts, no conflict checks, no trimming of old lines and
 * change rows without `after`, which makes a first fill cheaper. If a record of such a page is
 * stored after all (listed twice, or written meanwhile by a job's refresh), the insert fails as a
 * whole on the key and the page is merged instead (see writePage).
 */
export type WriteMode = 'merge' | 'insert';

/**
 * The statement of an entity and mode, with three parameters: `$1` the page as text (see
 * page-text.ts), `$2` the run id and `$3` the account. Built once from the entity's fixed column list; every value is a parameter.
 */
const mergeSqlCache = new Map<string, string>();

function mergeSql(definition: EntityDefinition, mode: WriteMode): string {
  const cacheKey = `${definition.name}:${mode}`;
  let text = mergeSqlCache.get(cacheKey);
  if (!text) mergeSqlCache.set(cacheKey, (text = buildMergeSql(definition, mode)));
  return text;
}

/**
 * The columns a page's insert writes (`targets`) and what it writes into them from `incoming`
 * (`values`): the entity's own, then those computed from them, so that a row is written once with
 * its derived values rather than inserted and then updated by a trigger.
 */
function writtenColumns(definition: EntityDefinition): { targets: string[]; values: string[] } {
  const names = definition.columns.map((c) => quoteName(c.name));
  return {
    targets: [...names, ...definition.computedColumns.map((c) => quoteName(c.name))],
    values: [...names, ...definition.computedColumns.map((c) => c.computed!)],
  };
}

function buildMergeSql(definition: EntityDefinition, mode: WriteMode): string {
  const table = definition.name;
  const key = quoteName(definition.key);
  const { targets, values } = writtenColumns(definition);
  // In `insert` mode every incoming record is inserted (or the statement fails), so the changes,
  // the lines and the counts read `incoming` itself: the insert returns nothing, and the raw
  // records are not copied through two more materialized steps. No `after`: see
  // src/db/change-after.ts.
  const write =
    mode === 'insert'
      ? `
written as (
  insert into ${table} (account_id, ${targets.join(', ')}, raw, raw_hash)
  select $3::int, ${values.join(', ')}, raw, raw_hash from incoming
),
classified as not materialized (
  select i.${key} as key, null::jsonb as after, null::jsonb as before, 'insert' as op from incoming i
),`
      : `
previous as (
  -- The keys as an array: an index condition, so each is looked up, whatever the statistics say
  -- ("in (select …)" was planned as a scan of all the account's rows while their statistics were fresh).
  select t.${key} as key, t.raw, t.deleted_at from ${table} t
  where t.account_id = $3::int and t.${key} = any(array(select ${key} from incoming))
),
written as (
  insert into ${table} as t (account_id, ${targets.join(', ')}, raw, raw_hash)
  select $3::int, ${values.join(', ')}, raw, raw_hash from incoming
  on conflict (account_id, ${key}) do update set
    ${targets
      .filter((n) => n !== key)
      .map((n) => `${n} = excluded.${n}`)
      .join(',\n    ')},
    raw = excluded.raw, raw_hash = excluded.raw_hash,
    last_changed_at = case when t.raw is distinct from excluded.raw or t.deleted_at is not null then now() else t.last_changed_at end,
    last_seen_at = now(), deleted_at = null
  -- Unchanged rows are not written at all; a row whose record is the same but arrived as other
  -- text (another serialization) only gets its new hash.
  where t.raw is distinct from excluded.raw or t.deleted_at is not null or t.raw_hash is distinct from excluded.raw_hash
  returning t.${key} as key, t.raw
),
classified as (
  select w.key, w.raw as after, p.raw as before,
    case when p.key is null then 'insert' when p.deleted_at is not null then 'restore'
         when p.raw is distinct from w.raw then 'update' else 'rehash' end as op,
    (p.key is null or w.raw -> 'lines' is distinct from p.raw -> 'lines') as lines_changed
  from written w left join previous p on p.key = w.key
),`;
  return `
with no_flush_wait as (
  -- This statement is its own transaction; its commit need not wait for the WAL flush (see
  -- run.ts: a lost page is written again by the next pull).
  select set_config('synchronous_commit', 'off', true)
),
incoming as (
  select ${definition.columns.map((c) => `${columnExpression(definition, c)} as ${quoteName(c.name)}`).join(',\n    ')},
    x.h as raw_hash, x.r as raw, x.l as lines
  from (
    ${decodePageSql('$1')}
    -- Not pulled up into the select above: that would parse the raw record once per column.
    offset 0
  ) as x
),${write}
logged as (
  insert into changes (account_id, sync_run_id, entity, entity_id, op, changed_fields, before, after)
  select $3::int, $2::bigint, '${table}', c.key::text, c.op,
    case when c.op = 'insert' then null else array(
      select k from (select jsonb_object_keys(c.after) union select jsonb_object_keys(c.before)) as keys(k)
      where c.after -> k is distinct from c.before -> k order by k) end,
    c.before, c.after
  from classified c where c.op <> 'rehash'
)${definition.documentType ? linesSql(definition, mode) : ''}
select count(*) filter (where op = 'insert')::int as inserted, count(*) filter (where op = 'update')::int as updated,
  count(*) filter (where op = 'restore')::int as restored
from classified, no_flush_wait`;
}

/**
 * An int[] parameter. Both drivers send a JavaScript array as a typed array parameter, which the
 * planner treats as one constant (`= any(…)` uses the index). Not `cast(text as int[])`: that
 * cast is evaluated again for every row it is compared with.
 */
export function intArray(values: Iterable<number>): RawBuilder<number[]> {
  return sql<number[]>`${[...values]}::int[]`;
}

/**
 * The stored hashes of the live rows among `keys` (an index lookup), or of every live row of the
 * account without `keys` (one query instead of one per page), by key.
 */
export async function storedHashes(
  db: Kysely<Database>,
  accountId: number,
  definition: EntityDefinition,
  keys?: readonly number[],
): Promise<Map<number, string | null>> {
  if (keys?.length === 0) return new Map();
  const key = sql.raw(quoteName(definition.key));
  const among = keys ? sql`and ${key} = any(${intArray(keys)})` : sql``;
  const { rows: stored } = await sql<{ k: number; h: string | null }>`
    select ${key} as k, raw_hash as h from ${sql.table(definition.name)}
    where account_id = ${accountId} ${among} and deleted_at is null`.execute(db);
  return new Map(stored.map((row) => [Number(row.k), row.h]));
}

/** The keys of the rows that need the merge: new, changed or deleted ones, and ones whose text hash differs. */
export function keysDiffering(
  rows: readonly RecordIdentity[],
  stored: ReadonlyMap<number, string | null>,
): Set<number> {
  return new Set(rows.filter((row) => stored.get(row.key) !== row.hash).map((row) => row.key));
}

/**
 * The keys of the rows that need the merge (see keysDiffering). Reads the stored hashes of the
 * page's keys and compares them here, so a page that needs nothing costs one small query and
 * writes nothing.
 */
export async function keysToMerge(
  db: Kysely<Database>,
  accountId: number,
  definition: EntityDefinition,
  rows: readonly RecordIdentity[],
): Promise<Set<number>> {
  return keysDiffering(
    rows,
    await storedHashes(
      db,
      accountId,
      definition,
      rows.map((row) => row.key),
    ),
  );
}

/** SQLSTATE of a unique violation: in `insert` mode, a record that was stored after all. */
const UNIQUE_VIOLATION = '23505';

/**
 * Writes one prepared page in one statement, which is atomic by itself: one round trip, so
 * Postgres never waits between statements for this process while it parses the next page.
 * In `insert` mode a page that meets a stored key is merged instead (so that mode needs `db`
 * outside a transaction, which the failed insert would abort); `mode` in the result says which
 * statement wrote it.
 */
export async function writePage(
  db: Kysely<Database>,
  accountId: number,
  definition: EntityDefinition,
  page: PageText,
  runId: number | null,
  mode: WriteMode = 'merge',
): Promise<MergeResult & { mode: WriteMode }> {
  if (page.size === 0) return { inserted: 0, updated: 0, restored: 0, unchanged: 0, mode };
  const statement = CompiledQuery.raw(mergeSql(definition, mode), [page.text, runId, accountId]);
  let counts: Omit<MergeResult, 'unchanged'>;
  try {
    const { rows: answer } = await db.executeQuery<Omit<MergeResult, 'unchanged'>>(statement);
    counts = answer[0]!;
  } catch (error) {
    if (mode === 'insert' && (error as { code?: string }).code === UNIQUE_VIOLATION)
      return writePage(db, accountId, definition, page, runId, 'merge');
    throw error;
  }
  // Rehashed rows (the same record arriving as other text) count as unchanged.
  return { ...counts, unchanged: page.size - counts.inserted - counts.updated - counts.restored, mode };
}

/** Encodes and writes one page of staged rows, one key each (see writePage). */
export function mergePage(
  db: Kysely<Database>,
  accountId: number,
  definition: EntityDefinition,
  rows: readonly StagedRow[],
  runId: number | null,
  mode: WriteMode = 'merge',
): Promise<MergeResult & { mode: WriteMode }> {
  return writePage(db, accountId, definition, encodePage(definition, rows), runId, mode);
}

/**
 * The part of the statement that rewrites the lines of the documents whose lines changed: an
 * upsert by position, and a delete of the positions past the new last line. The two touch
 * different rows, so they can share the statement (and its snapshot) with the merge. New
 * documents (`insert` mode) have no lines yet: their lines are plainly inserted.
 */
function linesSql(definition: EntityDefinition, mode: WriteMode): string {
  const type = literal(definition.documentType!);
  const key = quoteName(definition.key);
  const names = LINE_COLUMNS.map((c) => quoteName(c.name));
  // Each line is [wire key, values…] (see StagedRow.lines); numbers are cast from the wire line's
  // own text, so they keep their scale (13.50 stays 13.50).
  const values = LINE_COLUMNS.map((c, i) =>
    c.type === 'numeric'
      ? `case when l.v -> ${i + 1} = '1' then nullif(btrim(w.line ->> ${literal(c.name)}), '')::numeric end`
      : `l.v ->> ${i + 1}`,
  );
  // A merged page may rewrite stored documents: only the changed ones are relined, lines are
  // upserted and positions past the new last line deleted. Inserted documents are all new.
  const { relined, upsert, trim } =
    mode === 'merge'
      ? {
          relined: `select i.${key} as key, i.lines, i.raw -> 'lines' as wire from incoming i join classified c on c.key = i.${key} where c.lines_changed`,
          upsert: `
  on conflict (account_id, document_type, document_id, position) do update set
    ${names.map((n) => `${n} = excluded.${n}`).join(', ')}`,
          trim: `,
lines_trimmed as (
  delete from document_lines d using relined r
  where d.account_id = $3::int and d.document_type = ${type} and d.document_id = r.key
    and d.document_id = any(array(select key from relined)) -- an index condition (see previous)
    and d.position > jsonb_array_length(r.lines)
)`,
        }
      : { relined: `select i.${key} as key, i.lines, i.raw -> 'lines' as wire from incoming i`, upsert: '', trim: '' };
  return `,
relined as (
  ${relined}
),
lines_written as (
  insert into document_lines (account_id, document_type, document_id, position, ${names.join(', ')})
  select $3::int, ${type}, r.key, l.n::int, ${values.join(', ')}
  from relined r cross join lateral jsonb_array_elements(r.lines) with ordinality as l(v, n)
  cross join lateral (
    select case jsonb_typeof(r.wire) when 'object' then r.wire -> (l.v ->> 0) when 'array' then r.wire -> ((l.v ->> 0)::int) end as line
  ) w${upsert}
)${trim}`;
}

/** Marks the live rows that `condition` selects (alias `t`) deleted, each with a `changes` row. */
async function markGone(
  db: Kysely<Database>,
  accountId: number,
  definition: EntityDefinition,
  condition: RawBuilder<boolean>,
  runId: number | null,
): Promise<number> {
  const key = sql.raw(quoteName(definition.key));
  const result = await sql<{ deleted: number }>`
    with gone as (
      update ${sql.raw(definition.name)} t set deleted_at = now(), last_changed_at = now()
      where t.account_id = ${accountId} and t.deleted_at is null and ${condition}
      returning t.${key} as key, t.raw
    ),
    logged as (
      insert into changes (account_id, sync_run_id, entity, entity_id, op, before)
      select ${accountId}::int, ${runId}::bigint, ${definition.name}, key::text, 'delete', raw from gone
    )
    select count(*)::int as deleted from gone`.execute(db);
  return Number(result.rows[0]?.deleted ?? 0);
}

/**
 * After a complete pull: the live rows it did not see, and how many rows are live. Rows written
 * after the pull began (by a targeted refresh, say) are left out: the pull could not have seen them.
 */
export async function findMissing(
  db: Kysely<Database>,
  accountId: number,
  definition: EntityDefinition,
  seenKeys: ReadonlySet<number>,
  pullStartedAt: Date,
): Promise<{ missing: number[]; live: number }> {
  const key = sql.raw(quoteName(definition.key));
  const table = sql.raw(definition.name);
  // The live keys come back as one array and are compared with the seen ones here: an anti-join
  // with the seen keys sent as an array is planned as a nested loop whenever the table's
  // statistics are stale (a fresh mirror's are), which is quadratic (seconds for 10k rows).
  const { rows } = await sql<{ older: number[] | null; live: number }>`
    select array_agg(t.${key} order by t.${key}) filter (where t.last_changed_at < ${pullStartedAt}) as older,
           count(*)::int as live
    from ${table} t where t.account_id = ${accountId} and t.deleted_at is null`.execute(db);
  const older = (rows[0]?.older ?? []).map(Number);
  return { missing: older.filter((k) => !seenKeys.has(k)), live: Number(rows[0]?.live ?? 0) };
}

/** Marks the given live rows deleted, each with a `changes` row. */
export function markKeysDeleted(
  db: Kysely<Database>,
  accountId: number,
  definition: EntityDefinition,
  keys: readonly number[],
  runId: number | null,
): Promise<number> {
  if (keys.length === 0) return Promise.resolve(0);
  const key = sql.raw(quoteName(definition.key));
  return markGone(db, accountId, definition, sql<boolean>`t.${key} = any(${intArray(keys)})`, runId);
}

/** A record the service says no longer exists (a targeted refresh got 404): mark it deleted. */
export async function markDeleted(
  db: Kysely<Database>,
  accountId: number,
  definition: EntityDefinition,
  keyValue: number,
  runId: number | null,
): Promise<boolean> {
  const key = sql.raw(quoteName(definition.key));
  return (await markGone(db, accountId, definition, sql<boolean>`t.${key} = ${keyValue}`, runId)) > 0;
}

/**
 * `last_seen_at` is refreshed lazily: rewriting every unchanged row on every pull would turn a
 * no-change sync into a full-table write. Rows seen by a complete pull get a new `last_seen_at`
 * once it is older than `resolution`.
 */
export async function touchSeen(
  db: Kysely<Database>,
  accountId: number,
  definition: EntityDefinition,
  seenKeys: Iterable<number>,
  resolutionHours: number,
): Promise<number> {
  const key = sql.raw(quoteName(definition.key));
  const table = sql.raw(definition.name);
  // Usually nothing is due: find that out without sending the keys.
  const { rows: due } = await sql<{ due: boolean }>`
    select exists (select 1 from ${table} where account_id = ${accountId} and deleted_at is null and last_seen_at < now() - make_interval(hours => ${resolutionHours})) as due`.execute(
    db,
  );
  if (!due[0]?.due) return 0;
  const result = await sql<{ touched: number }>`
    with seen as (
      select unnest(${intArray(seenKeys)}) as key
    ),
    touched as (
      update ${table} t set last_seen_at = now()
      from seen s
      where t.account_id = ${accountId} and s.key = t.${key} and t.deleted_at is null and t.last_seen_at < now() - make_interval(hours => ${resolutionHours})
      returning 1
    )
    select count(*)::int as touched from touched`.execute(db);
  return Number(result.rows[0]?.touched ?? 0);
}

/**
 * Statistics for the columns a pull's statements select by, after a pull filled the entity's
 * empty table: until autovacuum analyzes it (never, where autovacuum is off) the planner takes the
 * table for empty, and the merges of the next pulls scanned every row of the account (and every
 * line of its documents) to find a few keys: 20–40 ms a statement instead of 2–5. Only these
 * columns, and from a sample of 3,000 rows (statistics target 10) instead of 30,000, for speed:
 * enough to plan look-ups by key, and an ANALYZE of some columns leaves the table due for
 * autovacuum's own, of every column at the server's target. A backfill of 60,000 records spent
 * 0.55 s of the server's time here with the default target (the lines analyzed after each of the
 * four document entities), 0.15 s with this one. One text: `set local` holds for its implicit
 * transaction alone.
 */
export async function analyzeFilled(db: Kysely<Database>, definition: EntityDefinition): Promise<void> {
  const lines = definition.documentType ? '; analyze document_lines (account_id, document_type, document_id)' : '';
  await db.executeQuery(
    CompiledQuery.raw(
      `set local default_statistics_target = 10; analyze ${quoteName(definition.name)} (account_id, ${quoteName(definition.key)})${lines}`,
    ),
  );
}
