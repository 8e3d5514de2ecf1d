import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../support/cli.js';
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
      /^invoice-mirror: DATABASE_URL: nothing listens at 127\.0\.0\.1:1; start PostgreSQL there or fix the host and port$/,
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

  it('a database that does not exist: one line that says how to create it', async () => {
    const url = new URL(databaseUrl());
    url.pathname = '/im_no_such_database';
    const result = await runCli(['status'], { env: { LOG_LEVEL: 'warn', DATABASE_URL: url.toString() } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^invoice-mirror: cannot connect to the database at .*: database "im_no_such_database" does not exist; create it \(createdb im_no_such_database, or CREATE DATABASE "im_no_such_database"\) or fix DATABASE_URL\n$/,
    );
  });

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
  it('prints rows as a table, CSV or JSON and refuses to write, whatever the query tries', async () => {
    const env = { DATABASE_URL: databaseUrl(), MIRROR_SCHEMA: freshSchema() };
    expect((await runCli(['migrate'], { env })).code).toBe(0);
    const table = await runCli(['sql', "select 1 as one, 'a,b' as text"], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/one\s+text\n-+\s+-+\n\s*1\s+a,b\n\(1 row\)/);
    const csv = await runCli(['sql', "select 1 as one, 'a,b' as text", '--format', 'csv'], { env });
    expect(csv.stdout).toBe('one,text\n1,"a,b"\n');
    await runCli(['jobs', 'add', 'set_product_stock', '{"id": 1, "stock": 1}'], { env });
    const count = () => runCli(['sql', 'select count(*)::int as n from jobs', '--format', 'json'], { env });
    expect(JSON.parse((await count()).stdout)).toEqual([{ n: 1 }]);
    const refusals: Array<[string, RegExp]> = [
      ['delete from jobs', /^invoice-mirror: query failed: cannot execute DELETE in a read-only transaction$/],
      [
        'create table scratch (a int)',
        /^invoice-mirror: query failed: cannot execute CREATE TABLE in a read-only transaction$/,
      ],
      [
        'commit; delete from jobs',
        /^invoice-mirror: sql: one statement only \(the query held several, separated by ;\)$/,
      ],
    ];
    for (const [query, message] of refusals) {
      const result = await runCli(['sql', query], { env });
      expect(result.code, query).not.toBe(0);
      expect(result.stderr.trim()).toMatch(message);
    }
    expect(JSON.parse((await count()).stdout)).toEqual([{ n: 1 }]);
    expect(await tablesIn(env.MIRROR_SCHEMA)).not.toContain('scratch');
  });
});

