/**
 * The next entity is read while the one before concludes (its sweep, its pull recorded) on the
 * run's connection: the service is asked for pages instead of waiting for the mirror. A conclusion
 * made slow on purpose (a trigger that sleeps when the clients' pull is recorded) shows it: the
 * products' pages are all asked for before it ends, and both entities still end complete, in order.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { runSync } from '../../src/sync/index.js';
import { useSandbox } from '../support/sandbox.js';
import { pullOf, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({ perEntity: { clients: 30, products: 30 } }, { pageSize: 10 });
const db = () => database.current.handle.db;
const SLEEP_S = 0.6;

afterEach(async () => {
  await sql`drop trigger if exists slow_conclusion on entity_pulls`.execute(db());
});

describe('entities read while the one before concludes', () => {
  it("the products' pages are asked for before the clients' conclusion ends", async () => {
    await sql`create table if not exists conclusions (entity text, began_at timestamptz, ended_at timestamptz)`.execute(
      db(),
    );
    await sql
      .raw(`
      create or replace function slow_conclusion() returns trigger language plpgsql as $$
      declare began timestamptz := clock_timestamp();
      begin
        if new.entity = 'clients' then
          perform pg_sleep(${SLEEP_S});
          insert into conclusions values (new.entity, began, clock_timestamp());
        end if;
        return new;
      end $$`)
      .execute(db());
    await sql`create trigger slow_conclusion before insert or update on entity_pulls for each row execute function slow_conclusion()`.execute(
      db(),
    );
    env.sandbox.clearCalls();

    const outcome = await runSync(...pullOf(database, env.client), {
      kind: 'backfill',
      entities: ['clients', 'products'],
    });

    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.clients).toMatchObject({ inserted: 30, complete: true });
    expect(outcome.entities.products).toMatchObject({ inserted: 30, complete: true });
    const { rows } = await sql<{ ended: number }>`
      select extract(epoch from ended_at) * 1000 as ended
      from conclusions where entity = 'clients'`.execute(db());
    expect(rows).toHaveLength(1);
    const ended = Number(rows[0]!.ended);
    const products = env.sandbox.calls.filter((call) => call.path.endsWith('/products'));
    // Four requests (three pages and the empty one), every one before the clients' conclusion
    // ended; the pull before this change asked for the first page ahead and the rest only after.
    expect(products).toHaveLength(4);
    expect(products.filter((call) => call.startedAt < ended)).toHaveLength(4);
    // And the products' own pull is recorded after the clients' (one conclusion at a time, in order).
    const { rows: pulls } = await sql<{ entity: string }>`
      select entity from entity_pulls where entity in ('clients', 'products') order by last_complete_at`.execute(db());
    expect(pulls.map((row) => row.entity)).toEqual(['clients', 'products']);
  });
});
