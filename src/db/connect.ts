/**
 * Opens the database through postgres.js: the server DATABASE_URL names, otherwise the embedded
 * PostgreSQL server of EMBEDDED_DB_DIR, held through its keeper for as long as the handle is open
 * (see `embedded-server.ts`; the keeper starts it when it is not running).
 * Either way every query runs with `search_path` set to the mirror schema, so SQL names tables
 * without a schema prefix.
 *
 * The driver hands back bigint as number (ids stay far below 2^53), numeric as string (exact
 * money), date as 'YYYY-MM-DD' text (no time-zone shift).
 */
import { Kysely, sql } from 'kysely';
import { PostgresJSDialect } from 'kysely-postgres-js';
import postgres from 'postgres';
import { RunError, errorMessage } from '../errors.js';
import { registerSecret, scrub } from '../log.js';
import { attachEmbeddedServer, type EmbeddedServer, type ServerConnection } from './embedded-server.js';
import { listenResiliently } from './listener.js';
import { EVENTS_ON_BACKFILL_SETTING } from './event-triggers.js';
import { checkIsPostgres } from './probe.js';
import type { Database } from './schema.js';

const INT8 = 20;
const DATE = 1082;

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  /** What the sessions are called in pg_stat_activity (default `invoice-mirror`). */
  applicationName?: string;
  embeddedDbDir: string;
  schema: string;
  poolSize?: number;
  /** Create the embedded database when there is none (commands that migrate); default true. */
  create?: boolean;
  /** EMBEDDED_DB_IDLE_STOP: how long the embedded server runs on after the last command (its keeper's setting). */
  embeddedIdleStopMs?: number;
  /** Every transaction of every session is read-only (the `sql` command). */
  readOnly?: boolean;
  /** EVENTS_ON_BACKFILL: a pull that fills an empty mirror writes events too (src/db/event-triggers.ts). */
  eventsOnBackfill?: boolean;
}

export type Listener = (payload: string) => void;

export interface DatabaseHandle {
  db: Kysely<Database>;
  /** `postgres`: a server reached through DATABASE_URL; `embedded`: the embedded server. */
  kind: 'postgres' | 'embedded';
  /** Where the data is, for messages: host, port and database, or the embedded data directory. */
  location: string;
  schema: string;
  /**
   * Subscribe to a NOTIFY channel; resolves to a function that unsubscribes. The subscription
   * survives a lost connection; `onListening` hears every time it listens (again).
   */
  listen(channel: string, onNotify: Listener, onListening?: () => void): Promise<() => Promise<void>>;
  /**
   * On the embedded database, this process's hold on its server (see embedded-server.ts): who
   * holds it (`status`), news of restarts (the daemon). Undefined on a server DATABASE_URL names.
   */
  embedded: EmbeddedServer | undefined;
  /** The names of the columns a query returns, without running it (a header for an empty result). */
  columnsOf(query: string): Promise<string[]>;
  /** A session of its own on the same server and database, logged in as `login.user` (the `sql` command's). */
  openSession(
    login: SessionLogin,
    options?: Partial<Pick<DatabaseOptions, 'readOnly' | 'applicationName'>>,
  ): Promise<QuerySession>;
  close(): Promise<void>;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  let server: EmbeddedServer | undefined;
  let target: string | ServerConnection;
  let location: string;
  if (options.databaseUrl) {
    target = options.databaseUrl;
    location = describeUrl(options.databaseUrl);
    await checkIsPostgres(options.databaseUrl);
  } else {
    server = await attachEmbeddedServer(options.embeddedDbDir, {
      create: options.create ?? true,
      idleStopMs: options.embeddedIdleStopMs,
    });
    target = server.connection;
    location = `the embedded database in ${server.dataDir}`;
  }
  const handle = openPostgres(target, options, server, location);
  try {
    await sql`select 1`.execute(handle.db);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw new RunError(`cannot connect to ${location}: ${scrub(errorMessage(error))}${connectHint(error)}`);
  }
  return handle;
}

/** What to do about a refusal whose remedy is known: a database that does not exist yet. */
function connectHint(error: unknown): string {
  const missing = /database "([^"]+)" does not exist/.exec(errorMessage(error));
  return missing ? `; create it (createdb ${missing[1]}, or CREATE DATABASE "${missing[1]}") or fix DATABASE_URL` : '';
}

function describeUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `the database at ${url.hostname}:${url.port || 5432}${url.pathname}`;
  } catch {
    return 'the database DATABASE_URL names';
  }
}

/** The settings of every session: the mirror's search_path, and what the options ask for. */
function connectionOptionsOf(options: DatabaseOptions) {
  return {
    connect_timeout: 10,
    // Reconnect tries at most 2 s apart (the driver's own backoff grows to 20 s), so work resumes
    // within seconds of the database's return.
    backoff: (retries: number) => Math.min(0.1 * 2 ** retries, 2),
    onnotice: () => undefined,
    connection: {
      search_path: `${options.schema}, public`,
      // A daemon names itself, so that a daemon taking over its accounts can end its sessions.
      application_name: options.applicationName ?? 'invoice-mirror',
      // The mirror's statements are short; compiling one to machine code (which Postgres does once
      // its estimated cost passes jit_above_cost, as counting a large mirror's rows does) takes
      // longer than running it: `status` spent over a second in it.
      jit: 'off',
      // A session that is itself read-only: `commit; delete ...` cannot start a writing transaction.
      ...(options.readOnly ? { default_transaction_read_only: true } : {}),
      // Read by the events trigger, which runs in the database and cannot see the settings.
      ...(options.eventsOnBackfill ? { [EVENTS_ON_BACKFILL_SETTING]: 'on' } : {}),
    },
  };
}

function poolOptionsOf(options: DatabaseOptions) {
  return {
    ...connectionOptionsOf(options),
    max: options.poolSize ?? 5,
    types: {
      bigint: {
        to: INT8,
        from: [INT8],
        serialize: (value: number) => String(value),
        // Exact: a value past 2^53 (never an id; a sum or a literal in `sql`) stays text.
        parse: (text: string) => (Number.isSafeInteger(Number(text)) ? Number(text) : text),
      },
      date: { to: DATE, from: [DATE], serialize: (value: string) => value, parse: (text: string) => text },
    },
  };
}

function kyselyOf(pool: postgres.Sql, readOnly: boolean): Kysely<Database> {
  return new Kysely<Database>({ dialect: new PostgresJSDialect({ postgres: preparingStatements(pool, readOnly) }) });
}

