/**
 * The mirror against what the real service may answer that a tidy one would not: a cap on `count`,
 * an empty list once, values Postgres cannot store, a list that keeps timing out, a list that
 * ignores paging, a record listed twice, a record Postgres refuses. For each: no record wrongly
 * marked deleted, every storable record stored, the bad value recorded with entity, id and field,
 * the run's status telling the truth, and the next clean pull converging to an exact mirror.
 */
import { sql } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { NUL_REPLACEMENT } from '../../src/api/index.js';
import { runSync, type PullSettings, type SyncOutcome } from '../../src/sync/index.js';
import { DEFAULT_DELETE_POLICY } from '../../src/sync/safeguard.js';
import type { SandboxEntity } from '../../src/sandbox/index.js';
import { clientFor, useSandbox } from '../support/sandbox.js';
import { testSession, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const PER_ENTITY = { clients: 120, products: 60, quotations: 40, saved_invoices: 40, repeating_invoices: 30 };
const env = useSandbox({ perEntity: PER_ENTITY, hangMs: 400 }, { pageSize: 50 });
const ENTITIES = Object.keys(PER_ENTITY) as SandboxEntity[];
const keyOf = (entity: string) => (entity === 'clients' ? 'clientnr' : 'id');

const db = () => database.current.handle.db;
const session = (client = env.client) =>
  testSession({ db: db(), client, accountId: database.current.accountId, schema: database.current.schema });
const settings = (overrides: PullSettings = {}): PullSettings => ({ writeConcurrency: 2, ...overrides });
const sync = (overrides: PullSettings = {}, entities?: SandboxEntity[]) =>
  runSync(session(), settings(overrides), { kind: 'sync', entities });

async function liveIds(entity: string): Promise<number[]> {
  const { rows } = await sql<{ k: number }>`
    select ${sql.ref(keyOf(entity))} as k from ${sql.table(entity)} where deleted_at is null order by 1`.execute(db());
  return rows.map((r) => Number(r.k));
}

function upstreamIds(entity: SandboxEntity): number[] {
  return env.sandbox.store
    .list(entity)
    .map((r) => Number(r[keyOf(entity)]))
    .sort((a, b) => a - b);
}

/** The mirror holds exactly what the sandbox holds, record for record (raw as sent). */
async function expectExactMirror(): Promise<void> {
  for (const entity of ENTITIES) {
    expect(await liveIds(entity), entity).toEqual(upstreamIds(entity));
    const { rows } = await sql<{ k: number; raw: unknown }>`
      select ${sql.ref(keyOf(entity))} as k, raw from ${sql.table(entity)} where deleted_at is null`.execute(db());
    const upstream = new Map(env.sandbox.store.list(entity).map((r) => [Number(r[keyOf(entity)]), r]));
    for (const row of rows) expect(row.raw, `${entity} ${row.k}`).toEqual(upstream.get(Number(row.k)));
  }
}

async function changeOps(runId: number): Promise<Record<string, number>> {
  const { rows } = await sql<{ op: string; n: number }>`
    select op, count(*)::int as n from changes where sync_run_id = ${runId} group by op`.execute(db());
  return Object.fromEntries(rows.map((r) => [r.op, Number(r.n)]));
}

async function rejected(): Promise<{ entity: string; entity_id: string; field: string; action: string }[]> {
  return db()
    .selectFrom('rejected_values')
    .select(['entity', 'entity_id', 'field', 'action'])
    .orderBy('entity')
    .orderBy('entity_id')
    .orderBy('field')
    .execute();
}

const statusOf = (outcome: SyncOutcome) => outcome.status;

type Keyed = { entity: string; entity_id: string; field: string };
/** The order `rejected()` reads them in (byte order, as the database's C collation sorts). */
function byEntityIdField(a: Keyed, b: Keyed): number {
  const ka = [a.entity, a.entity_id, a.field];
  const kb = [b.entity, b.entity_id, b.field];
  for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
  return 0;
}

beforeEach(async () => {
  await sql`truncate clients, products, quotations, saved_invoices, repeating_invoices, countries, document_lines,
    changes, rejected_values, held_deletes, list_caps, entity_pulls, sync_runs cascade`.execute(db());
  env.sandbox.knobs.maxPageSize = Number.POSITIVE_INFINITY;
  env.sandbox.knobs.ignorePaging = false;
  const first = await sync();
  expect(first.status).toBe('succeeded');
  env.sandbox.clearCalls();
});

describe('a service that caps count', () => {
  it('reads every record, learns the cap once, and later pulls ask for it with no extra requests', async () => {
    await sql`truncate clients, products, changes, entity_pulls, sync_runs cascade`.execute(db());
    env.sandbox.knobs.maxPageSize = 20;
    const first = await sync({}, ['clients', 'products']);
    expect(first.status).toBe('succeeded');
    expect(await liveIds('clients')).toEqual(upstreamIds('clients'));
    expect(await liveIds('products')).toEqual(upstreamIds('products'));
    const caps = await db().selectFrom('list_caps').select(['list', 'max_count']).orderBy('list').execute();
    expect(caps).toEqual([
      { list: 'clients', max_count: 20 },
      { list: 'products', max_count: 20 },
    ]);

    env.sandbox.clearCalls();
    const second = await sync({}, ['clients', 'products']);
    expect(second.status).toBe('succeeded');
    const lists = env.sandbox.calls.filter((c) => c.method === 'GET');
    // Pages of the cap, and the one empty page that ends each list: nothing more.
    expect(lists).toHaveLength(120 / 20 + 1 + 60 / 20 + 1);
    expect(lists.every((c) => c.query.startsWith('count=20&'))).toBe(true);
    expect(second.requestsMade).toBe(lists.length);
    expect(await changeOps(second.runId)).toEqual({});
  });

  it('on a mirror already filled, a cap never looks like deleted records', async () => {
    env.sandbox.knobs.maxPageSize = 7;
    const outcome = await sync();
    expect(statusOf(outcome)).toBe('succeeded');
    expect(await changeOps(outcome.runId)).toEqual({});
    await expectExactMirror();
  });
});

describe('the delete safeguard', () => {
  it('one empty answer for a full list deletes nothing: held, partial, and the next pull releases it', async () => {
    env.sandbox.failNext('empty', 1, { pathPrefix: '/clients' });
    const glitch = await sync();
    expect(glitch.status).toBe('partial');
    expect(glitch.entities.clients).toMatchObject({ deleted: 0, held: 120, complete: false });
    expect(glitch.entities.clients!.error).toMatch(/120 deletes held .*--allow-deletes clients/);
    expect(glitch.entities.products!.complete).toBe(true);
    expect(await liveIds('clients')).toEqual(upstreamIds('clients'));
    expect((await db().selectFrom('held_deletes').select('entity_id').execute()).length).toBe(120);

    const next = await sync();
    expect(next.status).toBe('succeeded');
    expect(await db().selectFrom('held_deletes').selectAll().execute()).toEqual([]);
    expect(await changeOps(glitch.runId)).toEqual({});
    expect(await changeOps(next.runId)).toEqual({});
    await expectExactMirror();
  });

  it('many real deletes wait for a person: later pulls keep holding them; HELD_DELETES_CONFIRM_HOURS lets pulls spanning that long confirm them', async () => {
    const gone = upstreamIds('products').slice(0, 20);
    for (const id of gone) env.sandbox.store.delete('products', id);
    const first = await sync();
    expect(first.status).toBe('partial');
    expect(first.entities.products).toMatchObject({ deleted: 0, held: 20 });
    expect((await liveIds('products')).length).toBe(60);
    const heldAt = async () =>
      (await db().selectFrom('held_deletes').select('held_at').where('entity', '=', 'products').execute()).map((r) =>
        new Date(r.held_at).getTime(),
      );
    const firstHeldAt = await heldAt();

    // Once self-released by the next pull; now held by default (HELD_DELETES_CONFIRM_HOURS 0), keeping its start.
    const second = await sync();
    expect(second.status).toBe('partial');
    expect(second.entities.products).toMatchObject({ deleted: 0, held: 20 });
    expect(await heldAt()).toEqual(firstHeldAt);

    // With the setting, a pull still finding them missing that many hours after they were first held applies them.
    const confirming = { deletes: { ...DEFAULT_DELETE_POLICY, confirmHours: 2 } };
    expect((await sync(confirming)).entities.products).toMatchObject({ deleted: 0, held: 20 });
    await sql`update held_deletes set held_at = held_at - interval '3 hours'`.execute(db());
    const confirmed = await sync(confirming);
    expect(confirmed.status).toBe('succeeded');
    expect(confirmed.entities.products).toMatchObject({ deleted: 20, held: 0 });
    expect(await db().selectFrom('held_deletes').selectAll().execute()).toEqual([]);
    await expectExactMirror();
  });

  it('are applied at once when the entity is allowed (sync --allow-deletes)', async () => {
    for (const id of upstreamIds('quotations').slice(0, 30)) env.sandbox.store.delete('quotations', id);
    const outcome = await sync({ deletes: { ...DEFAULT_DELETE_POLICY, allow: ['quotations'] } });
    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.quotations).toMatchObject({ deleted: 30, held: 0 });
    await expectExactMirror();
  });

  it('a few deletes under the threshold are applied by the first pull', async () => {
    for (const id of upstreamIds('clients').slice(0, 5)) env.sandbox.store.delete('clients', id);
    const outcome = await sync();
    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.clients).toMatchObject({ deleted: 5, held: 0 });
    await expectExactMirror();
  });
});

