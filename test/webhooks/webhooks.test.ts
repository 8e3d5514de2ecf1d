/**
 * Webhooks end to end on real Postgres, the sandbox and a receiver in the test: a payment pulled by
 * a sync reaches the receiver once as invoice.paid, signed so that the `standardwebhooks` package
 * verifies it; a receiver that fails for a while gets every event afterwards, in order per record,
 * its retries with the same webhook-id; one that never answers pauses its subscription; private
 * addresses are refused unless allowed.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSync } from '../../src/sync/index.js';
import { checkTarget, isPrivateAddress } from '../../src/webhooks/address.js';
import { Deliverer, retryDelaysOf, type DeliveryOptions } from '../../src/webhooks/deliver.js';
import { signedHeaders } from '../../src/webhooks/sign.js';
import {
  addSubscription,
  listDeliveries,
  listSubscriptions,
  pauseSubscription,
  replayEvents,
  resumeSubscription,
} from '../../src/webhooks/subscriptions.js';
import { useSandbox } from '../support/sandbox.js';
import { testSession, useTestDatabase } from '../support/test-database.js';
import { startReceiver, type Receiver } from './receiver.js';

const MASTER = 'a test master secret of more than 32 characters';
const database = useTestDatabase();
const env = useSandbox({ records: 30, sentInvoices: 40, now: '2026-11-01' }, { pageSize: 50 });
const db = () => database.current.handle.db;
const quiet = pino({ level: 'silent' });
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

function deliverer(options: Partial<DeliveryOptions> = {}): Deliverer {
  return new Deliverer(
    db(),
    {
      allowPrivate: true,
      timeoutMs: 2000,
      retryDelaysMs: [20, 20, 50],
      concurrency: 8,
      masterSecret: MASTER,
      ...options,
    },
    quiet,
  );
}

const pull = (kind: 'backfill' | 'sync') =>
  runSync(
    testSession({
      db: db(),
      client: env.client,
      accountId: database.current.accountId,
      schema: database.current.schema,
    }),
    {},
    { kind },
  );

/** Writes `changes` rows as a pull would: one client.changed event each. */
async function changeClients(records: readonly number[]): Promise<void> {
  await sql`
    insert into changes (account_id, entity, entity_id, op, changed_fields, before, after)
    select ${database.current.accountId}, 'clients', r::text, 'update', '{city}',
           jsonb_build_object('clientnr', r, 'city', 'Old'), jsonb_build_object('clientnr', r, 'city', 'New')
      from unnest(${[...records]}::int[]) r`.execute(db());
}

const eventIdOf = (body: string) => (JSON.parse(body) as { id: string }).id;

