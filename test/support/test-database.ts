/**
 * A fresh, migrated mirror schema for one test file on the real Postgres server, dropped when the
 * file is done. Returns the handle plus the settings another process would need to reach it.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Kysely } from 'kysely';
import { migrate, openDatabase, type Database, type DatabaseHandle } from '../../src/db/index.js';
import { accountNamed, DEFAULT_ACCOUNT, ensureDefaultAccount } from '../../src/accounts/store.js';
import type { InvoicingClient } from '../../src/api/index.js';

export interface TestDatabase {
  handle: DatabaseHandle;
  /** The id of account `default`, which a migrated test schema has (undefined when not migrated). */
  accountId: number;
  url: string;
  schema: string;
  /** Environment for a child process that should use this schema. */
  env: Record<string, string>;
}

/** What runSync needs of a test database and a client: the default account, written two pages at a time. */
export function syncDepsOf(database: { current: TestDatabase }, client: InvoicingClient) {
  return {
    db: database.current.handle.db,
    client,
    accountId: database.current.accountId,
    schema: database.current.schema,
    writeConcurrency: 2,
  };
}

export function databaseUrl(): string {
  return inject('databaseUrl');
}

export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  const admin = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`drop schema if exists "${schema}" cascade`);
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
      accountId = (await accountNamed(handle.db, DEFAULT_ACCOUNT)).id;
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
