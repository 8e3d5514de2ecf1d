/**
 * `invoice-mirror accounts …` from the sources, against a real Postgres schema of its own: adding
 * (from a variable, from standard input, refused without a master secret), updating, listing,
 * showing, importing, pausing, resuming, removing, purging and re-sealing; no key in any output.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openKey } from '../../src/accounts/secret.js';
import { credentialsOf } from '../../src/accounts/store.js';
import { loadConfig } from '../../src/config.js';
import type { CliResult } from '../support/cli.js';
import { useTestDatabase } from '../support/test-database.js';
import { runInProcess } from './harness.js';

const database = useTestDatabase();
const SECRET = 'a-master-secret-of-forty-characters-0123';
const KEY_ENV = 'env-key-7f3a9c1e55d2';
const KEY_STDIN = 'stdin-key-0b8e44aa91c3';
const KEY_FILE = 'file-key-c0ffee112233';
const dir = mkdtempSync(join(tmpdir(), 'accounts-test-'));
/** Every result, for the final look for keys. */
const outputs: CliResult[] = [];

function env(extra: Record<string, string | undefined> = {}) {
  return {
    DATABASE_URL: database.current.url,
    MIRROR_SCHEMA: database.current.schema,
    ACCOUNTS_SECRET: SECRET,
    ACCOUNTS_SECRET_FILE: undefined,
    INVOICING_API_URL: undefined,
    INVOICING_API_USER: undefined,
    INVOICING_API_KEY: undefined,
    ...extra,
  };
}

async function cli(args: string[], options: { env?: Record<string, string | undefined>; stdin?: string } = {}) {
  const result = await runInProcess(['accounts', ...args], { stdin: options.stdin, env: env(options.env) });
  outputs.push(result);
  return result;
}

const db = () => database.current.handle.db;

async function account(name: string) {
  return db().selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
}

function privateFile(name: string, text: string, mode = 0o600): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
}

