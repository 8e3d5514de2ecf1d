/**
 * The reporting role: who `sql` runs a query as when the mirror's own role is no boundary.
 *
 * A read-only transaction stops writes to tables, not what a superuser (or a member of
 * pg_write_server_files, pg_read_server_files or pg_execute_server_program) may do besides: COPY
 * to a file or a program, pg_read_file, lo_export, pg_ls_dir. Nor is SET ROLE a boundary inside
 * such a session: one statement can set the role back (`set_config('role', …)`), and RESET SESSION
 * AUTHORIZATION returns to the superuser that logged in. Only a session that logged in as a role
 * without those rights is one. So, where the mirror's role has them, `sql` logs in as a role the
 * mirror makes for the schema, `<schema>_sql`: LOGIN, nothing else (no superuser, CREATEROLE,
 * CREATEDB, REPLICATION, BYPASSRLS, no membership in any role), USAGE on the schema and SELECT on
 * its tables and views. On the embedded server (trust on a private socket) it logs in as it
 * without a password; on a server DATABASE_URL names, with a random password set for two minutes
 * (as a SCRAM verifier, so no statement log holds the password) and cleared once it is logged in.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { RunError, errorMessage } from '../errors.js';
import { registerSecret } from '../log.js';
import { quoteLiteral, quoteName } from './quote.js';
import type { Database } from './schema.js';

/** Every role the mirror made starts its comment so, and no other role is taken for it. */
const MARK = 'invoice-mirror: ';

/** `<schema>_sql`, within Postgres's 63 bytes (a long schema name is cut and given a hash). */
export function reportingRoleName(schema: string): string {
  const name = `${schema}_sql`;
  if (Buffer.byteLength(name) <= 63) return name;
  const hash = createHash('sha256').update(schema).digest('hex').slice(0, 8);
  return `${schema.slice(0, 50)}_${hash}_sql`;
}

/** What makes a session's role no boundary; every list empty and `superuser` false: it is one. */
export interface Privileges {
  role: string;
  superuser: boolean;
  /** Superuser roles and server-file or program roles it is (or may become) a member of. */
  memberOf: string[];
  /** Server-file functions it may execute (granted by hand, or to PUBLIC). */
  fileFunctions: string[];
}

/** The rights of the role the session logged in as (session_user, which SET ROLE does not change). */
export async function privilegesOf(db: Kysely<Database>): Promise<Privileges> {
  const { rows } = await sql<{ role: string; superuser: boolean; member_of: string[]; functions: string[] }>`
    select session_user::text as role, r.rolsuper as superuser,
           array(select g.rolname::text from pg_roles g
                  where g.rolname <> session_user
                    and (g.rolsuper or g.rolname in ('pg_read_server_files', 'pg_write_server_files', 'pg_execute_server_program'))
                    and pg_has_role(session_user, g.oid, 'MEMBER')
                  order by 1) as member_of,
           array(select p.oid::regprocedure::text from pg_proc p
                  where p.pronamespace = 'pg_catalog'::regnamespace
                    and p.proname in ('pg_read_file', 'pg_read_binary_file', 'pg_ls_dir', 'pg_stat_file',
                                      'lo_import', 'lo_export', 'pg_file_write', 'pg_file_rename', 'pg_file_unlink')
                    and has_function_privilege(session_user, p.oid, 'EXECUTE')
                  order by 1) as functions
      from pg_roles r where r.rolname = session_user`.execute(db);
  const row = rows[0]!;
  return { role: row.role, superuser: row.superuser, memberOf: row.member_of, fileFunctions: row.functions };
}

/** Why a role is no boundary, in a few words ("is a superuser"); null when it is one. */
export function privilegeProblem(privileges: Privileges): string | null {
  if (privileges.superuser) return 'is a superuser';
  if (privileges.memberOf.length > 0) return `is a member of ${privileges.memberOf.join(', ')}`;
  if (privileges.fileFunctions.length > 0) return `may execute ${privileges.fileFunctions.join(', ')}`;
  return null;
}

interface RoleRow {
  comment: string | null;
  can_login: boolean;
  /** Attributes it must not have, by name. */
  attributes: string[];
  member_of: string[];
}

/**
 * Makes the reporting role if it is missing, checks that it is the mirror's and has nothing more
 * than it may, and grants it USAGE on the schema and SELECT on every table and view that it lacks
 * (a table a later migration added); with `password`, sets it too, valid for two minutes by the
 * server's clock. Runs as the privileged role, in one transaction that may write.
 */
