/**
 * `sql` is no shell (issue 41): whatever the query, it writes no file, runs no program, reads no
 * server file and changes nothing, on the embedded server (EMBEDDED_DB_DIR: its superuser on a
 * trusted socket) and on a server DATABASE_URL names as a superuser that must give a password
 * (the same throwaway server, its TCP connections asking for SCRAM passwords). There it logs in as
 * the reporting role the mirror makes, `<schema>_sql`. Each escape is refused with one line and a
 * non-zero exit. The superuser itself could do each of them (the control), so the refusals mean
 * something. Then, on the suite's server: SQL_DATABASE_URL, and the roles `sql` will not use.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachEmbeddedServer, freePort, type EmbeddedServer } from '../../src/db/embedded-server.js';
import { reportingRoleName } from '../../src/db/reporting.js';
import { runCli } from '../support/cli.js';
import { databaseUrl, dropSchema, embeddedDbParent, uniqueSchema } from '../support/test-database.js';

const SCHEMA = 'invoicing';
const ROLE = reportingRoleName(SCHEMA);
const PASSWORD = 'a superuser password for this test';

const parent = embeddedDbParent('im-sql-');
const dataDir = join(parent, 'db');
/** Where an escape would write: the server's user may write here, so nothing here means refused. */
const drop = mkdtempSync(join(tmpdir(), 'im-sql-out-'));
chmodSync(drop, 0o777);
let server: EmbeddedServer;
/** The superuser, on the server's socket. */
let admin: postgres.Sql;
let tcpUrl = '';

/** Only password logins over TCP (SCRAM), the socket trusted as the embedded server's always is. */
function requirePasswords(): void {
  writeFileSync(
    join(dataDir, 'pg_hba.conf'),
    'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\n',
  );
}

beforeAll(async () => {
  const port = await freePort();
  server = await attachEmbeddedServer(dataDir, { create: true, tcpPort: port, settings: ['fsync=off'] });
  admin = postgres({ ...server.connection, max: 1, onnotice: () => undefined });
  await admin.unsafe(`alter role postgres password '${PASSWORD}'`);
  requirePasswords();
  await admin`select pg_reload_conf()`;
  tcpUrl = `postgres://postgres:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}/postgres`;
  const migrated = await runCli(['migrate'], { env: { DATABASE_URL: tcpUrl, MIRROR_SCHEMA: SCHEMA } });
  expect(migrated.stderr).toBe('');
  await admin.unsafe(`set search_path to ${SCHEMA}`);
  await admin`insert into accounts (name) values ('default')`;
  await admin`insert into clients (clientnr, company, active, raw, account_id) select 1, 'Secret BV', true, '{}', id from accounts`;
  await admin`insert into jobs (kind, payload, account_id) select 'delete_client', '{"clientnr": 1}', id from accounts`;
  await admin`select lo_from_bytea(4242, 'a large object')`;
  // A function (with the caller's rights) that runs a program through COPY.
  await admin.unsafe(`
    create function ${SCHEMA}.escape_copy(target text) returns void language plpgsql as $$
    begin
      execute format('copy (select 1) to program %L', 'id > ' || target);
    end $$`);
  // Functions that write, as the tables' owner makes them: one with the caller's rights, one with its own.
  for (const [name, definer] of [
    ['escape_write', ''],
    ['escape_write_definer', 'security definer'],
  ] as const) {
    await admin.unsafe(`
      create function ${SCHEMA}.${name}() returns void language plpgsql ${definer} as $$
      begin
        insert into ${SCHEMA}.jobs (kind, payload, account_id) select 'delete_client', '{"clientnr": 2}', id from ${SCHEMA}.accounts;
      end $$`);
  }
}, 120_000);

afterAll(async () => {
  await admin?.end();
  await server?.stop();
  rmSync(parent, { recursive: true, force: true });
  rmSync(drop, { recursive: true, force: true });
});

/** What a query could change: the rows, the large objects, the reporting role's rights. */
async function state(): Promise<unknown> {
  const [row] = await admin.unsafe(`
    select (select md5(string_agg(j::text, ',' order by j.id)) from ${SCHEMA}.jobs j) as jobs,
           (select md5(string_agg(c::text, ',' order by c.clientnr)) from ${SCHEMA}.clients c) as clients,
           (select count(*)::int from pg_largeobject_metadata) as large_objects,
           (select count(*)::int from pg_roles where rolsuper) as superusers,
           (select row(r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolbypassrls, r.rolpassword is null)::text
              from pg_authid r where r.rolname = '${ROLE}') as reporting_role,
           (select count(*)::int from pg_auth_members m join pg_roles r on r.oid = m.member where r.rolname = '${ROLE}') as memberships`);
  return row;
}

