import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { jsonb } from '../../src/db/index.js';
import { notificationChannel } from '../../src/db/channels.js';
import { useTestDatabase } from '../support/test-database.js';
import { ENTITY_NAMES } from '../../src/catalog/index.js';

const database = useTestDatabase();

describe('postgres through postgres.js', () => {
  it('stores jsonb as objects, and returns bigint as number, numeric as text, date as text', async () => {
    const { db } = database.current.handle;
    const row = await db
      .insertInto('jobs')
      .values({
        account_id: database.current.accountId,
        kind: 'send_saved_invoices',
        payload: jsonb({ ids: [12, 13], delete: true }),
      })
      .returning(['id', 'payload'])
      .executeTakeFirstOrThrow();
    expect(typeof row.id).toBe('number');
    expect(row.payload).toEqual({ ids: [12, 13], delete: true });
    const kind = await sql<{ t: string }>`select jsonb_typeof(payload) as t from jobs where id = ${row.id}`.execute(db);
    expect(kind.rows[0]!.t).toBe('object');
    const types = await sql<{
      big: unknown;
      money: unknown;
      day: unknown;
    }>`select 9007199254740::bigint as big, 62.920::numeric as money, date '2026-01-31' as day`.execute(db);
    expect(types.rows[0]).toEqual({ big: 9007199254740, money: '62.920', day: '2026-01-31' });
  });

  it('wakes a listener when a job is queued by plain SQL', async () => {
    const { handle } = database.current;
    const received: string[] = [];
    const channel = await notificationChannel(handle.db, 'jobs');
    const unlisten = await handle.listen(channel!, (payload) => received.push(payload));
    await sql`insert into jobs (kind, payload) values ('delete_product', '{"id": 1}')`.execute(handle.db);
    for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await unlisten();
    // A bare wake-up: who listens learns nothing of the job (issue 41; it was the job's id).
    expect(received).toEqual(['']);
  });

  it('prepares parameterized queries, and runs them again after the table they read changed', async () => {
    const { db } = database.current.handle;
    await db.connection().execute(async (connection) => {
      await sql`create table probe (id integer primary key, note text)`.execute(connection);
      await sql`insert into probe values (1, 'first')`.execute(connection);
      const read = (id: number) => sql<{ note: string }>`select * from probe where id = ${id}`.execute(connection);
      expect((await read(1)).rows).toEqual([{ id: 1, note: 'first' }]);
      const prepared = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_prepared_statements where statement = 'select * from probe where id = $1'`.execute(
        connection,
      );
      expect(prepared.rows[0]!.n).toBe(1);
      // The prepared statement's result type changes: postgres.js prepares it again.
      await sql`alter table probe add column extra integer default 7`.execute(connection);
      expect((await read(1)).rows).toEqual([{ id: 1, note: 'first', extra: 7 }]);
    });
  });

  it('indexes deleted_at for the deleted rows only, and "deleted since" queries use that index', async () => {
    const { db } = database.current.handle;
    const { rows: indexes } = await sql<{ tablename: string; indexdef: string }>`
      select tablename, indexdef from pg_indexes where schemaname = current_schema() and indexname = tablename || '_deleted_at' order by tablename`.execute(
      db,
    );
    expect(indexes.map((i) => i.tablename)).toEqual([...ENTITY_NAMES].sort());
    for (const index of indexes)
      expect(index.indexdef).toMatch(/\(account_id, deleted_at\) WHERE \(deleted_at IS NOT NULL\)$/);
    const plan = await db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const { rows } = await sql<{
        'QUERY PLAN': string;
      }>`explain select clientnr from clients where account_id = 1 and deleted_at > now() - interval '7 days'`.execute(
        trx,
      );
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('clients_deleted_at');
  });
});
