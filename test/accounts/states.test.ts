/**
 * `accounts list|show|pause|resume|remove|rotate-secret` from the sources, over accounts with rows
 * of their own in the bookkeeping tables: the overview counts each account's problems apart, a
 * purge deletes one account's rows in every table and nothing else, re-sealing is all or nothing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountTables } from '../../src/accounts/purge.js';
import { openKey, sealKey } from '../../src/accounts/secret.js';
import type { CliResult } from '../support/cli.js';
import { useTestDatabase } from '../support/test-database.js';
import { accountId, runInProcess } from './harness.js';

const database = useTestDatabase();
const SECRET = 'the-current-master-secret-0123456789abcdef';
const NEW_SECRET = 'the-next-master-secret-fedcba9876543210xyz';
const KEY = 'acme-key-5d1c7e0f9a2b';
const SETTINGS_KEY = 'settings-key-93ab10cd77ef';
const outputs: CliResult[] = [];

async function cli(args: string[], extra: Record<string, string | undefined> = {}) {
  const result = await runInProcess(['accounts', ...args], {
    env: {
      DATABASE_URL: database.current.url,
      MIRROR_SCHEMA: database.current.schema,
      ACCOUNTS_SECRET: SECRET,
      ACCOUNTS_SECRET_FILE: undefined,
      INVOICING_API_URL: undefined,
      INVOICING_API_USER: 'settings-user',
      INVOICING_API_KEY: SETTINGS_KEY,
      KEY,
      ...extra,
    },
  });
  outputs.push(result);
  return result;
}

const db = () => database.current.handle.db;

/** Rows of one account in the bookkeeping tables and a mirror table. */
async function seed(id: number): Promise<void> {
  await sql`
    insert into sync_runs (account_id, kind, status, entities, started_at, finished_at) values
      (${id}, 'backfill', 'succeeded', '{clients,products}', now() - interval '13 min', now() - interval '12 min')`.execute(
    db(),
  );
  await sql`
    insert into sync_runs (account_id, kind, status, entities, started_at, finished_at, error) values
      (${id}, 'sync', 'partial', '{clients,products,saved_invoices,invoices}', now() - interval '2 min', now() - interval '1 min',
       'clients: the service answered 502; saved_invoices: timed out after 30 s')`.execute(db());
  await sql`
    insert into jobs (account_id, kind, payload, status, finished_at) values
      (${id}, 'delete_product', '{"id": 1}', 'queued', null), (${id}, 'delete_product', '{"id": 2}', 'queued', null),
      (${id}, 'delete_product', '{"id": 3}', 'failed', now() - interval '1 day'),
      (${id}, 'delete_product', '{"id": 4}', 'failed', now() - interval '10 days'),
      (${id}, 'delete_product', '{"id": 5}', 'interrupted', null)`.execute(db());
  await sql`
    insert into held_deletes (account_id, entity, entity_id) values
      (${id}, 'products', '1'), (${id}, 'products', '2'), (${id}, 'products', '3')`.execute(db());
  await sql`
    insert into rejected_values (account_id, entity, entity_id, field, action, value, reason) values
      (${id}, 'clients', '1', 'email', 'rejected', '"x"', 'not text'), (${id}, 'clients', '2', 'email', 'rejected', '"y"', 'not text')`.execute(
    db(),
  );
  await sql`
    insert into countries (account_id, id, name, raw, deleted_at) values
      (${id}, 1, 'Nederland', '{}', null), (${id}, 2, 'België', '{}', null), (${id}, 3, 'Gone', '{}', now())`.execute(
    db(),
  );
}

beforeAll(async () => {
  // The test schema has `default` (see test/support/test-database.ts).
  expect((await cli(['add', 'acme', '--api-user', 'bob', '--api-key-env', 'KEY'])).code).toBe(0);
  expect((await cli(['add', 'gone', '--api-user', 'gus', '--api-key-env', 'KEY'])).code).toBe(0);
  await seed(await accountId(db(), 'acme'));
  await seed(await accountId(db(), 'gone'));
});