/** Each escape, with the file it would write (if any); `$DIR` is where. */
const ESCAPES: string[] = [
  `copy clients to '$DIR/copy.csv'`,
  `copy (select 1) to program 'id > $DIR/program.txt'`,
  `select pg_read_file('/etc/passwd')`,
  `select lo_export(4242, '$DIR/large-object.bin')`,
  `select pg_ls_dir('.')`,
  'set role postgres',
  'reset session authorization',
  'set session authorization postgres',
  '/* a comment first */ (reset role)',
  `select set_config('role', 'postgres', true), query_to_xml('copy (select 1) to program ''id > $DIR/xml-program.txt''', true, true, '')`,
  `select query_to_xml('copy clients to ''$DIR/xml-copy.csv''', true, true, '')`,
  `select set_config('session_authorization', 'postgres', false)`,
  `select escape_copy('$DIR/function-program.txt')`,
  'select escape_write()',
  'select escape_write_definer()',
  `select dblink('dbname=postgres user=postgres', 'select 1')`,
  `commit; copy clients to '$DIR/after-commit.csv'`,
  `select visible_accounts('postgres')`,
];

/** Refused by Postgres for want of a right, by a read-only transaction or function, for a missing function, or by sql itself. */
const REFUSED =
  /permission denied|must be superuser|read-only transaction|not allowed in a non-volatile function|does not exist|is refused|one statement only|answers only for the calling role/;

const servers = {
  'the embedded server (EMBEDDED_DB_DIR)': () => ({ DATABASE_URL: undefined, EMBEDDED_DB_DIR: dataDir }),
  'a DATABASE_URL of a superuser that needs a password': () => ({ DATABASE_URL: tcpUrl }),
};

describe.each(Object.entries(servers))('sql on %s', (_name, target) => {
  const sqlCli = (query: string, extra: Record<string, string | undefined> = {}) =>
    runCli(['sql', query], { env: { ...target(), MIRROR_SCHEMA: SCHEMA, ...extra } });

  it('runs as the reporting role, which reads the mirror and may do nothing else', async () => {
    const who = await sqlCli('select session_user, current_user, count(*)::int as clients from clients', {
      LOG_LEVEL: 'warn',
    });
    expect(who.stderr).toBe('');
    expect(who.stdout).toMatch(
      new RegExp(`^session_user\\s+current_user\\s+clients\\n[- ]+\\n${ROLE}\\s+${ROLE}\\s+1\\n`),
    );
    const [role] = await admin`
      select r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolreplication, r.rolbypassrls, r.rolpassword is null as no_password,
             (select count(*)::int from pg_auth_members m where m.member = r.oid) as memberships
        from pg_authid r where r.rolname = ${ROLE}`;
    expect(role).toEqual({
      rolsuper: false,
      rolcreaterole: false,
      rolcreatedb: false,
      rolreplication: false,
      rolbypassrls: false,
      no_password: true, // cleared once it logged in
      memberships: 0,
    });
  });

  it('refuses every escape with one line and a non-zero exit; no file, no program, nothing changed', async () => {
    const before = await state();
    for (const attempt of ESCAPES) {
      const result = await sqlCli(attempt.replaceAll('$DIR', drop));
      expect(result.code, attempt).not.toBe(0);
      expect(result.code, attempt).not.toBeNull();
      expect(result.stderr, attempt).toMatch(/^invoice-mirror: [^\n]+\n$/);
      expect(result.stderr, attempt).toMatch(REFUSED);
      if (process.env.SHOW_REFUSALS) process.stdout.write(`${attempt} -> ${result.stderr}`);
      expect(result.stdout, attempt).not.toMatch(/root:|Secret BV|a large object/);
    }
    expect(readdirSync(drop)).toEqual([]);
    expect(await state()).toEqual(before);
  }, 120_000);

  it('the superuser itself could have done them (the refusals above mean something)', async () => {
    // `cat` reads what COPY writes: a program that exits first (as `id` may) breaks the pipe.
    await admin.unsafe(`copy (select 1) to program 'cat > ${drop}/control.txt'`);
    await admin.unsafe(`select lo_export(4242, '${drop}/control.bin')`);
    expect(readdirSync(drop).sort()).toEqual(['control.bin', 'control.txt']);
    for (const file of readdirSync(drop)) rmSync(join(drop, file));
  });
});

