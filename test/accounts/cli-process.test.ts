/**
 * The built command line (dist/, made by `npm test`'s build step) as a process, the way a person
 * runs it: a refusal is one line with exit code 2, a key is taken from standard input, and with
 * the log at its most talkative no key shows in anything the processes write.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_PATH, type CliResult } from '../support/cli.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const SECRET = 'process-test-master-secret-0123456789abc';
const NEW_SECRET = 'process-test-next-secret-abcdef0123456789';
const KEYS = ['proc-stdin-key-4e1f9b77', 'proc-env-key-8a2c6d11', 'proc-file-key-3b5e7f99'];
const outputs: CliResult[] = [];

function run(args: string[], options: { env?: Record<string, string | undefined>; stdin?: string } = {}) {
  return new Promise<CliResult>((resolve, reject) => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      DATABASE_URL: database.current.url,
      MIRROR_SCHEMA: database.current.schema,
      ACCOUNTS_SECRET: SECRET,
      LOG_LEVEL: 'trace',
      ...options.env,
    };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const child = spawn(process.execPath, [CLI_PATH, 'accounts', ...args], { env: env as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(options.stdin ?? '');
    child.on('error', reject);
    child.on('close', (code) => {
      outputs.push({ code, stdout, stderr });
      resolve({ code, stdout, stderr });
    });
  });
}

describe('invoice-mirror accounts, as a process', () => {
  it('refuses to add without a master secret: one line, exit code 2', async () => {
    const result = await run(['add', 'acme', '--api-user', 'bob', '--api-key-stdin'], {
      env: { ACCOUNTS_SECRET: undefined, ACCOUNTS_SECRET_FILE: undefined },
      stdin: `${KEYS[0]}\n`,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^invoice-mirror: ACCOUNTS_SECRET: is required to store API keys of accounts; [^\n]*\n$/,
    );
    expect(result.stdout).toBe('');
  });

  it('adds, imports, lists, shows, re-seals and purges without writing a key anywhere', async () => {
    const add = await run(['add', 'acme', '--api-user', 'bob', '--api-key-stdin'], { stdin: `${KEYS[0]}\n` });
    expect(add.stdout).toBe('added account acme (user bob at INVOICING_API_URL; key stored sealed)\n');
    const env = await run(['add', 'beta', '--api-user', 'al', '--api-key-env', 'BETA_KEY'], {
      env: { BETA_KEY: KEYS[1] },
    });
    expect(env.code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'accounts-process-'));
    const file = join(dir, 'accounts.csv');
    writeFileSync(file, `name,api_url,api_user,api_key\ngamma,,gus,${KEYS[2]}\nbad name,,x,${KEYS[2]}\n`);
    chmodSync(file, 0o600);
    expect((await run(['import', file])).stderr).toContain(`${file} line 3: account name 'bad name'`);
    writeFileSync(file, `name,api_url,api_user,api_key\ngamma,,gus,${KEYS[2]}\n`);
    expect((await run(['import', file])).stdout).toBe('1 added, 0 updated\n');
    expect((await run(['list'])).stdout).toMatch(/acme\s+active[\s\S]*beta\s+active[\s\S]*gamma\s+active/);
    expect((await run(['list', '--format', 'json'])).code).toBe(0);
    expect((await run(['show', 'acme'])).stdout).toContain('api key: stored, sealed\n');
    const wrong = await run(['rotate-secret', '--new-secret-env', 'NEW'], {
      env: { ACCOUNTS_SECRET: 'not-the-secret-the-keys-were-sealed-under', NEW: NEW_SECRET },
    });
    expect(wrong.stderr).toMatch(/^invoice-mirror: account acme: ACCOUNTS_SECRET does not open its API key; /);
    const rotate = await run(['rotate-secret', '--new-secret-env', 'NEW'], { env: { NEW: NEW_SECRET } });
    expect(rotate.stdout).toMatch(/^re-sealed 3 API keys under the new secret;/);
    expect((await run(['remove', 'beta', '--purge', '--yes'])).stdout).toContain('account beta purged\n');
    for (const { stdout, stderr } of outputs)
      for (const secret of [...KEYS, SECRET, NEW_SECRET]) expect(stdout + stderr).not.toContain(secret);
  });
});