describe('accounts list', () => {
  const ACME_PROBLEMS =
    'failing lists: clients, saved_invoices; 3 held deletes; 2 rejected values; 1 failed job (7 d); 1 interrupted job';

  it('prints one row per account for a person', async () => {
    const result = await cli(['list']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^name\s+state\s+last_complete_sync\s+age\s+target\s+queue\s+problems$/);
    const acme = lines.find((line) => line.startsWith('acme'))!;
    expect(acme).toMatch(/^acme\s+active\s+\d{4}-\d\d-\d\dT\S+Z\s+12 min\s+15 min\s+2\s+/);
    expect(acme.endsWith(ACME_PROBLEMS)).toBe(true);
    expect(lines.find((line) => line.startsWith('default'))).toMatch(/^default\s+active\s+15 min\s+0$/);
    expect(result.stdout).toContain('(3 rows)');
  });

  it('prints every count as JSON, per account', async () => {
    const result = await cli(['list', '--format', 'json']);
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(rows.map((row) => row.name)).toEqual(['acme', 'default', 'gone']);
    expect(rows[0]).toMatchObject({
      state: 'active',
      queued_jobs: 2,
      failed_jobs: 1,
      interrupted_jobs: 1,
      held_deletes: 3,
      rejected_values: 2,
      last_pull_status: 'partial',
      failing_lists: ['clients', 'saved_invoices'],
      problems: ACME_PROBLEMS,
    });
    expect(Math.round((rows[0]!.sync_age_seconds as number) / 60)).toBe(12);
    expect(rows[1]).toMatchObject({ queued_jobs: 0, held_deletes: 0, last_complete_sync_at: null, problems: '' });
  });

  it('prints CSV with a header', async () => {
    const result = await cli(['list', '--format', 'csv']);
    const [header, ...rows] = result.stdout.trimEnd().split('\n');
    expect(header).toBe(
      'name,state,state_reason,last_complete_sync_at,sync_age_seconds,queued_jobs,running_jobs,failed_jobs,interrupted_jobs,held_deletes,rejected_values,last_pull_status,failing_lists,sync_interval_seconds,parked_until,parked_reason,problems',
    );
    expect(rows).toHaveLength(3);
    expect(rows[1]).toMatch(/^default,active,/);
  });
});

