/**
 * The accounts decide which settings a command needs (issue 42): INVOICING_API_USER and
 * INVOICING_API_KEY only when an account without stored credentials is served. Without them: a
 * mirror about to be created stops before anything is created, naming the `default` its first
 * pull would make; `migrate` and the read-only commands never ask for them; of several accounts,
 * the one that needs them is named and skipped while the others are pulled; an account named is
 * pulled with its own key; `config` says for which account they are needed.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';
import { expectMirrorEquals } from '../support/exact.js';
import { databaseUrl, dropSchema, uniqueSchema, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase({ migrate: false });
const SECRET = 'a settings test master secret, long enough';
const REAL = 'https://invoicing.example/api/v1';
let sandbox: Sandbox;
const fresh = uniqueSchema('fresh');

beforeAll(async () => {
  sandbox = await startSandbox({
    accounts: 2,
    seed: 9,
    perEntity: { clients: 5, products: 4, quotations: 3, saved_invoices: 3, repeating_invoices: 2 },
  });
});
afterAll(async () => {
  await sandbox?.close();
  await dropSchema(databaseUrl(), fresh);
});

/** No INVOICING_API_* at all but a URL that is not on this machine (so no sandbox credentials are implied). */
const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
  runCli(args, {
    env: {
      ...database.current.env,
      INVOICING_API_URL: REAL,
      INVOICING_API_USER: undefined,
      INVOICING_API_KEY: undefined,
      ACCOUNTS_SECRET: SECRET,
      LOG_LEVEL: 'silent',
      ...extra,
    },
  });

const NEEDS_USER =
  "account default: INVOICING_API_USER: is required (the account user name of the invoicing service), as the account has no credentials of its own; set INVOICING_API_USER and INVOICING_API_KEY, or store the account's own with 'invoice-mirror accounts add default --api-user … --api-key-stdin' (that needs ACCOUNTS_SECRET, under which the key is then stored sealed)";

async function schemaExists(schema: string): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`
    select exists (select from pg_namespace where nspname = ${schema}) as found`.execute(database.current.handle.db);
  return rows[0]!.found;
}

describe('the settings the accounts need', () => {
  it('a mirror not made yet: backfill, sync, jobs run and daemon stop before creating it, naming default', async () => {
    for (const command of [['backfill'], ['sync'], ['jobs', 'run'], ['daemon']]) {
      const result = await cli(command, { MIRROR_SCHEMA: fresh });
      expect({ code: result.code, stderr: result.stderr }, command.join(' ')).toEqual({
        code: 2,
        stderr: `invoice-mirror: ${NEEDS_USER}\n`,
      });
    }
    expect(await schemaExists(fresh)).toBe(false);
    // Naming an account: no `default` would be served, so nothing is asked of the settings.
    const named = await cli(['backfill', '--account', 'acme'], { MIRROR_SCHEMA: fresh });
    expect(named.stderr).toMatch(/^invoice-mirror: --account: no account named 'acme'/);
  });

  it('migrate and the read-only commands need none of them', async () => {
    expect(await cli(['migrate'])).toMatchObject({ code: 0, stderr: '' });
    for (const command of [
      ['status'],
      ['sql', 'select count(*) from accounts'],
      ['accounts', 'list'],
      ['jobs', 'list'],
    ])
      expect((await cli(command)).code, command.join(' ')).toBe(0);
  });

  it('stored accounts are pulled with their own keys; a default without settings is named and skipped', async () => {
    for (const slot of sandbox.accounts) {
      const add = await cli(
        [
          'accounts',
          'add',
          `a${slot.index}`,
          '--api-user',
          slot.user,
          '--api-key-env',
          'KEY',
          '--api-url',
          sandbox.url,
        ],
        { KEY: slot.apiKey },
      );
      expect(add.code, add.stderr).toBe(0);
    }
    expect((await cli(['config', '--json'])).stdout).toContain(
      '"source": "not needed: every account has its own credentials"',
    );
    const one = await cli(['backfill', '--account', 'a1']);
    expect(one.code, one.stderr).toBe(0);
    const ids = await database.current.handle.db
      .selectFrom('accounts')
      .select(['id', 'name'])
      .orderBy('name')
      .execute();
    await expectMirrorEquals(database.current.handle.db, ids[0]!.id, sandbox.account(1), 'a1');

    // A default too (no credentials of its own): named, skipped, and the others pulled.
    await sql`insert into accounts (name) values ('default')`.execute(database.current.handle.db);
    const config = JSON.parse((await cli(['config', '--json'])).stdout) as {
      settings: { setting: string; source: string }[];
    };
    expect(config.settings.find((s) => s.setting === 'INVOICING_API_KEY')?.source).toBe(
      'required (unset; backfill, sync, daemon and jobs run need it for account default)',
    );
    const all = await cli(['backfill']);
    expect(all.code).toBe(1);
    expect(all.stderr).toBe(`invoice-mirror: ${NEEDS_USER}; it is not pulled\n`);
    expect(all.stdout).toMatch(/^account a1:$/m);
    expect(all.stdout).toMatch(/^account a2:$/m);
    await expectMirrorEquals(database.current.handle.db, ids[1]!.id, sandbox.account(2), 'a2');
    // Named, it must be servable: one line, exit code 2.
    expect(await cli(['sync', '--account', 'default'])).toMatchObject({
      code: 2,
      stderr: `invoice-mirror: ${NEEDS_USER}\n`,
    });
  });
});
