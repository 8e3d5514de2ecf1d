/**
 * The baseline (src/db/baseline.ts): an empty schema built from it equals one built by replaying
 * every migration and the repeatable step, on whatever server the tests run on
 * (the embedded one has no lz4, PostgreSQL 15 of Debian has): columns, keys, indexes, views,
 * functions, triggers, comments, and what schemaShape leaves out: policies, row security,
 * privileges, storage options, compression of the tables' columns, sequences, seeded rows. It
 * stands for every migration and repeatable of this version, so that adding a migration or
 * changing the catalogue without running scripts/baseline.mjs fails here rather than slowing every
 * first start; and where a repeatable changed since, that one is applied over it.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { BASELINE } from '../../src/db/baseline-schema.js';
import { migrate, openDatabase, type DatabaseHandle } from '../../src/db/index.js';
import { REPEATABLES } from '../../src/db/repeatable.js';
import { schemaShape } from '../support/schema-shape.js';
import { databaseUrl, dropSchema, uniqueSchema } from '../support/test-database.js';

const fromBaseline = uniqueSchema('baseline');
const replayed = uniqueSchema('replayed');
const again = uniqueSchema('baseline');
const handles: DatabaseHandle[] = [];

const open = async (schema: string) => {
  const handle = await openDatabase({ databaseUrl: databaseUrl(), embeddedDbDir: '', schema, poolSize: 1 });
  handles.push(handle);
  return handle.db;
};

/** What schemaShape does not compare, with the schema's own name taken out. */
async function moreShape(db: Kysely<any>, schema: string) {
  const lines = async (query: ReturnType<typeof sql<{ line: string }>>) =>
    (await query.execute(db)).rows.map((row) => row.line.split(`${schema}.`).join('')).sort();
  return {
    tables: await lines(sql<{ line: string }>`
      select c.relname || ' ' || c.relkind::text || ' rls ' || c.relrowsecurity || ' forced ' || c.relforcerowsecurity
             || ' options ' || coalesce(array_to_string(c.reloptions, ','), '') || ' acl ' || coalesce(c.relacl::text, '')
             || ' replica ' || c.relreplident::text as line
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = ${schema} and c.relkind in ('r', 'v', 'S', 'p')`),
    compression: await lines(sql<{ line: string }>`
      select c.relname || '.' || a.attname || ' ' || a.attcompression::text || ' ' || a.attstorage::text as line
        from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = ${schema} and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped`),
    policies: await lines(sql<{ line: string }>`
      select tablename || ' ' || policyname || ' ' || permissive || ' ' || cmd || ' ' || roles::text
             || ' using ' || coalesce(qual, '') || ' check ' || coalesce(with_check, '') as line
        from pg_policies where schemaname = ${schema}`),
    functions: await lines(sql<{ line: string }>`
      select p.proname || ' acl ' || coalesce(p.proacl::text, '') || ' secdef ' || p.prosecdef as line
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = ${schema}`),
    sequences: await lines(sql<{ line: string }>`
      select sequencename || ' ' || data_type || ' ' || start_value || ' ' || increment_by || ' ' || coalesce(last_value, 0) as line
        from pg_sequences where schemaname = ${schema}`),
    channels: await lines(sql<{ line: string }>`
      select purpose || ' ' || (channel ~ ('^im_' || purpose || '_[0-9a-f]{32}$')) as line from notification_channels`),
  };
}

beforeAll(async () => {
  expect(await migrate(await open(fromBaseline), fromBaseline)).toEqual([
    ...migrations.map((m) => m.name),
    ...REPEATABLES.map((r) => r.name),
  ]);
  await migrate(await open(replayed), replayed, { baseline: false });
});

afterAll(async () => {
  for (const handle of handles) await handle.close();
  for (const schema of [fromBaseline, replayed, again]) await dropSchema(databaseUrl(), schema);
});

describe('the baseline of an empty schema', () => {
  it('stands for every migration and repeatable of this version (else run scripts/baseline.mjs)', () => {
    expect(BASELINE.migrations).toEqual(migrations.map((m) => m.name));
    expect(BASELINE.repeatables).toEqual(Object.fromEntries(REPEATABLES.map((r) => [r.name, r.hash])));
  });

  it('builds the schema the migrations replayed build', async () => {
    const [baselineDb, replayedDb] = [handles[0]!.db, handles[1]!.db];
    expect(await schemaShape(baselineDb, fromBaseline)).toEqual(await schemaShape(replayedDb, replayed));
    expect(await moreShape(baselineDb, fromBaseline)).toEqual(await moreShape(replayedDb, replayed));
  });

  it('gives each schema notification channels of its own, and is not used again once the schema is made', async () => {
    const db = await open(again);
    await migrate(db, again);
    const channels = async (on: Kysely<any>) =>
      (await sql<{ channel: string }>`select channel from notification_channels order by purpose`.execute(on)).rows;
    const [first, second] = [await channels(handles[0]!.db), await channels(db)];
    expect(first).toHaveLength(2);
    expect(second.map((row) => row.channel)).not.toEqual(expect.arrayContaining(first.map((row) => row.channel)));
    expect(await migrate(db, again)).toEqual([]);
  });

  it('applies a repeatable over it where what the repeatable makes has changed since', async () => {
    const changed = uniqueSchema('baseline');
    const db = await open(changed);
    try {
      const applied: string[] = [];
      const repeatables = REPEATABLES.map((r) =>
        r.name === 'job_kinds'
          ? {
              ...r,
              hash: `${r.hash}-changed`,
              apply: (trx: Parameters<typeof r.apply>[0]) => {
                applied.push(r.name);
                return r.apply(trx);
              },
            }
          : r,
      );
      expect(await migrate(db, changed, { repeatables, baseline: true })).toEqual([
        ...migrations.map((m) => m.name),
        ...REPEATABLES.map((r) => r.name),
      ]);
      expect(applied).toEqual(['job_kinds']);
      const { rows } = await sql<{
        hash: string;
      }>`select hash from schema_repeatables where name = 'job_kinds'`.execute(db);
      expect(rows[0]?.hash).toMatch(/-changed$/);
    } finally {
      await dropSchema(databaseUrl(), changed);
    }
  });
});
