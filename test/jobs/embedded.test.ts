/**
 * The runner on the embedded database (the embedded PostgreSQL server): jobs run and refresh the
 * mirror, and NOTIFY wakes a started runner there too.
 */
import { resolveAccounts } from '../../src/accounts/resolve.js';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNT, ensureDefaultAccount, type Account } from '../../src/accounts/store.js';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase, type DatabaseHandle } from '../../src/db/index.js';
import { JobRunner, type JobFinished } from '../../src/jobs/index.js';
import { useSandbox } from '../support/sandbox.js';
import { embeddedDbParent } from '../support/test-database.js';
import { insertJob, jobRow, mirrorRow, PER_ENTITY, TEST_BACKOFF } from './helpers.js';

const box = useSandbox({ perEntity: PER_ENTITY, sendMsPerInvoice: 20 });
const dir = embeddedDbParent('im-embedded-jobs-');
let handle: DatabaseHandle;
let account: Account;

beforeAll(async () => {
  handle = await openDatabase({ databaseUrl: undefined, embeddedDbDir: join(dir, 'db'), schema: 'invoicing' });
  await migrate(handle.db, 'invoicing');
  await ensureDefaultAccount(handle.db);
  account = await resolveAccounts(handle.db, DEFAULT_ACCOUNT, { one: true });
}, 120_000);
afterAll(async () => {
  await handle?.close();
  rmSync(dir, { recursive: true, force: true });
});

function runner(): JobRunner {
  const config = loadConfig({
    EMBEDDED_DB_DIR: join(dir, 'db'),
    INVOICING_API_URL: box.sandbox.url,
    JOB_POLL_INTERVAL_MS: '60000',
  });
  return new JobRunner({ database: handle, account, client: box.client, config, backoff: TEST_BACKOFF });
}

describe('the runner on the embedded database', () => {
  it('drains the queue and refreshes the mirror', async () => {
    expect(handle.kind).toBe('embedded');
    const send = await insertJob(handle, 'send_saved_invoices', { ids: [1, 2, 3], delete: true });
    const update = await insertJob(handle, 'update_client', { clientnr: 5, changes: { city: 'Zwolle' } });
    expect(await runner().runUntilEmpty()).toEqual({ ran: 2, failed: 0 });
    expect((await jobRow(handle, send)).status).toBe('succeeded');
    expect((await jobRow(handle, update)).status).toBe('succeeded');
    expect(await mirrorRow(handle, 'clients', 5)).toMatchObject({ city: 'Zwolle' });
    expect((await mirrorRow(handle, 'saved_invoices', 1))?.deleted_at ?? null).toBeNull(); // never pulled: a 404 has no row to mark
    expect(box.sandbox.store.get('saved_invoices', 1)).toBeUndefined();
  });

  it('is woken by NOTIFY when started', async () => {
    const r = runner();
    r.start();
    const done = new Promise<JobFinished>((resolve) => r.on('finished', resolve));
    const id = await insertJob(handle, 'set_product_stock', { id: 1, stock: 8 });
    expect(await done).toMatchObject({ id, status: 'succeeded' });
    await r.stop();
    expect(await mirrorRow(handle, 'products', 1)).toMatchObject({ stock: '8' });
  });
});
