/**
 * A fresh, migrated mirror schema for one test file on the real Postgres server, dropped when the
 * file is done. Returns the handle plus the settings another process would need to reach it.
 */
import { resolveAccounts } from '../../src/accounts/resolve.js';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Kysely } from 'kysely';
import { migrate, openDatabase, type Database, type DatabaseHandle } from '../../src/db/index.js';
import { DEFAULT_ACCOUNT, ensureDefaultAccount } from '../../src/accounts/store.js';
import { reportingRoleName } from '../../src/db/reporting.js';
import type { InvoicingClient } from '../../src/api/index.js';
import type { PullingSession } from '../../src/accounts/session.js';
import { logger } from '../../src/log.js';
import type { PullSettings } from '../../src/sync/index.js';

export interface TestDatabase {
  handle: DatabaseHandle;
  /** The id of account `default`, which a migrated test schema has (undefined when not migrated). */
  accountId: number;
  url: string;
  schema: string;
  /** Environment for a child process that should use this schema. */
  env: Record<string, string>;
}

/** A session of account `accountId` of a test schema, pulled through `client` (as the account's resolver gives one). */
export function testSession(parts: {
  db: Kysely<Database>;
  client: InvoicingClient;
  accountId: number;
  schema: string;
  name?: string;
}): PullingSession {
  const name = parts.name ?? DEFAULT_ACCOUNT;
  return {
    account: { id: parts.accountId, name },
    db: parts.db,
    schema: parts.schema,
    client: parts.client,
    log: logger.child({ account: name }),
  };
}

/** What runSync needs of a test database and a client: the default account's session, pages written two at a time. */
export function pullOf(database: { current: TestDatabase }, client: InvoicingClient): [PullingSession, PullSettings] {
  const { handle, accountId, schema } = database.current;
  return [testSession({ db: handle.db, client, accountId, schema }), { writeConcurrency: 2 }];
}

export function databaseUrl(): string {
  return inject('databaseUrl');
}

export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** Drops the schema, and the reporting role `sql` made for it (roles are the server's, shared by every test). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const admin = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`drop schema if exists "${schema}" cascade`);
    await admin.unsafe(`drop role if exists "${reportingRoleName(schema)}"`).catch(() => undefined);
  } finally {
    await admin.end();
  }
}

/** Registers beforeAll/afterAll hooks; read `.current` inside tests. */
export function useTestDatabase(options: { migrate?: boolean } = {}): { current: TestDatabase } {
  const box = {} as { current: TestDatabase };
  beforeAll(async () => {
    const url = databaseUrl();
    const schema = uniqueSchema();
    const handle = await openDatabase({ databaseUrl: url, embeddedDbDir: '', schema, poolSize: 4 });
    let accountId = Number.NaN;
    if (options.migrate !== false) {
      await migrate(handle.db, schema);
      await ensureDefaultAccount(handle.db);
      accountId = (await resolveAccounts(handle.db, DEFAULT_ACCOUNT, { one: true })).id;
    }
    box.current = { handle, accountId, url, schema, env: { DATABASE_URL: url, MIRROR_SCHEMA: schema } };
  });
  afterAll(async () => {
    if (!box.current) return;
    await box.current.handle.close();
    await dropSchema(box.current.url, box.current.schema);
  });
  return box;
}

/**
 * A throwaway directory for an embedded database. mkdtemp makes it private; when the tests run as
 * root the server runs as the `postgres` user, which must be able to enter it.
 */
export function embeddedDbParent(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

/** The newest sync run's status and error. */
export async function lastSyncRun(db: Kysely<Database>): Promise<{ status: string; error: string | null }> {
  const [run] = await db.selectFrom('sync_runs').select(['status', 'error']).orderBy('id', 'desc').limit(1).execute();
  return run!;
}