describe('values Postgres cannot store', () => {
  it('keep no other record out: stored as far as possible, reported with entity, id and field', async () => {
    await sql`truncate clients, products, quotations, changes, entity_pulls, sync_runs cascade`.execute(db());
    const [c1, c2, c3] = upstreamIds('clients');
    const [p1, p2] = upstreamIds('products');
    const [q1] = upstreamIds('quotations');
    const store = env.sandbox.store;
    const nul = 'Bakkerij\u0000Jansen';
    store.setWire('clients', c1!, { company: nul });
    store.setWire('clients', c2!, { lastinvoice: '2027-02-30' });
    store.setWire('clients', c3!, { top: '99999999999' });
    store.setWire('products', p1!, { price: '1e400' });
    store.setWire('products', p2!, { priceintax: 'twelve' });
    const quotation = store.get('quotations', q1!)!;
    const lines = quotation.lines as Record<string, Record<string, unknown>>;
    const firstLine = Object.keys(lines)[0]!;
    store.setWire('quotations', q1!, { lines: { ...lines, [firstLine]: { ...lines[firstLine], price: 'n/a' } } });
    const bigId = store.insert('clients', { clientnr: 3_000_000_000 });

    const outcome = await sync({}, ['clients', 'products', 'quotations']);
    expect(outcome.status).toBe('partial');
    const storable = (entity: SandboxEntity) => upstreamIds(entity).filter((id) => id !== bigId).length;
    expect(outcome.entities.clients).toMatchObject({ inserted: storable('clients'), rejected: 4, complete: false });
    expect(outcome.entities.products).toMatchObject({ inserted: storable('products'), rejected: 2, complete: false });
    expect(outcome.entities.quotations).toMatchObject({
      inserted: storable('quotations'),
      rejected: 1,
      complete: false,
    });
    expect(await rejected()).toEqual(
      [
        { entity: 'clients', entity_id: String(bigId), field: 'clientnr', action: 'skipped' },
        { entity: 'clients', entity_id: String(c1), field: 'company', action: 'repaired' },
        { entity: 'clients', entity_id: String(c2), field: 'lastinvoice', action: 'rejected' },
        { entity: 'clients', entity_id: String(c3), field: 'top', action: 'rejected' },
        { entity: 'products', entity_id: String(p1), field: 'price', action: 'rejected' },
        { entity: 'products', entity_id: String(p2), field: 'priceintax', action: 'rejected' },
        { entity: 'quotations', entity_id: String(q1), field: `lines.${firstLine}.price`, action: 'rejected' },
      ].sort(byEntityIdField),
    );

    const row = async (entity: string, id: number) =>
      (
        await sql<
          Record<string, unknown>
        >`select * from ${sql.table(entity)} where ${sql.ref(keyOf(entity))} = ${id}`.execute(db())
      ).rows[0]!;
    expect((await row('clients', c1!)).company).toBe(`Bakkerij${JSON.parse(`"${NUL_REPLACEMENT}"`)}Jansen`);
    expect((await row('clients', c2!)).lastinvoice).toBeNull();
    expect(((await row('clients', c2!)).raw as Record<string, unknown>).lastinvoice).toBe('2027-02-30');
    expect((await row('clients', c3!)).top).toBeNull();
    expect((await row('products', p1!)).price).toBeNull();
    expect(((await row('products', p1!)).raw as Record<string, unknown>).price).toBe('1e400');
    const line = await sql<{ price: string | null; description: string | null }>`
      select price, description from document_lines where document_type = 'quotation' and document_id = ${q1!} and position = 1`.execute(
      db(),
    );
    expect(line.rows[0]!.price).toBeNull();
    expect(line.rows[0]!.description).toBe(lines[firstLine]!.description ?? null);
    // The record whose id no integer column can hold is the only one missing.
    expect(await liveIds('clients')).toEqual(upstreamIds('clients').filter((id) => id !== bigId));

    // Fixed upstream: the next pull stores them whole and the reports are cleared.
    store.setWire('clients', c1!, { company: 'Bakkerij Jansen' });
    store.setWire('clients', c2!, { lastinvoice: '2027-02-28' });
    store.setWire('clients', c3!, { top: '30' });
    store.setWire('products', p1!, { price: '59.90' });
    store.setWire('products', p2!, { priceintax: '0.00' });
    store.setWire('quotations', q1!, { lines });
    store.delete('clients', bigId);
    const fixed = await sync({}, ['clients', 'products', 'quotations']);
    expect(fixed.status).toBe('succeeded');
    expect(await rejected()).toEqual([]);
    expect((await row('products', p1!)).price).toBe('59.90');
    expect((await row('products', p2!)).priceintax).toBe('0.00');
    expect((await row('clients', c2!)).lastinvoice).toBe('2027-02-28');
    await expectExactMirror();
  });

  it('a record Postgres itself refuses is isolated: the rest of its page is stored, it is reported and never swept', async () => {
    const [victim] = upstreamIds('clients');
    await sql`alter table clients add constraint test_no_nowhere check (city is distinct from 'Nowhere')`.execute(db());
    try {
      env.sandbox.store.setWire('clients', victim!, { city: 'Nowhere' });
      const updated = upstreamIds('clients').slice(1, 11);
      for (const id of updated) env.sandbox.store.setWire('clients', id, { notes: 'changed upstream' });
      const outcome = await sync({}, ['clients']);
      expect(outcome.status).toBe('partial');
      expect(outcome.entities.clients).toMatchObject({ updated: 10, deleted: 0, rejected: 1 });
      expect(await rejected()).toEqual([
        { entity: 'clients', entity_id: String(victim), field: '(record)', action: 'skipped' },
      ]);
      expect(await liveIds('clients')).toEqual(upstreamIds('clients'));
    } finally {
      await sql`alter table clients drop constraint test_no_nowhere`.execute(db());
    }
    const next = await sync({}, ['clients']);
    expect(next.status).toBe('succeeded');
    expect(await rejected()).toEqual([]);
    await expectExactMirror();
  });

  it('money keeps its decimals as sent', async () => {
    const [p] = upstreamIds('products');
    env.sandbox.store.setWire('products', p!, { price: '59.90', priceintax: '72.479' });
    const [s] = upstreamIds('saved_invoices');
    const invoice = env.sandbox.store.get('saved_invoices', s!)!;
    const lines = invoice.lines as Record<string, Record<string, unknown>>;
    const key = Object.keys(lines)[0]!;
    // A JSON number with a trailing zero: the wire's text is what is stored.
    env.sandbox.store.setWire('saved_invoices', s!, {
      lines: { ...lines, [key]: { ...lines[key], price: 13.5, amount: '2.50' } },
    });
    const outcome = await sync({}, ['products', 'saved_invoices']);
    expect(outcome.status).toBe('succeeded');
    const product = await sql<{
      price: string;
      priceintax: string;
    }>`select price, priceintax from products where id = ${p!}`.execute(db());
    expect(product.rows[0]).toEqual({ price: '59.90', priceintax: '72.479' });
    const line = await sql<{ price: string; amount: string }>`
      select price, amount from document_lines where document_type = 'saved_invoice' and document_id = ${s!} and position = 1`.execute(
      db(),
    );
    expect(line.rows[0]).toEqual({ price: '13.5', amount: '2.50' });
  });
});