describe('accounts add', () => {
  it('is refused with one line when no master secret is set, before the database is opened', async () => {
    const result = await cli(['add', 'acme', '--api-user', 'bob', '--api-key-stdin'], {
      stdin: `${KEY_STDIN}\n`,
      env: { ACCOUNTS_SECRET: undefined, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nowhere' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^invoice-mirror: ACCOUNTS_SECRET: is required to store API keys of accounts; .*\n$/);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(result.stdout).toBe('');
  });

  it('adds an account with the key from a named variable, sealed', async () => {
    const result = await cli(['add', 'acme', '--api-user', 'bob', '--api-key-env', 'ACME_KEY'], {
      env: { ACME_KEY: KEY_ENV },
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe('added account acme (user bob at INVOICING_API_URL; key stored sealed)\n');
    const row = await account('acme');
    expect(row).toMatchObject({ api_user: 'bob', api_url: null, state: 'active' });
    expect(row.api_key).toMatch(/^v1:/);
    expect(row.api_key).not.toContain(KEY_ENV);
    expect(openKey(row.api_key!, SECRET, 'acme')).toBe(KEY_ENV);
    const config = loadConfig({ ACCOUNTS_SECRET: SECRET });
    expect(credentialsOf(row, config)).toEqual({
      baseUrl: 'https://www.factuursturen.nl/api/v1',
      user: 'bob',
      apiKey: KEY_ENV,
    });
  });

  it('adds an account with the first line of standard input, trimmed, and its URL and notes', async () => {
    const result = await cli(
      ['add', 'beta', '--api-user', 'al', '--api-url', 'http://127.0.0.1:4010/api/v1/', '--api-key-stdin'],
      { stdin: `  ${KEY_STDIN}  \nnot this line\n` },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('added account beta (user al at http://127.0.0.1:4010/api/v1; key stored sealed)\n');
    const row = await account('beta');
    expect(row.api_url).toBe('http://127.0.0.1:4010/api/v1');
    expect(openKey(row.api_key!, SECRET, 'beta')).toBe(KEY_STDIN);
  });

  it('updates the credentials of an account that exists, keeping its id and rows', async () => {
    const before = await account('acme');
    await sql`insert into jobs (account_id, kind, payload) values (${before.id}, 'delete_product', '{"id": 1}')`.execute(
      db(),
    );
    const result = await cli(['add', 'acme', '--api-user', 'bob2', '--api-key-stdin', '--notes', 'the shop'], {
      stdin: `${KEY_STDIN}\n`,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^updated account acme \(user bob2 at INVOICING_API_URL; key stored sealed\)\n$/);
    const after = await account('acme');
    expect(after).toMatchObject({ id: before.id, api_user: 'bob2', notes: 'the shop' });
    expect(openKey(after.api_key!, SECRET, 'acme')).toBe(KEY_STDIN);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from jobs where account_id = ${before.id}`.execute(db());
    expect(rows[0]!.n).toBe(1);
  });

  it('keeps a paused account paused, and serves a removed one again', async () => {
    expect((await cli(['pause', 'beta'])).code).toBe(0);
    const paused = await cli(['add', 'beta', '--api-user', 'al', '--api-key-env', 'K'], { env: { K: KEY_ENV } });
    expect(paused.stdout).toMatch(
      /^updated account beta .*; still paused: 'invoice-mirror accounts resume beta' serves it again\n$/,
    );
    expect((await account('beta')).state).toBe('paused');
    expect((await cli(['remove', 'beta'])).code).toBe(0);
    const removed = await cli(['add', 'beta', '--api-user', 'al', '--api-key-env', 'K'], { env: { K: KEY_ENV } });
    expect(removed.stdout).toMatch(/; it was removed and is served again\n$/);
    expect(await account('beta')).toMatchObject({ state: 'active', state_reason: null });
  });

  it.each([
    [['add', 'x', '--api-user', 'u'], /the API key: give --api-key-stdin .* or --api-key-env VAR/],
    [['add', 'x', '--api-user', 'u', '--api-key-stdin', '--api-key-env', 'K'], /give one of them, not both/],
    [
      ['add', 'x', '--api-user', 'u', '--api-key-env', 'UNSET_VAR'],
      /--api-key-env UNSET_VAR: that variable is not set/,
    ],
    [['add', 'x', '--api-user', 'u', '--api-key-stdin'], /standard input held no key/],
    [['add', 'x', '--api-user', ' ', '--api-key-env', 'K'], /--api-user: must not be empty/],
    [['add', 'bad name', '--api-user', 'u', '--api-key-env', 'K'], /account name 'bad name': use 1 to 63/],
    [
      ['add', 'x', '--api-user', 'u', '--api-url', 'https://example.com/v2', '--api-key-env', 'K'],
      /^invoice-mirror: --api-url: must be an http\(s\) URL ending in \/api\/v1\n$/,
    ],
  ])('refuses %j as bad usage', async (args, message) => {
    const result = await cli(args, { env: { K: KEY_ENV, UNSET_VAR: undefined } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(await db().selectFrom('accounts').select('name').where('name', '=', 'x').execute()).toEqual([]);
  });
});

describe('accounts import', () => {
  const GOOD = `name,api_url,api_user,api_key\nimp1,,u1,${KEY_FILE}\n"imp2",http://127.0.0.1:4010/api/v1,u2,"${KEY_FILE},2"\nbeta,,al2,${KEY_FILE}3\n`;

  it('refuses a file others may read, saying to chmod 600 it', async () => {
    const file = privateFile('open.csv', GOOD, 0o644);
    const result = await cli(['import', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `invoice-mirror: ${file}: others may read it (mode 644) and it holds API keys; chmod 600 ${file} first\n`,
    );
    expect(await db().selectFrom('accounts').select('name').where('name', 'like', 'imp%').execute()).toEqual([]);
  });

  it('reports the first bad line as FILE line N and writes nothing', async () => {
    const cases: [string, string][] = [
      [`name,api_url,api_user,api_key\nimp1,,u1,${KEY_FILE}\nimp9,ftp://x,u,${KEY_FILE}\n`, 'line 3: api_url: must be'],
      [`name,api_url,api_user,api_key\nimp1,,u1,${KEY_FILE}\nimp9,,u\n`, 'line 3: has 3 fields, the header 4'],
      [
        `name,api_url,api_user,api_key\nimp1,,u1,${KEY_FILE}\nimp1,,u1,${KEY_FILE}\n`,
        'line 3: account imp1 is on line 2',
      ],
      [`name,api_url,api_user,api_key\nbad name,,u1,${KEY_FILE}\n`, "line 2: account name 'bad name'"],
      [`name,api_url,api_user,api_key\nimp1,,,${KEY_FILE}\n`, 'line 2: api_user: must not be empty'],
      [`name,api_url,api_user,api_key\nimp1,,u1,\n`, 'line 2: api_key: is empty'],
      [`name,api_url,api_user,api_key\nimp1,,u1,"${KEY_FILE}\n`, 'line 2: a quoted field is not closed'],
      [`name,user,key\nimp1,u1,${KEY_FILE}\n`, 'line 1: the header must be exactly name,api_url,api_user,api_key'],
    ];
    for (const [i, [text, message]] of cases.entries()) {
      const file = privateFile(`bad${i}.csv`, text);
      const result = await cli(['import', file]);
      expect(result.code, message).toBe(2);
      expect(result.stderr).toContain(`invoice-mirror: ${file} ${message}`);
    }
    expect(await db().selectFrom('accounts').select('name').where('name', 'like', 'imp%').execute()).toEqual([]);
  });

  it('adds and updates every account of a good file, and says how many', async () => {
    const result = await cli(['import', privateFile('good.csv', GOOD)]);
    expect(result).toMatchObject({ code: 0, stdout: '2 added, 1 updated\n' });
    expect(await account('imp1')).toMatchObject({ api_url: null, api_user: 'u1' });
    const imp2 = await account('imp2');
    expect(imp2.api_url).toBe('http://127.0.0.1:4010/api/v1');
    expect(openKey(imp2.api_key!, SECRET, 'imp2')).toBe(`${KEY_FILE},2`);
    expect(openKey((await account('beta')).api_key!, SECRET, 'beta')).toBe(`${KEY_FILE}3`);
  });
});

describe('the keys', () => {
  it('appear in no output of any command above', () => {
    expect(outputs.length).toBeGreaterThan(10);
    for (const { stdout, stderr } of outputs)
      for (const key of [KEY_ENV, KEY_STDIN, KEY_FILE]) expect(stdout + stderr).not.toContain(key);
  });

  it('are stored sealed only', async () => {
    const { rows } = await sql<{ row: string }>`select accounts::text as row from accounts`.execute(db());
    for (const { row } of rows) for (const key of [KEY_ENV, KEY_STDIN, KEY_FILE]) expect(row).not.toContain(key);
  });
});