describe('webhooks', () => {
  it('signs by the Standard Webhooks convention, as the reference package verifies', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const body = '{"type":"invoice.paid"}';
    const headers = signedHeaders(secret, 'evt_1', body);
    expect(new Webhook(secret).verify(body, headers)).toEqual({ type: 'invoice.paid' });
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    // The reference's own signature is ours.
    const at = new Date(Number(headers['webhook-timestamp']) * 1000);
    expect(new Webhook(secret).sign('evt_1', at, body)).toBe(headers['webhook-signature']);
  });

  it('refuses private, loopback and link-local targets unless allowed', async () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '192.168.1.1',
      '172.16.0.5',
      '169.254.169.254',
      '::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    expect(isPrivateAddress('93.184.216.34')).toBe(false);
    await expect(checkTarget('http://127.0.0.1:8080/hooks', false)).rejects.toThrow(/WEBHOOKS_ALLOW_PRIVATE/);
    await expect(checkTarget('http://localhost/hooks', false)).rejects.toThrow(/private, loopback/);
    await expect(checkTarget('ftp://example.com/', false)).rejects.toThrow(/http or https/);
    expect((await checkTarget(receiver.url, true)).href).toBe(receiver.url);
    expect(retryDelaysOf('5s,30s,2m')).toEqual([5000, 30_000, 120_000]);
  });

  it('a payment pulled by a sync is delivered once as invoice.paid, with a signature standardwebhooks verifies', async () => {
    expect((await pull('backfill')).status).toBe('succeeded');
    const { id, secret } = await addSubscription(
      db(),
      { url: receiver.url, eventTypes: ['invoice.paid'], accountId: database.current.accountId },
      MASTER,
    );
    expect(secret).toMatch(/^whsec_/);
    const { rows } = await sql<{ secret: string }>`select secret from webhook_subscriptions where id = ${id}`.execute(
      db(),
    );
    expect(rows[0]!.secret).not.toContain(secret.slice(6));
    const invoice = env.sandbox.store.sentInvoices().find((i) => Number(i.open) > 0 && i.uncollectible === '')!;
    await env.client.registerPayment(Number(invoice.id), { amount: 'full', date: '2026-11-01', method: 'bank' });
    expect((await pull('sync')).status).toBe('succeeded');

    const sender = deliverer();
    expect(await sender.deliverAllDue()).toEqual({ sent: 1, failed: 0 });
    await sender.close();
    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    const payload = new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>) as Record<
      string,
      any
    >;
    expect(payload).toMatchObject({
      type: 'invoice.paid',
      account: 'default',
      data: { entity: 'invoices', record_id: String(invoice.id) },
    });
    expect(got!.headers['webhook-id']).toBe(payload.id);
    const [delivery] = await listDeliveries(db(), id);
    expect(delivery).toMatchObject({ state: 'delivered', attempts: 1, last_status: 200, last_response: 'ok' });
    await pauseSubscription(db(), id, 'done with it');
  });

  it('a receiver failing for a while gets every event afterwards, in order per record, retries with the same webhook-id', async () => {
    receiver.received.length = 0;
    const { id } = await addSubscription(
      db(),
      { url: receiver.url, eventTypes: ['client.changed'], accountId: null },
      MASTER,
    );
    // Four events for each of five records, written in four statements.
    const records = [101, 102, 103, 104, 105];
    for (let round = 0; round < 4; round++) await changeClients(records);
    const { rows: events } = await sql<{ id: string; record_id: string }>`
      select id::text as id, record_id from events where type = 'client.changed' order by id`.execute(db());
    expect(events).toHaveLength(20);
    let failing = 12;
    receiver.answer = () => (failing-- > 0 ? 500 : 200);

    const sender = deliverer({ retryDelaysMs: [20, 20, 20, 20, 20, 20, 20, 20] });
    for (let i = 0; i < 200; i++) {
      await sender.deliverAllDue();
      const [sub] = await listSubscriptions(db(), id);
      if (sub!.pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await sender.close();
    const [sub] = await listSubscriptions(db(), id);
    expect(sub).toMatchObject({ state: 'active', pending: 0, delivered: 20 });

    const accepted = receiver.received.filter((r) => r.status === 200).map((r) => eventIdOf(r.body));
    expect(new Set(accepted).size).toBe(20);
    expect(accepted.sort()).toEqual(events.map((e) => `evt_${e.id}`).sort());
    // Per record: no event was sent before the one before it was accepted.
    for (const record of records) {
      const mine = new Set(events.filter((e) => e.record_id === String(record)).map((e) => `evt_${e.id}`));
      const sent = receiver.received.filter((r) => mine.has(eventIdOf(r.body)));
      const order = events.filter((e) => e.record_id === String(record)).map((e) => `evt_${e.id}`);
      let next = 0;
      for (const request of sent) {
        expect(eventIdOf(request.body)).toBe(order[next]);
        if (request.status === 200) next++;
      }
      expect(next).toBe(4);
    }
    // Every request's webhook-id is the event's id: a retry carries the same one.
    for (const request of receiver.received) expect(request.headers['webhook-id']).toBe(eventIdOf(request.body));
    expect(receiver.received.length).toBe(32);
    await pauseSubscription(db(), id, 'done with it');
  });

  it('a receiver that keeps failing pauses its subscription; resume sends what waited', async () => {
    receiver.received.length = 0;
    receiver.answer = () => 503;
    const { id } = await addSubscription(
      db(),
      { url: receiver.url, eventTypes: ['client.changed'], accountId: null },
      MASTER,
    );
    await changeClients([201]);
    const sender = deliverer({ retryDelaysMs: [10, 10] });
    for (let i = 0; i < 50 && (await listSubscriptions(db(), id))[0]!.state === 'active'; i++) {
      await sender.deliverAllDue();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [paused] = await listSubscriptions(db(), id);
    expect(paused).toMatchObject({ state: 'paused', pending: 1 });
    expect(paused!.state_reason).toMatch(/paused after 3 failed attempts/);
    expect(receiver.received).toHaveLength(3);
    const [delivery] = await listDeliveries(db(), id);
    expect(delivery).toMatchObject({
      state: 'pending',
      attempts: 3,
      last_status: 503,
      last_response: 'try again later',
    });

    receiver.answer = () => 200;
    expect(await resumeSubscription(db(), id)).toBe(1);
    expect(await sender.deliverAllDue()).toEqual({ sent: 1, failed: 0 });
    // Replaying sends it again, with the same id.
    expect(await replayEvents(db(), id, String(BigInt(delivery!.event_id) - 1n))).toBe(1);
    expect(await sender.deliverAllDue()).toEqual({ sent: 1, failed: 0 });
    await sender.close();
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(receiver.received.at(-2)!.headers['webhook-id']);
    await pauseSubscription(db(), id, 'done with it');
  });

  it('refuses to deliver to a private address unless WEBHOOKS_ALLOW_PRIVATE', async () => {
    receiver.received.length = 0;
    receiver.answer = () => 200;
    const { id } = await addSubscription(
      db(),
      { url: receiver.url, eventTypes: ['client.changed'], accountId: null },
      MASTER,
    );
    const named = await addSubscription(
      db(),
      { url: receiver.url.replace('127.0.0.1', 'localhost'), eventTypes: ['client.changed'], accountId: null },
      MASTER,
    );
    await changeClients([301]);
    const sender = deliverer({ allowPrivate: false });
    expect(await sender.deliverDue()).toEqual({ sent: 2, failed: 2 });
    await sender.close();
    expect(receiver.received).toHaveLength(0);
    for (const subscription of [id, named.id]) {
      const [delivery] = await listDeliveries(db(), subscription);
      expect(delivery!.last_error).toMatch(/private, loopback or link-local/);
    }
  });
});
