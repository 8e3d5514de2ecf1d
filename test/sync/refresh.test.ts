/**
 * The refresh after a job: the records it names are read again and written through the pull's
 * page writer, so one record Postgres refuses keeps no other out (it is isolated and reported), and
 * a record gone upstream is marked deleted.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { refreshRecords, runSync } from '../../src/sync/index.js';
import { useSandbox } from '../support/sandbox.js';
import { testSession, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox(
  { perEntity: { clients: 20, products: 5, quotations: 5, saved_invoices: 5, repeating_invoices: 5 } },
  { pageSize: 50 },
);

const db = () => database.current.handle.db;

function upstreamClients(): number[] {
  return env.sandbox.store
    .list('clients')
    .map((r) => Number(r.clientnr))
    .sort((a, b) => a - b);
}

async function rejected() {
  return db().selectFrom('rejected_values').select(['entity', 'entity_id', 'field', 'action']).execute();
}

describe('the refresh after a job', () => {
  it('stores every record it can, isolates the one Postgres refuses and reports it, marks the gone one deleted', async () => {
    const backfill = await runSync(
      testSession({
        db: db(),
        client: env.client,
        accountId: database.current.accountId,
        schema: database.current.schema,
      }),
      {},
      { kind: 'backfill', entities: ['clients'] },
    );
    expect(backfill.status).toBe('succeeded');
    const [victim, gone, ...others] = upstreamClients();
    const changed = others.slice(0, 3);
    const targets = [victim!, ...changed, gone!].map((id) => ({ entity: 'clients' as const, id }));
    await sql`alter table clients add constraint test_no_nowhere check (city is distinct from 'Nowhere')`.execute(db());
    try {
      env.sandbox.store.setWire('clients', victim!, { city: 'Nowhere' });
      for (const id of changed) env.sandbox.store.setWire('clients', id, { notes: 'changed upstream' });
      env.sandbox.store.delete('clients', gone!);

      const outcome = await refreshRecords(
        { db: db(), accountId: database.current.accountId, client: env.client },
        targets,
      );
      expect(outcome).toMatchObject({ status: 'partial', inserted: 0, updated: 3, deleted: 1, unchanged: 0 });
      expect(outcome.errors).toEqual([expect.stringMatching(new RegExp(`^clients ${victim}: .*test_no_nowhere`))]);
      expect(await rejected()).toEqual([
        { entity: 'clients', entity_id: String(victim), field: '(record)', action: 'skipped' },
      ]);
      const { rows } = await sql<{ clientnr: number; notes: string | null; gone: boolean }>`
        select clientnr, notes, deleted_at is not null as gone from clients
         where clientnr = any(${[...changed, gone!]}::int[]) order by clientnr`.execute(db());
      expect(rows.map((r) => [Number(r.clientnr), r.gone ? 'deleted' : r.notes])).toEqual(
        [...changed, gone!].sort((a, b) => a - b).map((id) => [id, id === gone ? 'deleted' : 'changed upstream']),
      );
      const run = await db()
        .selectFrom('sync_runs')
        .select(['kind', 'counts'])
        .where('id', '=', outcome.runId)
        .executeTakeFirstOrThrow();
      expect(run).toMatchObject({
        kind: 'refresh',
        counts: { clients: { fetched: 4, inserted: 0, updated: 3, deleted: 1, unchanged: 0 } },
      });
    } finally {
      await sql`alter table clients drop constraint test_no_nowhere`.execute(db());
    }

    // Once Postgres takes it, the record is stored whole and its report cleared.
    const again = await refreshRecords({ db: db(), accountId: database.current.accountId, client: env.client }, [
      { entity: 'clients', id: victim! },
    ]);
    expect(again).toMatchObject({ status: 'succeeded', updated: 1, errors: [] });
    expect(await rejected()).toEqual([]);
  });
});