describe('a list that fails or pages oddly', () => {
  it('a list that keeps timing out fails that entity only; the others are pulled, nothing is deleted', async () => {
    const client = clientFor(env.sandbox, { pageSize: 50, timeoutMs: 150, maxRetries: 1 });
    try {
      // The first attempt and its one retry both time out.
      env.sandbox.failNext('hang', 2, { pathPrefix: '/clients' });
      for (const id of upstreamIds('products').slice(0, 2)) env.sandbox.store.setWire('products', id, { notes: 'new' });
      const outcome = await runSync(session(client), settings(), { kind: 'sync' });
      expect(outcome.status).toBe('partial');
      expect(outcome.entities.clients!.complete).toBe(false);
      expect(outcome.entities.clients!.error).toMatch(/clients: .*no complete answer within 150 ms/);
      for (const entity of ['products', 'quotations', 'saved_invoices', 'repeating_invoices'] as const)
        expect(outcome.entities[entity]!.complete, entity).toBe(true);
      expect(outcome.entities.products!.updated).toBe(2);
      expect(await liveIds('clients')).toEqual(upstreamIds('clients'));
    } finally {
      await client.close();
    }
  });

  it('a list that ignores count and start is complete, and its deletes are swept', async () => {
    env.sandbox.knobs.ignorePaging = ['clients'];
    const [gone] = upstreamIds('clients');
    env.sandbox.store.delete('clients', gone!);
    const outcome = await sync({}, ['clients']);
    expect(outcome.status).toBe('succeeded');
    expect(outcome.entities.clients).toMatchObject({
      fetched: upstreamIds('clients').length,
      deleted: 1,
      complete: true,
    });
    await expectExactMirror();
  });

  it('a record listed twice with different content is stored once and reported', async () => {
    env.sandbox.failNext('duplicate', 1, { pathPrefix: '/products' });
    const outcome = await sync({}, ['products']);
    expect(outcome.status).toBe('partial');
    const [first] = upstreamIds('products');
    expect(await rejected()).toEqual([
      { entity: 'products', entity_id: String(first), field: '(duplicate)', action: 'skipped' },
    ]);
    const next = await sync({}, ['products']);
    expect(next.status).toBe('succeeded');
    expect(await rejected()).toEqual([]);
    await expectExactMirror();
  });

  it('HTML instead of JSON, a body cut short: the entity fails with a readable message, the mirror is intact', async () => {
    const client = clientFor(env.sandbox, { pageSize: 50, maxRetries: 0 });
    try {
      env.sandbox.failNext('html200', 1, { pathPrefix: '/clients' });
      env.sandbox.failNext('truncated', 1, { pathPrefix: '/products' });
      env.sandbox.failNext('html500', 1, { pathPrefix: '/quotations' });
      const outcome = await runSync(session(client), settings(), { kind: 'sync' });
      expect(outcome.status).toBe('partial');
      expect(outcome.entities.clients!.error).toMatch(
        /^clients: GET \/clients\?count=50&start=0: 200 answer was an HTML page, not JSON \(text\/html\) "Onderhoud"$/,
      );
      expect(outcome.entities.products!.error).toMatch(/cut short: \d+ of \d+ bytes arrived/);
      expect(outcome.entities.quotations!.error).toMatch(/502 .*an HTML page \(text\/html\) "502 Bad Gateway"/);
      for (const e of ['clients', 'products', 'quotations'] as const)
        expect(outcome.entities[e]!.error!.length).toBeLessThan(260);
      await expectExactMirror();
    } finally {
      await client.close();
    }
  });
});

