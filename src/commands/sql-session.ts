/**
 * The session `sql` runs a query on: one whose logged-in role may not write files, read server
 * files or run programs (see src/db/reporting.ts for why nothing less is a boundary).
 *
 * - SQL_DATABASE_URL set: that connection, if its role is such a role (else refused).
 * - Otherwise the mirror's own connection, if its role is such a role (a DATABASE_URL of a role
 *   that may only read, or of the tables' owner without those rights).
 * - Otherwise (the embedded server's superuser, a superuser DATABASE_URL) the reporting role
 *   `<schema>_sql`, made and granted by the privileged session, logged in as on the same server.
 *
 * Whichever it is, its rights are checked once more on the session itself before the query runs.
 */
import type { App } from '../app.js';
import { openUrlSession, type QuerySession } from '../db/connect.js';
import {
  clearPassword,
  oneTimePassword,
  prepareReportingRole,
  privilegeProblem,
  privilegesOf,
  reportingRoleName,
} from '../db/reporting.js';
import { RunError, errorMessage } from '../errors.js';

/** Password authentication failed: another `sql` set the role's password meanwhile. */
const BAD_PASSWORD = '28P01';
const LOGIN_TRIES = 3;

export async function openQuerySession(app: App): Promise<QuerySession> {
  const session = await chooseSession(app);
  try {
    const privileges = await privilegesOf(session.db);
    const problem = privilegeProblem(privileges);
    if (problem)
      throw new RunError(`sql: the role it would run the query as (${privileges.role}) ${problem}; ${WHAT_TO_SET}`);
    return session;
  } catch (error) {
    await session.close().catch(() => undefined);
    throw error;
  }
}

const WHAT_TO_SET = 'set SQL_DATABASE_URL to a role with no more than USAGE on the schema and SELECT on its tables';

async function chooseSession(app: App): Promise<QuerySession> {
  const { config, database } = app;
  if (config.sqlDatabaseUrl) {
    return openUrlSession(config.sqlDatabaseUrl, { ...sessionOptions(app), databaseUrl: config.sqlDatabaseUrl }).catch(
      (error: unknown) => {
        throw new RunError(`sql: cannot connect to SQL_DATABASE_URL: ${errorMessage(error)}`);
      },
    );
  }
  const own = await privilegesOf(database.db);
  const problem = privilegeProblem(own);
  if (!problem) return { db: database.db, columnsOf: (query) => database.columnsOf(query), close: async () => {} };
  const role = reportingRoleName(config.schema);
  try {
    return await logInAs(app, role);
  } catch (error) {
    throw new RunError(
      `sql: will not run a query as ${own.role}, which ${problem}, and ${errorMessage(error)}; ${WHAT_TO_SET}`,
    );
  }
}

function sessionOptions(app: App) {
  return {
    databaseUrl: app.config.databaseUrl,
    embeddedDbDir: app.config.embeddedDbDir,
    schema: app.config.schema,
    readOnly: true,
    applicationName: 'invoice-mirror sql',
  };
}

/**
 * Makes (or checks) the reporting role and logs in as it: the embedded server trusts its socket;
 * another server gets a one-time password, tried again when another sql set one meanwhile.
 */
async function logInAs(app: App, role: string): Promise<QuerySession> {
  const { database, config } = app;
  const options = { readOnly: true, applicationName: 'invoice-mirror sql' };
  const loginFailed = (error: unknown) =>
    new RunError(`could not log in as its reporting role ${role}: ${errorMessage(error)}`);
  if (database.kind === 'embedded') {
    await prepareReportingRole(database.db, config.schema, role);
    return database.openSession({ user: role }, options).catch((error: unknown) => Promise.reject(loginFailed(error)));
  }
  for (let attempt = 1; ; attempt++) {
    const password = oneTimePassword();
    await prepareReportingRole(database.db, config.schema, role, password);
    try {
      return await database.openSession({ user: role, password }, options);
    } catch (error) {
      if ((error as { code?: string }).code !== BAD_PASSWORD || attempt >= LOGIN_TRIES) throw loginFailed(error);
    } finally {
      await clearPassword(database.db, role).catch(() => undefined);
    }
  }
}
