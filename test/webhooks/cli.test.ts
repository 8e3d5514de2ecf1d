/**
 * The `events` and `webhooks` commands as a user runs them (dist/), and the daemon's deliveries:
 * a daemon killed (SIGKILL) while a receiver holds its request loses nothing; another daemon sends
 * the event again once the lease runs out, with the same webhook-id.
 */
import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../support/cli.js';
import { useDaemons, waitFor } from '../support/daemon.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';
import { startReceiver, type Receiver } from './receiver.js';
import { eventsSettled } from '../support/events.js';

const MASTER = 'a test master secret of more than 32 characters';
const database = useTestDatabase();
const env = useSandbox({ records: 20, sentInvoices: 20 });
const cliEnv = () => ({
  ...database.current.env,
  INVOICING_API_URL: env.sandbox.url,
  ACCOUNTS_SECRET: MASTER,
  WEBHOOKS_ALLOW_PRIVATE: 'true',
  WEBHOOK_TIMEOUT: '1s',
  WEBHOOK_RETRY_DELAYS: '1s',
});
const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
  runCli(args, { env: { ...cliEnv(), ...extra } });
const startDaemon = useDaemons(cliEnv);
const db = () => database.current.handle.db;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

async function changeClient(record: number): Promise<void> {
  await sql`
    insert into changes (account_id, entity, entity_id, op, changed_fields, before, after)
    values (${database.current.accountId}, 'clients', ${String(record)}, 'update', '{city}',
            jsonb_build_object('clientnr', ${record}::int, 'city', 'Old'), jsonb_build_object('clientnr', ${record}::int, 'city', 'New'))`.execute(
    db(),
  );
}

describe('events and webhooks commands', () => {
  it('webhooks add refuses a private address by default, and prints the secret once when allowed', async () => {
    const refused = await cli(['webhooks', 'add', receiver.url], { WEBHOOKS_ALLOW_PRIVATE: undefined });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/private, loopback or link-local.*WEBHOOKS_ALLOW_PRIVATE=true/);
    const unknown = await cli(['webhooks', 'add', receiver.url, '--events', 'invoice.payed']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown event type invoice.payed');

    const added = await cli(['webhooks', 'add', receiver.url, '--events', 'client.changed', '--account', 'default']);
    expect(added.code, added.stderr).toBe(0);
    const secret = /whsec_\S+/.exec(added.stdout)![0];
    const listed = await cli(['webhooks', 'list', '--format', 'json']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(secret.slice(6));
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { id: 1, url: receiver.url, account: 'default', event_types: 'client.changed', state: 'active' },
    ]);
  });

  it('events prints JSON lines after an id; webhooks run delivers what is due and exits', async () => {
    await changeClient(7);
    await eventsSettled(db());
    const printed = await cli(['events', '--type', 'client.changed']);
    expect(printed.code, printed.stderr).toBe(0);
    const lines = printed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toMatchObject([{ type: 'client.changed', account: 'default', entity: 'clients', record_id: '7' }]);
    expect((await cli(['events', '--after', lines[0].id])).stdout).toBe('');

    const run = await cli(['webhooks', 'run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('1 deliveries sent, 1 accepted');
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([`evt_${lines[0].id}`]);
    const deliveries = await cli(['webhooks', 'deliveries', '1', '--format', 'json']);
    expect(JSON.parse(deliveries.stdout)).toMatchObject([{ state: 'delivered', last_status: 200 }]);
  });

  it('events --follow prints an event as it is written', async () => {
    const child = spawn(
      process.execPath,
      [CLI_PATH, 'events', '--follow', '--after', '0', '--type', 'client.changed'],
      {
        env: { ...process.env, ...cliEnv(), LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitFor('the first event', async () => out.includes('"record_id":"7"'));
      await changeClient(8);
      await waitFor('the new event', async () => out.includes('"record_id":"8"'), 10_000);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
  });

  it('a daemon killed while sending loses nothing: another sends the event again, with the same webhook-id', async () => {
    expect((await cli(['webhooks', 'run'])).code).toBe(0); // what the earlier tests left
    receiver.received.length = 0;
    receiver.answer = (_request, index) => (index === 0 ? null : 200);
    const first = await startDaemon();
    await changeClient(9);
    await waitFor('the first daemon to send', async () => receiver.received.length > 0);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startDaemon();
    await waitFor(
      'the second daemon to send again',
      async () => receiver.received.some((r) => r.status === 200),
      20_000,
    );
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    const { rows } = await sql<{ state: string }>`
      select d.state from webhook_deliveries d join events e on e.account_id = d.account_id and e.id = d.event_id
       where e.record_id = '9'`.execute(db());
    expect(rows).toEqual([{ state: 'delivered' }]);
  });
});