describe('answers with status 200 that are not the data asked for', () => {
  it('an error object instead of a list fails that list with the service message: nothing stored of it, nothing swept', async () => {
    env.sandbox.failNext('error200', 1, { pathPrefix: '/clients' });
    const outcome = await sync();
    expect(outcome.status).toBe('partial');
    expect(outcome.entities.clients).toMatchObject({ complete: false, deleted: 0, held: 0, rejected: 0 });
    expect(outcome.entities.clients!.error).toBe(
      'clients: GET /clients?count=50&start=0: 200 answer was an error, not a list: Er is een fout opgetreden bij het ophalen van de gegevens (code 500)',
    );
    expect(outcome.entities.products!.complete).toBe(true);
    expect(await rejected()).toEqual([]);
    expect(await changeOps(outcome.runId)).toEqual({});
    await expectExactMirror();

    const next = await sync();
    expect(next.status).toBe('succeeded');
  });

  it('JSON after a byte order mark on every answer: a backfill succeeds and the mirror is exact', async () => {
    await sql`truncate clients, products, quotations, saved_invoices, repeating_invoices, countries, document_lines,
      changes, entity_pulls, sync_runs cascade`.execute(db());
    const { failureRate, failureKinds } = env.sandbox.knobs;
    env.sandbox.knobs.failureRate = 1;
    env.sandbox.knobs.failureKinds = ['bom'];
    try {
      const outcome = await runSync(session(), settings(), { kind: 'backfill' });
      expect(outcome.status).toBe('succeeded');
      expect(env.sandbox.calls.length).toBeGreaterThan(0);
      expect(env.sandbox.calls.every((c) => c.fault === 'bom')).toBe(true);
    } finally {
      Object.assign(env.sandbox.knobs, { failureRate, failureKinds });
    }
    await expectExactMirror();
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from countries`.execute(db());
    expect(rows[0]!.n).toBeGreaterThan(200);
  });
});