describe('output piped to a reader that stops early (| head)', () => {
  it('ends quietly with exit 0, not a stack trace', async () => {
    const env = { ...process.env, DATABASE_URL: databaseUrl(), MIRROR_SCHEMA: freshSchema(), LOG_LEVEL: 'warn' };
    expect((await runCli(['migrate'], { env })).code).toBe(0);
    const child = spawn(process.execPath, [CLI_PATH, 'sql', 'select generate_series(1, 200000) as n'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('reading with a role that may only read', () => {
  it('runs sql, report and status without trying to migrate', async () => {
    const schema = freshSchema();
    const admin = { DATABASE_URL: databaseUrl(), MIRROR_SCHEMA: schema };
    expect((await runCli(['migrate'], { env: admin })).code).toBe(0);
    const role = `reader_${schema}`;
    const client = postgres(databaseUrl(), { max: 1, onnotice: () => undefined });
    try {
      await client.unsafe(`create role ${role} login password 'read-only-pw'`);
      await client.unsafe(`grant usage on schema ${schema} to ${role}`);
      await client.unsafe(`grant select on all tables in schema ${schema} to ${role}`);
      const url = new URL(databaseUrl());
      url.username = role;
      url.password = 'read-only-pw';
      const env = { DATABASE_URL: url.toString(), MIRROR_SCHEMA: schema };
      for (const args of [['sql', 'select count(*) from clients'], ['report', 'open_quotations'], ['status']]) {
        const result = await runCli(args, { env });
        expect(result.stderr, args.join(' ')).toBe('');
        expect(result.code).toBe(0);
      }
      // A command that migrates still needs a role that may, and says which grant is missing.
      const migrate = await runCli(['migrate'], { env });
      expect(migrate.code).toBe(1);
      expect(migrate.stderr).toMatch(
        /^invoice-mirror: the database refused: permission denied for [^;]+; grant the role of DATABASE_URL what it needs \(to create the mirror: GRANT CREATE ON DATABASE/,
      );
      expect(migrate.stderr.split('\n')).toHaveLength(2); // one line, no stack trace
      expect(migrate.stderr).not.toContain('read-only-pw');
    } finally {
      await client.unsafe(`drop owned by ${role}`).catch(() => undefined);
      await client.unsafe(`drop role if exists ${role}`);
      await client.end();
    }
  });

  it('a read-only command on a schema that is missing or older than the code says to migrate', async () => {
    const env = { DATABASE_URL: databaseUrl(), MIRROR_SCHEMA: freshSchema() };
    const missing = await runCli(['status'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      new RegExp(
        `^invoice-mirror: the mirror schema '${env.MIRROR_SCHEMA}' does not exist yet in the database at .*; run 'invoice-mirror migrate'\n$`,
      ),
    );
    expect(await tablesIn(env.MIRROR_SCHEMA)).toEqual([]);
    expect((await runCli(['migrate'], { env })).code).toBe(0);
    const client = postgres(databaseUrl(), { max: 1, onnotice: () => undefined });
    try {
      await client.unsafe(
        `delete from ${env.MIRROR_SCHEMA}.schema_migrations where name = '${migrations.at(-1)!.name}'`,
      );
    } finally {
      await client.end();
    }
    const older = await runCli(['sql', 'select 1'], { env });
    expect(older.code).toBe(1);
    expect(older.stderr).toContain(
      `is older than this version of invoice-mirror (1 migration pending: ${migrations.at(-1)!.name})`,
    );
    // With AUTO_MIGRATE off, a command that would migrate says so too; with it on, it migrates.
    const off = await runCli(['sync'], {
      env: { ...env, AUTO_MIGRATE: 'false', INVOICING_API_URL: 'http://127.0.0.1:9/api/v1' },
    });
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/run 'invoice-mirror migrate' \(AUTO_MIGRATE is off\)/);
  });
});

describe('a DATABASE_URL that is not PostgreSQL', () => {
  it('fails within the connect timeout, naming the host, the port and what answered', async () => {
    const http = createServer((_request, response) => response.end('hello')).listen(0, '127.0.0.1');
    await once(http, 'listening');
    const { port } = http.address() as AddressInfo;
    try {
      const began = Date.now();
      const result = await runCli(['status'], {
        env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres` },
        timeoutMs: 20_000,
      });
      expect(Date.now() - began).toBeLessThan(12_000);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `invoice-mirror: DATABASE_URL: 127.0.0.1:${port} is not a PostgreSQL server (it answered "HTTP/1.1 400 Bad Request"); check the port\n`,
      );
    } finally {
      http.close();
    }
  });
});

describe('invoice-mirror config', () => {
  it('prints each setting with its value and source, and the database, never a secret', async () => {
    const result = await runCli(['config', '--json'], {
      env: {
        DATABASE_URL: 'postgres://mirror:db-secret-pw@db.example:5432/books',
        INVOICING_API_KEY: 'api-secret-key',
        CONSOLE_PASSWORD: 'console-secret',
        PAGE_SIZE: '300',
        MIRROR_SCHEMA: undefined,
      },
    });
    expect(result.code).toBe(0);
    for (const secret of ['db-secret-pw', 'api-secret-key', 'console-secret'])
      expect(result.stdout + result.stderr).not.toContain(secret);
    const printed = JSON.parse(result.stdout) as {
      database: string;
      settings: { setting: string; value: string; source: string }[];
    };
    expect(printed.database).toBe('PostgreSQL at postgres://mirror:[REDACTED]@db.example:5432/books, schema invoicing');
    const setting = (name: string) => printed.settings.find((s) => s.setting === name);
    expect(setting('PAGE_SIZE')).toEqual({ setting: 'PAGE_SIZE', value: '300', source: 'environment' });
    expect(setting('MIRROR_SCHEMA')).toEqual({ setting: 'MIRROR_SCHEMA', value: 'invoicing', source: 'default' });
    expect(setting('INVOICING_API_KEY')).toEqual({
      setting: 'INVOICING_API_KEY',
      value: '[REDACTED]',
      source: 'environment',
    });
    expect(setting('CONSOLE_TOKEN')).toEqual({ setting: 'CONSOLE_TOKEN', value: '', source: 'unset' });

    const credentials = async (url: string) => {
      const shown = await runCli(['config', '--json'], {
        env: { INVOICING_API_URL: url, INVOICING_API_USER: undefined, INVOICING_API_KEY: undefined },
      });
      return (JSON.parse(shown.stdout) as typeof printed).settings.filter((s) =>
        s.setting.startsWith('INVOICING_API_'),
      );
    };
    expect((await credentials('https://www.factuursturen.nl/api/v1')).slice(1)).toEqual([
      {
        setting: 'INVOICING_API_USER',
        value: '',
        source: 'required (unset; backfill, sync, daemon and jobs run need it)',
      },
      {
        setting: 'INVOICING_API_KEY',
        value: '',
        source: 'required (unset; backfill, sync, daemon and jobs run need it)',
      },
    ]);
    expect((await credentials('http://127.0.0.1:4010/api/v1')).slice(1)).toEqual([
      { setting: 'INVOICING_API_USER', value: 'sandbox', source: 'default (the sandbox)' },
      { setting: 'INVOICING_API_KEY', value: '[REDACTED]', source: 'default (the sandbox)' },
    ]);

    const embedded = await runCli(['config'], {
      env: { DATABASE_URL: undefined, EMBEDDED_DB_DIR: '/tmp/im-config-test' },
    });
    expect(embedded.stdout).toContain('\nDatabase: the embedded server in /tmp/im-config-test, schema invoicing\n');
  });
});

describe('an embedded database directory that cannot be written', () => {
  it('says which setting to change, in one line', async () => {
    const result = await runCli(['migrate'], { env: { DATABASE_URL: undefined, EMBEDDED_DB_DIR: '/etc/hostname/db' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^invoice-mirror: cannot create the embedded database in \/etc\/hostname\/db \(E[A-Z]+\); set EMBEDDED_DB_DIR to a directory you can write, or DATABASE_URL to a PostgreSQL server\n$/,
    );
  });
});

describe('--help', () => {
  it('names every setting, the exit codes and, per command, an example', async () => {
    const { settingsSchema } = await import('../../src/config.js');
    const { COMMANDS } = await import('../../src/commands/catalogue.js');
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const setting of Object.keys(settingsSchema.shape))
      expect(help.stdout).toMatch(new RegExp(`^  ${setting} `, 'm'));
    expect(help.stdout).toContain('Exit codes: 0 success, 1 failure, 2 bad usage or configuration');
    for (const command of COMMANDS) {
      const own = await runCli([command.name, '--help']);
      expect(own.stdout, command.name).toContain(`Example:\n  $ ${command.example}\n`);
    }
  });

  it("the README's Configuration table lists every setting", async () => {
    const { readFileSync } = await import('node:fs');
    const { settingsSchema } = await import('../../src/config.js');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const setting of Object.keys(settingsSchema.shape))
      expect(readme).toMatch(new RegExp(`^\\| [^|]*\`${setting}\``, 'm'));
  });
});

describe('a port in use and a service host that is not known', () => {
  it('name the setting to change, in one line', async () => {
    const schema = freshSchema();
    const env = { DATABASE_URL: databaseUrl(), MIRROR_SCHEMA: schema };
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const daemon = await runCli(['daemon'], {
        env: { ...env, HEALTH_PORT: String(port), INVOICING_API_URL: 'http://127.0.0.1:9/api/v1' },
      });
      expect(daemon.code).toBe(1);
      expect(daemon.stderr).toBe(
        `invoice-mirror: HEALTH_PORT: 127.0.0.1:${port} is already in use (another invoice-mirror?); choose another port\n`,
      );
    } finally {
      busy.close();
    }
    const sync = await runCli(['sync'], {
      env: {
        ...env,
        INVOICING_API_URL: 'http://no-such-host.invalid/api/v1',
        INVOICING_API_USER: 'u',
        INVOICING_API_KEY: 'key-1234',
        MAX_RETRIES: '0',
      },
    });
    expect(sync.code).toBe(1);
    expect(sync.stdout).toContain('could not connect to http://no-such-host.invalid (ENOTFOUND)');
  });
});