describe('sql on the DATABASE_URL server, when the reporting role cannot log in', () => {
  it('refuses in one line, saying what to set', async () => {
    writeFileSync(
      join(dataDir, 'pg_hba.conf'),
      `local all all trust\nhost all ${ROLE} 127.0.0.1/32 reject\nhost all all 127.0.0.1/32 scram-sha-256\n`,
    );
    await admin`select pg_reload_conf()`;
    try {
      const result = await runCli(['sql', 'select 1'], { env: { DATABASE_URL: tcpUrl, MIRROR_SCHEMA: SCHEMA } });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(
          `^invoice-mirror: sql: will not run a query as postgres, which is a superuser, and could not log in as its reporting role ${ROLE}: .*; set SQL_DATABASE_URL to a role with no more than USAGE on the schema and SELECT on its tables\\n$`,
        ),
      );
      expect(result.stderr).not.toContain(PASSWORD);
    } finally {
      requirePasswords();
      await admin`select pg_reload_conf()`;
    }
  });
});

describe('sql on the suite’s server', () => {
  const schema = uniqueSchema('sqlrole');
  const reader = `${schema}_reader`;
  const env = { DATABASE_URL: databaseUrl(), MIRROR_SCHEMA: schema };
  let suite: postgres.Sql;
  const urlOf = (user: string) => {
    const url = new URL(databaseUrl());
    url.username = user;
    url.password = 'reader-pw';
    return url.toString();
  };

  beforeAll(async () => {
    suite = postgres(databaseUrl(), { max: 1, onnotice: () => undefined });
    expect((await runCli(['migrate'], { env })).code).toBe(0);
    await suite.unsafe(`create role ${reader} login password 'reader-pw'`);
    await suite.unsafe(`grant usage on schema ${schema} to ${reader}`);
    await suite.unsafe(`grant select on all tables in schema ${schema} to ${reader}`);
  });

  afterAll(async () => {
    await dropSchema(databaseUrl(), schema);
    await suite.unsafe(`drop owned by ${reader}`).catch(() => undefined);
    await suite.unsafe(`drop role if exists ${reader}`);
    await suite.end();
  });

  it('SQL_DATABASE_URL: runs as its role, and refuses a superuser one', async () => {
    const read = await runCli(['sql', 'select session_user as who'], {
      env: { ...env, SQL_DATABASE_URL: urlOf(reader) },
    });
    expect(read.stdout).toMatch(new RegExp(`^who\\n-+\\n${reader}\\n`));
    const superuser = new URL(databaseUrl()).username || 'postgres';
    const refused = await runCli(['sql', 'select 1'], { env: { ...env, SQL_DATABASE_URL: databaseUrl() } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `invoice-mirror: sql: the role it would run the query as (${superuser}) is a superuser; set SQL_DATABASE_URL to a role with no more than USAGE on the schema and SELECT on its tables\n`,
    );
  });

  it('will not take a role of that name it did not make, nor one given more than it may have', async () => {
    const role = reportingRoleName(schema);
    await suite.unsafe(`create role ${role} login`);
    try {
      const theirs = await runCli(['sql', 'select 1'], { env });
      expect(theirs.code).toBe(1);
      expect(theirs.stderr).toMatch(
        new RegExp(
          `^invoice-mirror: sql: will not run a query as \\w+, which is a superuser, and the role ${role} exists and was not made by invoice-mirror \\(its comment does not say so\\): drop or rename it; set SQL_DATABASE_URL .*\\n$`,
        ),
      );
      await suite.unsafe(`drop role ${role}`);
      expect((await runCli(['sql', 'select 1'], { env })).code).toBe(0); // made now
      await suite.unsafe(`grant pg_read_server_files to ${role}`);
      const more = await runCli(['sql', 'select 1'], { env });
      expect(more.code).toBe(1);
      expect(more.stderr).toMatch(/its reporting role \S+ has more than it may \(membership in pg_read_server_files\)/);
    } finally {
      await suite.unsafe(`revoke pg_read_server_files from ${role}`).catch(() => undefined);
    }
  });
});
