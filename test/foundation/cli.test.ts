import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { databaseUrl, dropSchema, uniqueSchema } from '../support/test-database.js';
import postgres from 'postgres';
import { migrations } from '../../migrations/index.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(databaseUrl(), schema);
});

function freshSchema(): string {
  const schema = uniqueSchema('cli');
  schemas.push(schema);
  return schema;
}

async function tablesIn(schema: string): Promise<string[]> {
  const client = postgres(databaseUrl(), { max: 1 });
  try {
    const rows =
      await client`select table_name from information_schema.tables where table_schema = ${schema} order by 1`;
    return rows.map((row) => row.table_name as string);
  } finally {
    await client.end();
  }
}

describe('invoice-mirror migrate', () => {
  it('creates the schema and its tables, and a second run changes nothing', async () => {
    const schema = freshSchema();
    const env = { DATABASE_URL: databaseUrl(), MIRROR_SCHEMA: schema, LOG_LEVEL: 'info' };
    const first = await runCli(['migrate'], { env });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('applied migrations');
    expect(await tablesIn(schema)).toEqual(
      expect.arrayContaining(['changes', 'jobs', 'schema_migrations', 'sync_runs']),
    );

    const second = await runCli(['migrate'], { env });
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('applied migrations');
  });

  it('succeeds in both of two processes started together', async () => {
    const schema = freshSchema();
    const env = { DATABASE_URL: databaseUrl(), MIRROR_SCHEMA: schema, LOG_LEVEL: 'info' };
    const results = await Promise.all([
      runCli(['migrate'], { env }),
      runCli(['migrate'], { env }),
      runCli(['migrate'], { env }),
    ]);
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    // Exactly one of them applied the migrations; the others waited on the lock and found none.
    expect(results.filter((r) => r.stderr.includes('applied migrations'))).toHaveLength(1);
  });
});

describe('bad settings and arguments', () => {
  const cases: Array<[string, Record<string, string>, RegExp, number]> = [
    ['unparseable DATABASE_URL', { DATABASE_URL: 'postgres//nope' }, /^invoice-mirror: DATABASE_URL: must be a URL/, 2],
    [
      'bad API URL',
      { INVOICING_API_URL: 'https://example.com/v2' },
      /^invoice-mirror: INVOICING_API_URL: must be an http\(s\) URL ending in \/api\/v1$/,
      2,
    ],
    ['unknown LOG_LEVEL', { LOG_LEVEL: 'chatty' }, /^invoice-mirror: LOG_LEVEL: must be one of /, 2],
    [
      'unreachable database',
      { DATABASE_URL: 'postgres://someone:hunter2hunter2@127.0.0.1:1/nowhere' },
      /^invoice-mirror: cannot connect to the database at 127\.0\.0\.1:1\/nowhere: .*ECONNREFUSED/,
      1,
    ],
  ];
  for (const [name, env, message, code] of cases) {
    it(`${name}: one line, exit code ${code}, no stack trace`, async () => {
      const result = await runCli(['migrate'], { env: { LOG_LEVEL: 'warn', ...env } });
      expect(result.code).toBe(code);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stderr).not.toContain('hunter2hunter2');
    });
  }

  it('exits 2 on an unknown command or option, 0 on --help and --version', async () => {
    expect((await runCli(['frobnicate'])).code).toBe(2);
    expect(
      (
        await runCli(['sql', 'select 1', '--format', 'xml'], {
          env: { DATABASE_URL: databaseUrl(), MIRROR_SCHEMA: freshSchema() },
        })
      ).code,
    ).toBe(2);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('migrate');
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('invoice-mirror sql', () => {
  it('prints rows as a table, CSV or JSON and refuses to write', async () => {
    const env = { DATABASE_URL: databaseUrl(), MIRROR_SCHEMA: freshSchema() };
    const table = await runCli(['sql', "select 1 as one, 'a,b' as text"], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/one\s+text\n-+\s+-+\n\s*1\s+a,b\n\(1 row\)/);
    const csv = await runCli(['sql', "select 1 as one, 'a,b' as text", '--format', 'csv'], { env });
    expect(csv.stdout).toBe('one,text\n1,"a,b"\n');
    const json = await runCli(['sql', 'select count(*)::int as n from jobs', '--format', 'json'], { env });
    expect(JSON.parse(json.stdout)).toEqual([{ n: 0 }]);
    const write = await runCli(['sql', 'delete from jobs'], { env });
    expect(write.code).toBe(1);
    expect(write.stderr).toContain('read-only transaction');
  });
});

describe('embedded database', () => {
  it('is created and used when DATABASE_URL is unset', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'im-embedded-'));
    try {
      const env = { DATABASE_URL: undefined, EMBEDDED_DB_DIR: join(dir, 'db') };
      const migrateRun = await runCli(['migrate'], { env, cwd: dir });
      expect(migrateRun.code).toBe(0);
      expect(migrateRun.stdout).toContain('embedded database');
      const query = await runCli(['sql', 'select name from schema_migrations order by name', '--format', 'csv'], {
        env,
        cwd: dir,
      });
      expect(query.code).toBe(0);
      expect(query.stdout).toBe(`${['name', ...migrations.map((m) => m.name)].join('\n')}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
