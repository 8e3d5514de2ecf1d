/**
 * Opens the database: Postgres through postgres.js when DATABASE_URL is set, otherwise an
 * embedded PGlite database on disk, created on first use. Either way every query runs with
 * `search_path` set to the mirror schema, so SQL names tables without a schema prefix.
 *
 * Both drivers are set to hand back the same JavaScript types: bigint as number (ids stay far
 * below 2^53), numeric as string (exact money), date as 'YYYY-MM-DD' text (no time-zone shift).
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { PostgresJSDialect } from 'kysely-postgres-js';
import postgres from 'postgres';
import { RunError, errorMessage } from '../errors.js';
import { scrub } from '../log.js';
import { listenResiliently } from './listener.js';
import type { Database } from './schema.js';

const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  embeddedDbDir: string;
  schema: string;
  poolSize?: number;
}

export type Listener = (payload: string) => void;

export interface DatabaseHandle {
  db: Kysely<Database>;
  /** `postgres`: a server reached through DATABASE_URL; `embedded`: PGlite in this process. */
  kind: 'postgres' | 'embedded';
  schema: string;
  /**
   * Subscribe to a NOTIFY channel; resolves to a function that unsubscribes. The subscription
   * survives a lost connection; `onListening` hears every time it listens (again).
   */
  listen(channel: string, onNotify: Listener, onListening?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const handle = options.databaseUrl ? openPostgres(options.databaseUrl, options) : await openEmbedded(options);
  try {
    await sql`select 1`.execute(handle.db);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw new RunError(`cannot connect to the database${describeTarget(options)}: ${scrub(errorMessage(error))}`);
  }
  return handle;
}

function describeTarget(options: DatabaseOptions): string {
  if (!options.databaseUrl) return ` in ${options.embeddedDbDir}`;
  const url = new URL(options.databaseUrl);
  return ` at ${url.hostname}:${url.port || 5432}${url.pathname}`;
}

function openPostgres(databaseUrl: string, options: DatabaseOptions): DatabaseHandle {
  const connectionOptions = {
    connect_timeout: 10,
    onnotice: () => undefined,
    connection: { search_path: `${options.schema}, public`, application_name: 'invoice-mirror' },
  };
  const client = postgres(databaseUrl, {
    ...connectionOptions,
    max: options.poolSize ?? 5,
    types: {
      bigint: {
        to: INT8,
        from: [INT8],
        serialize: (value: number) => String(value),
        parse: (text: string) => Number(text),
      },
      date: { to: DATE, from: [DATE], serialize: (value: string) => value, parse: (text: string) => text },
    },
  });
  const db = new Kysely<Database>({ dialect: new PostgresJSDialect({ postgres: preparingStatements(client) }) });
  return {
    db,
    kind: 'postgres',
    schema: options.schema,
    listen(channel, onNotify, onListening) {
      return listenResiliently(databaseUrl, channel, onNotify, { connection: connectionOptions, onListening });
    },
    async close() {
      await db.destroy();
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
function preparingStatements(client: postgres.Sql): postgres.Sql {
  const prepareByDefault = (reserved: postgres.ReservedSql) =>
    new Proxy(reserved, {
      get: (target, property, receiver) =>
        property === 'unsafe'
          ? (query: string, parameters?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) =>
              target.unsafe(query, parameters, { prepare: true, ...options })
          : Reflect.get(target, property, receiver),
    });
  return new Proxy(client, {
    get: (target, property, receiver) =>
      property === 'reserve'
        ? async () => prepareByDefault(await target.reserve())
        : Reflect.get(target, property, receiver),
  });
}

async function openEmbedded(options: DatabaseOptions): Promise<DatabaseHandle> {
  mkdirSync(options.embeddedDbDir, { recursive: true });
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(options.embeddedDbDir, {
      parsers: {
        [INT8]: (text: string) => Number(text),
        [NUMERIC]: (text: string) => text,
        [DATE]: (text: string) => text,
      },
    });
  } catch (error) {
    throw new RunError(`cannot open the embedded database in ${options.embeddedDbDir}: ${errorMessage(error)}`);
  }
  // PGlite is one connection, so a session setting holds for every query.
  await pglite.exec(`set search_path to ${options.schema}, public`);
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'embedded',
    schema: options.schema,
    async listen(channel, onNotify, onListening) {
      const unlisten = await pglite.listen(channel, onNotify);
      onListening?.();
      return unlisten;
    },
    async close() {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}
