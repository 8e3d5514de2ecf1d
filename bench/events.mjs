// Events benchmark: what events add to a sync with 10,000 changed records, and how fast the
// deliverer pushes them to a local receiver.
//
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/events.mjs
//   options (environment): BENCH_RECORDS=25000 (upstream records, all entities) BENCH_CHANGES=10000
//   (churn per round: updates, inserts, deletes, restores) BENCH_ROUNDS=5 BENCH_PAGE_SIZE=500
//   BENCH_CONCURRENCY=16 (deliveries sent at once)
//
// Three schemas are filled from the same sandbox (in a child process): `bench_events_off` without
// the events trigger on `changes` (the mirror before events), `bench_events_on` with it, and
// `bench_events_hook` with it and one webhook subscription to every type (so each event also
// makes a delivery). Each round churns the sandbox, then syncs the three, in a rotating order; the
// medians are compared. Then the deliveries the last schema collected are sent to a receiver in
// this process that answers 200 at once.
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pino from 'pino';
import { sealKey } from '../dist/src/accounts/secret.js';
import { DEFAULT_ACCOUNT, ensureDefaultAccount, accountNamed } from '../dist/src/accounts/store.js';
import { InvoicingClient } from '../dist/src/api/index.js';
import { migrate, openDatabase } from '../dist/src/db/index.js';
import { setLogLevel } from '../dist/src/log.js';
import { runSync } from '../dist/src/sync/index.js';
import { logger } from '../dist/src/log.js';
import { Deliverer } from '../dist/src/webhooks/deliver.js';
import { startSandboxChild } from './sandbox-child.mjs';
import { benchDatabaseUrl } from './database-url.mjs';

setLogLevel(process.env.LOG_LEVEL ?? 'warn');
const databaseUrl = benchDatabaseUrl(import.meta.url);
const records = Number(process.env.BENCH_RECORDS ?? 25000);
const changes = Number(process.env.BENCH_CHANGES ?? 10000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const pageSize = Number(process.env.BENCH_PAGE_SIZE ?? 500);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const MASTER = 'a bench master secret of more than 32 characters';
const cli = fileURLToPath(new URL('../dist/cli/cli.js', import.meta.url));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const seconds = (ms) => (ms / 1000).toFixed(2);

const sandbox = await startSandboxChild(cli, ['--records', String(records), '--seed', '42']);
const client = () =>
  new InvoicingClient({ baseUrl: sandbox.api, user: 'sandbox', apiKey: 'sandbox', pageSize, requestsPerHour: 0 });

async function mirror(schema, variant) {
  const admin = await openDatabase({ databaseUrl, embeddedDbDir: '', schema, poolSize: 1 });
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
  await admin.close();
  const database = await openDatabase({ databaseUrl, embeddedDbDir: '', schema, poolSize: 4 });
  await migrate(database.db, schema);
  await ensureDefaultAccount(database.db);
  const account = await accountNamed(database.db, DEFAULT_ACCOUNT);
  if (variant === 'off') await sql`drop trigger events_from_changes on changes`.execute(database.db);
  if (variant === 'hook')
    await database.db
      .insertInto('webhook_subscriptions')
      .values({
        url: 'http://127.0.0.1:1/',
        secret: sealKey(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, MASTER),
      })
      .execute();
  const api = client();
  const sync = async (kind) => {
    const started = performance.now();
    const outcome = await runSync(
      { account: { id: account.id, name: account.name }, db: database.db, client: api, schema, log: logger },
      { writeConcurrency: 2 },
      { kind, allowDeletes: 'all' },
    );
    if (outcome.status !== 'succeeded') throw new Error(`${schema}: the ${kind} ended ${outcome.status}`);
    return performance.now() - started;
  };
  const close = async () => {
    await api.close();
    await database.close();
  };
  return { schema, variant, database, sync, times: [], close };
}

const mirrors = [
  await mirror('bench_events_off', 'off'),
  await mirror('bench_events_on', 'on'),
  await mirror('bench_events_hook', 'hook'),
];
for (const m of mirrors) await m.sync('backfill');
console.log(
  `${records} records upstream; ${rounds} rounds of ${changes} changes (churn), each synced into three schemas`,
);
for (let round = 0; round < rounds; round++) {
  await fetch(`${sandbox.api.replace('/api/v1', '')}/_admin/churn`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ count: changes }),
  });
  const order = [...mirrors.slice(round % 3), ...mirrors.slice(0, round % 3)];
  for (const m of order) m.times.push(await m.sync('sync'));
}
const counts = async (m) => {
  const { rows } = await sql`
    select (select count(*) from events)::int as events, (select count(*) from webhook_deliveries)::int as deliveries`.execute(
    m.database.db,
  );
  return rows[0];
};
const base = median(mirrors[0].times);
console.log('\nsync after each churn (median of the rounds):');
for (const m of mirrors) {
  const { events, deliveries } = await counts(m);
  const extra =
    m.variant === 'off' ? '' : ` (${(((median(m.times) - base) / base) * 100).toFixed(1)} % more than without events)`;
  console.log(
    `  ${m.variant.padEnd(5)} ${seconds(median(m.times))} s [${m.times.map(seconds).join(', ')}]${extra}; ${events} events, ${deliveries} deliveries`,
  );
}

