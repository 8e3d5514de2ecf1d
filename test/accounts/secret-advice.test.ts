/**
 * The master secret where stored keys need it: missing, too short or wrong, every refusal says
 * that the secret the keys were sealed with is needed (or the key added again), and none advises
 * a new random one, which could never open them. ACCOUNTS_SECRET_FILE is refused when others may
 * read it, as the CSV of keys is, and taken when it is its owner's alone.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { sealKey } from '../../src/accounts/secret.js';
import { useTestDatabase } from '../support/test-database.js';
import { runInProcess } from './harness.js';

const database = useTestDatabase();
const SECRET = 'the-secret-the-keys-were-sealed-with-0042';
const OTHER = 'a-new-random-secret-that-opens-nothing-77';
const KEY = 'sealed-key-5e1f0a9b';
const dir = mkdtempSync(join(tmpdir(), 'secret-advice-'));

function env(extra: Record<string, string | undefined>) {
  return {
    DATABASE_URL: database.current.url,
    MIRROR_SCHEMA: database.current.schema,
    ACCOUNTS_SECRET: undefined,
    ACCOUNTS_SECRET_FILE: undefined,
    INVOICING_API_URL: 'http://127.0.0.1:9/api/v1',
    INVOICING_API_USER: undefined,
    INVOICING_API_KEY: undefined,
    ...extra,
  };
}

function secretFile(name: string, text: string, mode: number): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
}

beforeAll(async () => {
  await sql`insert into accounts (name, api_user, api_key) values ('acme', 'bob', ${sealKey(KEY, SECRET)})`.execute(
    database.current.handle.db,
  );
});

/** Running acme's jobs needs its key opened: the command's one line on stderr, and its exit code. */
async function runAcme(extra: Record<string, string | undefined>) {
  return runInProcess(['jobs', 'run', '--account', 'acme'], { env: env(extra) });
}

describe('the master secret where stored keys need it', () => {
  it('missing, too short or wrong: says the secret they were sealed with is needed, never a new random one', async () => {
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [{}, /^invoice-mirror: account acme: ACCOUNTS_SECRET: is required to use the API key of account acme; set it/],
      [
        { ACCOUNTS_SECRET: 'short' },
        /^invoice-mirror: account acme: ACCOUNTS_SECRET: must be at least 32 characters \(it has 5\); /,
      ],
      [{ ACCOUNTS_SECRET: OTHER }, /^invoice-mirror: account acme: ACCOUNTS_SECRET does not open its API key; /],
    ];
    for (const [extra, start] of cases) {
      const result = await runAcme(extra);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(start);
      expect(result.stderr).toMatch(/the master secret the (stored keys were|key was) sealed with/);
      expect(result.stderr).toContain("'invoice-mirror accounts add");
      expect(result.stderr).not.toMatch(/random|openssl/);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('rotate-secret without the current secret says the same', async () => {
    const result = await runInProcess(['accounts', 'rotate-secret', '--new-secret-env', 'NEW'], {
      env: env({ NEW: OTHER }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^invoice-mirror: ACCOUNTS_SECRET: is required to open the stored API keys; set it \(or ACCOUNTS_SECRET_FILE\) to the master secret the stored keys were sealed with \(a new one cannot open them/,
    );
    expect(result.stderr).not.toMatch(/random|openssl/);
  });

  it('a secret file others may read is refused like the CSV of keys; its owner’s alone it is taken', async () => {
    for (const mode of [0o644, 0o640, 0o604]) {
      const file = secretFile(`open-${mode.toString(8)}`, `${SECRET}\n`, mode);
      const result = await runAcme({ ACCOUNTS_SECRET_FILE: file });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `invoice-mirror: account acme: ACCOUNTS_SECRET_FILE: ${file}: others may read it (mode ${mode.toString(8)}) and it holds the master secret; chmod 600 ${file} first\n`,
      );
    }
    const owned = secretFile('owned', `${SECRET}\n`, 0o600);
    const result = await runAcme({ ACCOUNTS_SECRET_FILE: owned });
    // The key opens; acme has no job, so the run has nothing to do.
    expect(result.stderr).not.toContain('ACCOUNTS_SECRET');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('ran 0 jobs');
    for (const text of [result.stdout, result.stderr]) expect(text).not.toContain(SECRET);
  });
});