/** A session of its own on a server (the `sql` command's, as a role that may only read). */
export interface QuerySession {
  db: Kysely<Database>;
  /** The names of the columns a query returns, without running it. */
  columnsOf(query: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Who a session logs in as: a role of the same server, or another URL altogether. */
export interface SessionLogin {
  user?: string;
  password?: string;
}

/**
 * Opens one connection and asks `select 1` (so a refused login fails here). The password, if any,
 * is registered with the log's scrubber first.
 */
async function openSessionOn(
  target: string | ServerConnection,
  login: SessionLogin,
  options: DatabaseOptions,
): Promise<QuerySession> {
  registerSecret(login.password);
  const sessionOptions = {
    ...poolOptionsOf({ ...options, poolSize: 1 }),
    ...(login.user ? { user: login.user } : {}),
    ...(login.password !== undefined ? { password: login.password } : {}),
  };
  const client =
    typeof target === 'string' ? postgres(target, sessionOptions) : postgres({ ...target, ...sessionOptions });
  const db = kyselyOf(client, options.readOnly === true);
  const session = {
    db,
    columnsOf: async (query: string) =>
      ((await client.unsafe(query).describe()).columns ?? []).map((column) => column.name),
    close: async () => {
      await client.end({ timeout: 10 });
      await db.destroy();
    },
  };
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await session.close().catch(() => undefined);
    throw error;
  }
  return session;
}

/** A session on the server a URL names (SQL_DATABASE_URL). */
export function openUrlSession(url: string, options: DatabaseOptions): Promise<QuerySession> {
  return openSessionOn(url, {}, options);
}

function openPostgres(
  target: string | ServerConnection,
  options: DatabaseOptions,
  server: EmbeddedServer | undefined,
  location: string,
): DatabaseHandle {
  const connectionOptions = connectionOptionsOf(options);
  const poolOptions = poolOptionsOf(options);
  const client = typeof target === 'string' ? postgres(target, poolOptions) : postgres({ ...target, ...poolOptions });
  const db = kyselyOf(client, options.readOnly === true);
  return {
    db,
    kind: server ? 'embedded' : 'postgres',
    location,
    schema: options.schema,
    listen: sharedListeners((channel, onNotify, onListening) =>
      listenResiliently(target, channel, onNotify, { connection: connectionOptions, onListening }),
    ),
    embedded: server,
    async columnsOf(query) {
      const described = await client.unsafe(query).describe();
      return (described.columns ?? []).map((column) => column.name);
    },
    openSession: (login, sessionOptions) => openSessionOn(target, login, { ...options, ...sessionOptions }),
    async close() {
      // Queries still running get 10 s; then the connections are cut, so closing never hangs.
      await client.end({ timeout: 10 });
      await db.destroy();
      await server?.close();
    },
  };
}

/**
 * The dialect runs every query through postgres.js's `unsafe`, which does not prepare statements
 * by default. An unprepared query with parameters costs two round trips: Parse and Describe, then
 * (once this process gets round to the answer) Bind and Execute; a sync's page write waited that
 * long with the page still here. Prepared, as postgres.js does for its own tagged queries, a
 * query's second and later runs on a connection are one round trip, and the server neither parses
 * nor (after a few runs) plans them again. postgres.js re-prepares a statement that a schema change
 * invalidated.
 */
function preparingStatements(client: postgres.Sql, oneStatementOnly: boolean): postgres.Sql {
  // A query without parameters goes by the simple protocol, which runs several statements; the
  // extended one refuses them, which the read-only `sql` command wants (one statement only).
  const protocol = oneStatementOnly ? { simple: false } : {};
  const prepareByDefault = (reserved: postgres.ReservedSql) =>
    new Proxy(reserved, {
      get: (target, property, receiver) =>
        property === 'unsafe'
          ? (query: string, parameters?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) =>
              target.unsafe(query, parameters, { prepare: true, ...protocol, ...options })
          : Reflect.get(target, property, receiver),
    });
  return new Proxy(client, {
    get: (target, property, receiver) =>
      property === 'reserve'
        ? async () => prepareByDefault(await reserveWithin(target, RESERVE_TIMEOUT_MS))
        : Reflect.get(target, property, receiver),
  });
}

/** How long a query may wait for a connection of the pool. */
const RESERVE_TIMEOUT_MS = 10_000;

/**
 * A connection of the pool, or an error after `ms`: postgres.js 3.4.9 can leave a waiting
 * reserve() unsettled for good when the server ends the connection it waits for
 * (porsager/postgres#1195), which would hang whatever waits on it (a daemon's work on an account).
 * A connection that comes after all is given back at once.
 */
function reserveWithin(client: postgres.Sql, ms: number): Promise<postgres.ReservedSql> {
  const reserving = client.reserve();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void reserving.then((late) => late.release()).catch(() => undefined);
      const error = new Error(`no database connection came within ${ms / 1000} s`);
      Object.assign(error, { code: 'CONNECTION_CLOSED' });
      reject(error);
    }, ms);
    timer.unref();
  });
  return Promise.race([reserving, timeout]).finally(() => clearTimeout(timer));
}

type Listen = DatabaseHandle['listen'];

/**
 * One listening connection per channel, whoever subscribes: the job runners of a hundred
 * accounts share one, instead of holding a hundred connections to hear the same NOTIFY. The
 * connection closes when its last subscriber leaves.
 */
function sharedListeners(open: Listen): Listen {
  interface Shared {
    subscribers: Set<{ onNotify: Listener; onListening?: () => void }>;
    unlisten: Promise<() => Promise<void>>;
  }
  const channels = new Map<string, Shared>();
  return async (channel, onNotify, onListening) => {
    const subscriber = { onNotify, onListening };
    let shared = channels.get(channel);
    if (shared) {
      shared.subscribers.add(subscriber);
      onListening?.();
    } else {
      const subscribers = new Set([subscriber]);
      const unlisten = open(
        channel,
        (payload) => {
          for (const s of subscribers) s.onNotify(payload);
        },
        () => {
          for (const s of subscribers) s.onListening?.();
        },
      );
      shared = { subscribers, unlisten };
      channels.set(channel, shared);
    }
    await shared.unlisten;
    const joined = shared;
    return async () => {
      joined.subscribers.delete(subscriber);
      if (joined.subscribers.size > 0 || channels.get(channel) !== joined) return;
      channels.delete(channel);
      await (await joined.unlisten)();
    };
  };
}