describe('accounts show', () => {
  it('shows every field but the key, and the account’s counts', async () => {
    const result = await cli(['show', 'acme']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('name: acme\nstate: active\n');
    expect(result.stdout).toContain('api url: from INVOICING_API_URL (https://www.factuursturen.nl/api/v1)\n');
    expect(result.stdout).toContain('api user: bob\napi key: stored, sealed\n');
    expect(result.stdout).toMatch(/last complete sync: \S+ \(12 min ago\)/);
    expect(result.stdout).toMatch(/countries\s+2\s+1\n/);
    expect(result.stdout).toMatch(/queued\s+2\n/);
    expect(result.stdout).toMatch(/Last runs\n.*\n.*\n\s*\d+\s+sync\s+partial/);
  });

  it('says where an account without stored credentials takes them from', async () => {
    const result = await cli(['show', 'default']);
    expect(result.stdout).toContain('api user: from INVOICING_API_USER\napi key: from INVOICING_API_KEY\n');
    expect(result.stdout).toContain('last complete sync: never\n');
  });

  it('names an unknown account', async () => {
    const result = await cli(['show', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no account named 'nope' \(known: acme, default, gone\)/);
  });
});

describe('accounts pause and resume', () => {
  it('pauses with who and when, and resume serves it again', async () => {
    expect((await cli(['pause', 'default', '--reason', 'moving house'])).stdout).toBe('account default paused\n');
    const paused = await db()
      .selectFrom('accounts')
      .selectAll()
      .where('name', '=', 'default')
      .executeTakeFirstOrThrow();
    expect(paused.state).toBe('paused');
    expect(paused.state_reason).toMatch(/^paused by a person on \d{4}-\d\d-\d\d \d\d:\d\d: moving house$/);
    expect(paused.state_changed_at).toBeInstanceOf(Date);
    expect((await cli(['list'])).stdout).toMatch(/default\s+paused\s+15 min\s+0\s+paused by a person on /);
    expect((await cli(['pause', 'default'])).stdout).toBe('account default is paused already\n');
    expect((await cli(['resume', 'default'])).stdout).toBe('account default is active again (was paused)\n');
    expect((await cli(['resume', 'default'])).stdout).toBe('account default is active already\n');
    const resumed = await db()
      .selectFrom('accounts')
      .selectAll()
      .where('name', '=', 'default')
      .executeTakeFirstOrThrow();
    expect(resumed).toMatchObject({ state: 'active', state_reason: null });
  });

  it('resume clears a refusal', async () => {
    await sql`update accounts set state = 'refused', state_reason = 'the service answered 401' where name = 'default'`.execute(
      db(),
    );
    expect((await cli(['list'])).stdout).toMatch(/default\s+refused\s+15 min\s+0\s+refused: the service answered 401/);
    expect((await cli(['resume', 'default'])).stdout).toBe('account default is active again (was refused)\n');
  });
});

describe('accounts remove', () => {
  it('keeps the rows of a removed account', async () => {
    const result = await cli(['remove', 'gone']);
    expect(result.stdout).toMatch(/^account gone removed: its rows stay, read-only; /);
    const id = await accountId(db(), 'gone');
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from countries where account_id = ${id}`.execute(db());
    expect(rows[0]!.n).toBe(3);
    expect((await cli(['pause', 'gone'])).stderr).toMatch(
      /account gone: removed \(removed by a person on .*\): its rows are kept/,
    );
  });

  it('does not purge without --yes', async () => {
    const result = await cli(['remove', 'gone', '--purge']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'invoice-mirror: --purge deletes every row of account gone for good; add --yes to confirm\n',
    );
    expect(await accountId(db(), 'gone')).toBeGreaterThan(0);
  });

  it('purges every row of the account in every table, and the account, after saying what', async () => {
    const gone = await accountId(db(), 'gone');
    const acme = await accountId(db(), 'acme');
    const tables = await accountTables(db());
    expect(tables).toEqual(expect.arrayContaining(['changes', 'countries', 'document_lines', 'jobs', 'sync_runs']));
    expect(tables).not.toContain('accounts');
    const result = await cli(['remove', 'gone', '--purge', '--yes']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('deleting account gone and its 17 rows:\n');
    expect(result.stdout).toContain(
      // events: the deletes.held the held deletes made.
      '  account_leases: 1 row\n  countries: 3 rows\n  events: 1 row\n  held_deletes: 3 rows\n  jobs: 5 rows\n',
    );
    expect(result.stdout.endsWith('account gone purged\n')).toBe(true);
    for (const table of tables) {
      const { rows } = await sql<{ gone: number; acme: number }>`
        select count(*) filter (where account_id = ${gone})::int as gone,
               count(*) filter (where account_id = ${acme})::int as acme
          from ${sql.table(table)}`.execute(db());
      expect(rows[0]!.gone, table).toBe(0);
      if (['countries', 'jobs', 'sync_runs', 'held_deletes', 'rejected_values'].includes(table))
        expect(rows[0]!.acme, table).toBeGreaterThan(0);
    }
    expect(await db().selectFrom('accounts').select('name').orderBy('name').execute()).toEqual([
      { name: 'acme' },
      { name: 'default' },
    ]);
  });
});

describe('accounts rotate-secret', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rotate-test-'));
  const newSecretFile = join(dir, 'new-secret');
  writeFileSync(newSecretFile, `${NEW_SECRET}\n`);

  it('stops at a key the current secret does not open, naming the account, and writes nothing', async () => {
    await sql`insert into accounts (name, api_user, api_key) values ('other', 'o', ${sealKey(KEY, 'some-other-secret-of-32-characters-x')})`.execute(
      db(),
    );
    const before = await db().selectFrom('accounts').select(['name', 'api_key']).orderBy('name').execute();
    const result = await cli(['rotate-secret', '--new-secret-file', newSecretFile]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^invoice-mirror: account other: ACCOUNTS_SECRET does not open its API key; .*nothing was re-sealed\n$/,
    );
    expect(await db().selectFrom('accounts').select(['name', 'api_key']).orderBy('name').execute()).toEqual(before);
    await sql`delete from accounts where name = 'other'`.execute(db());
  });

  it('refuses a short new secret, or the current one', async () => {
    expect((await cli(['rotate-secret', '--new-secret-env', 'NEW'], { NEW: 'too-short' })).stderr).toMatch(
      /--new-secret-env NEW: the new secret must be at least 32 characters \(it has 9\)/,
    );
    expect((await cli(['rotate-secret', '--new-secret-env', 'NEW'], { NEW: SECRET })).stderr).toMatch(
      /the new secret is the one ACCOUNTS_SECRET gives already/,
    );
    expect((await cli(['rotate-secret'])).code).toBe(2);
  });

  it('re-seals every stored key: the new secret opens them, the old one none', async () => {
    const result = await cli(['rotate-secret', '--new-secret-file', newSecretFile]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^re-sealed 1 API key under the new secret; .*set ACCOUNTS_SECRET .* to the new secret now/,
    );
    const acme = await db().selectFrom('accounts').selectAll().where('name', '=', 'acme').executeTakeFirstOrThrow();
    expect(openKey(acme.api_key!, NEW_SECRET, 'acme')).toBe(KEY);
    expect(() => openKey(acme.api_key!, SECRET, 'acme')).toThrow(/does not open its API key/);
  });
});

describe('the keys', () => {
  it('appear in no output', () => {
    for (const { stdout, stderr } of outputs)
      for (const secret of [KEY, SETTINGS_KEY, SECRET, NEW_SECRET]) expect(stdout + stderr).not.toContain(secret);
  });
});
