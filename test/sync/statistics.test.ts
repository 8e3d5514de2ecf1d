/**
 * A pull that fills an empty table leaves statistics on the columns its statements select by, so
 * that the next pulls' merges look keys up through the index even where autovacuum has not
 * analyzed the table yet (or never does: it may be off). A small fill leaves the table alone.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runSync } from '../../src/sync/index.js';
import { useSandbox } from '../support/sandbox.js';
import { testSession, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({ perEntity: { clients: 1_100, products: 10, quotations: 1_050 } }, { pageSize: 500 });

const db = () => database.current.handle.db;

/** The columns of `table` the planner has statistics for. */
async function columnsWithStatistics(table: string): Promise<string[]> {
  const { rows } = await sql<{ attname: string }>`
    select attname from pg_stats where schemaname = current_schema() and tablename = ${table} order by attname`.execute(
    db(),
  );
  return rows.map((row) => row.attname);
}

describe('statistics after a fill', () => {
  it('a fill of 1,000 records or more analyzes the key columns of its table and of the lines; a small one does not', async () => {
    for (const table of ['clients', 'products', 'quotations', 'document_lines'])
      expect(await columnsWithStatistics(table)).toEqual([]);

    const outcome = await runSync(
      testSession({
        db: db(),
        client: env.client,
        accountId: database.current.accountId,
        schema: database.current.schema,
      }),
      {},
      { kind: 'backfill', entities: ['clients', 'products', 'quotations'] },
    );
    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.clients?.inserted).toBe(1_100);

    // (Contained, not equal: autovacuum, where it runs, may analyze every column meanwhile.)
    expect(await columnsWithStatistics('clients')).toEqual(expect.arrayContaining(['account_id', 'clientnr']));
    expect(await columnsWithStatistics('quotations')).toEqual(expect.arrayContaining(['account_id', 'id']));
    expect(await columnsWithStatistics('document_lines')).toEqual(
      expect.arrayContaining(['account_id', 'document_id', 'document_type']),
    );
    expect(await columnsWithStatistics('products')).toEqual([]);

    // From a sample (statistics target 10: at most 11 histogram bounds), unless autovacuum has
    // analyzed the table since at the server's own target; and the target was the statement's alone.
    const { rows: clients } = await sql<{ auto: number; bounds: number }>`
      select s.autoanalyze_count::int as auto,
             (select array_length(histogram_bounds::text::text[], 1) from pg_stats
               where schemaname = current_schema() and tablename = 'clients' and attname = 'clientnr') as bounds
        from pg_stat_user_tables s where s.schemaname = current_schema() and s.relname = 'clients'`.execute(db());
    if (clients[0]?.auto === 0) expect(clients[0].bounds).toBeLessThanOrEqual(11);
    const { rows: target } = await sql<{ target: string; reset: string }>`
      select current_setting('default_statistics_target') as target, reset_val as reset
        from pg_settings where name = 'default_statistics_target'`.execute(db());
    expect(target[0]?.target).toBe(target[0]?.reset);
  });
});