export async function prepareReportingRole(
  db: Kysely<Database>,
  schema: string,
  role: string,
  password?: string,
): Promise<void> {
  await db
    .transaction()
    .setAccessMode('read write')
    .execute(async (trx) => {
      const found = await roleRow(trx, role);
      if (!found) {
        await sql
          .raw(`create role ${quoteName(role)} login nosuperuser nocreatedb nocreaterole noreplication nobypassrls`)
          .execute(trx);
        const comment = `${MARK}the role sql runs queries as, for the schema ${schema} (each sql that needs it sets its password for two minutes)`;
        await sql.raw(`comment on role ${quoteName(role)} is ${quoteLiteral(comment)}`).execute(trx);
      } else {
        checkRole(role, found);
        if (!found.can_login) await sql.raw(`alter role ${quoteName(role)} login`).execute(trx);
      }
      await sql.raw(grantsFor(schema, role)).execute(trx);
      if (password !== undefined) await sql.raw(passwordFor(role, password)).execute(trx);
    })
    .catch((error: unknown) => {
      if (error instanceof RunError) throw error;
      throw new RunError(`could not make or grant its reporting role ${role}: ${errorMessage(error)}`);
    });
}

async function roleRow(db: Kysely<Database>, role: string): Promise<RoleRow | undefined> {
  const { rows } = await sql<RoleRow>`
    select shobj_description(r.oid, 'pg_authid') as comment, r.rolcanlogin as can_login,
           array_remove(array[case when r.rolsuper then 'SUPERUSER' end, case when r.rolcreaterole then 'CREATEROLE' end,
                              case when r.rolcreatedb then 'CREATEDB' end, case when r.rolreplication then 'REPLICATION' end,
                              case when r.rolbypassrls then 'BYPASSRLS' end], null) as attributes,
           array(select g.rolname::text from pg_auth_members m join pg_roles g on g.oid = m.roleid
                  where m.member = r.oid order by 1) as member_of
      from pg_roles r where r.rolname = ${role}`.execute(db);
  return rows[0];
}

function checkRole(role: string, found: RoleRow): void {
  if (!found.comment?.startsWith(MARK)) {
    throw new RunError(
      `the role ${role} exists and was not made by invoice-mirror (its comment does not say so): drop or rename it`,
    );
  }
  const extra = [...found.attributes, ...found.member_of.map((name) => `membership in ${name}`)];
  if (extra.length > 0) {
    throw new RunError(
      `its reporting role ${role} has more than it may (${extra.join(', ')}); take that back (or DROP ROLE ${role}: the next sql makes it again)`,
    );
  }
}

/** One statement: USAGE on the schema and SELECT on each relation where the role lacks them. */
function grantsFor(schema: string, role: string): string {
  return `
    do $grants$
    declare
      r record;
    begin
      if not has_schema_privilege(${quoteLiteral(role)}, ${quoteLiteral(schema)}, 'USAGE') then
        execute format('grant usage on schema %I to %I', ${quoteLiteral(schema)}, ${quoteLiteral(role)});
      end if;
      for r in
        select c.relname from pg_class c
         where c.relnamespace = (select oid from pg_namespace where nspname = ${quoteLiteral(schema)})
           and c.relkind in ('r', 'p', 'v', 'm', 'f') and not c.relispartition
           and not has_table_privilege(${quoteLiteral(role)}, c.oid, 'SELECT')
      loop
        execute format('grant select on %I.%I to %I', ${quoteLiteral(schema)}, r.relname, ${quoteLiteral(role)});
      end loop;
    end
    $grants$`;
}

/** A random password for one login (registered with the log's scrubber). */
export function oneTimePassword(): string {
  const password = randomBytes(24).toString('base64url');
  registerSecret(password);
  return password;
}

/**
 * The password, valid for two minutes by the server's clock, set as a SCRAM-SHA-256 verifier: a
 * statement log or pg_stat_statements shows no password.
 */
function passwordFor(role: string, password: string): string {
  return `
    do $password$
    begin
      execute format('alter role %I password %L valid until %L', ${quoteLiteral(role)}, ${quoteLiteral(scramVerifier(password))},
                     (now() + interval '2 minutes')::text);
    end
    $password$`;
}

/** Once logged in: the password is no use to anyone after. */
export async function clearPassword(db: Kysely<Database>, role: string): Promise<void> {
  await db
    .transaction()
    .setAccessMode('read write')
    .execute((trx) => sql.raw(`alter role ${quoteName(role)} password null`).execute(trx));
}

/** The SCRAM-SHA-256 verifier Postgres stores for a password (RFC 5802, 4096 iterations). */
export function scramVerifier(password: string): string {
  const salt = randomBytes(16);
  const iterations = 4096;
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