// The triggers alone: 10,000 `changes` rows (client updates, as a sync writes them) in statements of
// 500 into each schema, in a rotating order: what the database spends on events (and deliveries).
const writeChanges = async (m, round) => {
  const started = performance.now();
  for (let page = 0; page < changes / 500; page++)
    await sql`
      insert into changes (account_id, entity, entity_id, op, changed_fields, before, after)
      select account_id, 'clients', clientnr::text, 'update', '{city}', raw, raw || jsonb_build_object('city', ${`Bench ${round}`}::text)
        from clients order by clientnr offset ${(page * 500) % Math.max(1, Math.floor(records / 5) - 500)} limit 500`.execute(
      m.database.db,
    );
  return performance.now() - started;
};
const written = { off: [], on: [], hook: [] };
for (let round = 0; round < rounds; round++)
  for (const m of [...mirrors.slice(round % 3), ...mirrors.slice(0, round % 3)])
    written[m.variant].push(await writeChanges(m, round));
const alone = median(written.off);
console.log(
  `\nthe triggers alone: ${changes} changes rows (client updates) in statements of 500, median of the rounds:`,
);
for (const m of mirrors) {
  const t = median(written[m.variant]);
  const extra =
    m.variant === 'off'
      ? ''
      : ` (+${seconds(t - alone)} s: ${(((t - alone) / base) * 100).toFixed(1)} % of the sync without events)`;
  console.log(`  ${m.variant.padEnd(5)} ${seconds(t)} s${extra}`);
}

// Delivery throughput: the hook schema's deliveries, to a receiver that answers 200 at once.
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end('ok'));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const hook = mirrors[2];
await sql`update webhook_subscriptions set url = ${`http://127.0.0.1:${server.address().port}/hooks`}`.execute(
  hook.database.db,
);
const deliverer = new Deliverer(
  hook.database.db,
  { allowPrivate: true, timeoutMs: 10_000, retryDelaysMs: [1000], concurrency, masterSecret: MASTER },
  pino({ level: 'silent' }),
);
const started = performance.now();
const { sent, failed } = await deliverer.deliverAllDue();
const elapsed = performance.now() - started;
console.log(
  `\ndelivery: ${sent} events to a local receiver in ${seconds(elapsed)} s: ${Math.round((sent * 1000) / elapsed)} events/s (${failed} failed; ${concurrency} at once)`,
);
await deliverer.close();
server.close();
for (const m of mirrors) await m.close();
sandbox.child.kill();
