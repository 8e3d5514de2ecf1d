/**
 * How a run that fails inside a living process is recorded: at once and with its true cause, not
 * left `running` for the next run to call abandoned. A lost database connection is ended with
 * pg_terminate_backend; a full disk is a trigger that refuses every update of `sync_runs` with
 * Postgres's own error (SQLSTATE 53100) until it is switched off.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import postgres from 'postgres';
import { beforeEach, describe, expect, it } from 'vitest';
import { ABANDONED_PULL, lockHolder } from '../../src/db/index.js';
import { runSync } from '../../src/sync/index.js';
import { useSandbox } from '../support/sandbox.js';
import { testSession, useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({ perEntity: { clients: 60, products: 60 } }, { pageSize: 5 });

const db = () => database.current.handle.db;
const pull = () =>
  runSync(
    testSession({
      db: db(),
      client: env.client,
      accountId: database.current.accountId,
      schema: database.current.schema,
    }),
    {},
    { kind: 'sync', entities: ['clients', 'products'] },
  );

async function runRow(id: number): Promise<{ status: string; error: string | null; finished: boolean }> {
  const row = await db()
    .selectFrom('sync_runs')
    .select(['status', 'error', 'finished_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { status: row.status, error: row.error, finished: row.finished_at !== null };
}

const lastRunId = async () =>
  Number((await db().selectFrom('sync_runs').select('id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow()).id);

/** The backend holding the run's sync lock (the connection the whole run is on). */
async function syncLockHolder(): Promise<number | null> {
  return lockHolder(db(), database.current.accountId, 'sync');
}

async function terminate(pid: number): Promise<void> {
  const admin = postgres(database.current.url, { max: 1, onnotice: () => undefined });
  try {
    await admin`select pg_terminate_backend(${pid})`;
  } finally {
    await admin.end();
  }
}

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; !(await check()); i++) {
    if (i > 2_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

beforeEach(async () => {
  await sql`truncate clients, products, changes, rejected_values, held_deletes, entity_pulls, sync_runs cascade`.execute(
    db(),
  );
  env.sandbox.knobs.latencyMs = 0;
  env.sandbox.clearCalls();
});

describe('a run that fails while its process lives on', () => {
  it('a lost database connection: the run is failed at once, saying the connection was lost', async () => {
    env.sandbox.knobs.latencyMs = 20;
    const running = pull().then(
      () => null,
      (error: unknown) => error as Error,
    );
    await until(() => env.sandbox.calls.length >= 4, 'the pull to be under way');
    const pid = await syncLockHolder();
    expect(pid).not.toBeNull();
    await terminate(pid!);
    const error = await running;
    expect(error?.message).toMatch(/^run \d+ failed: the database connection was lost: /);

    const run = await runRow(await lastRunId());
    expect(run).toMatchObject({ status: 'failed', finished: true });
    expect(run.error).toMatch(/^the database connection was lost: /);
    expect(run.error).not.toMatch(/interrupted|process stopped/);

    env.sandbox.knobs.latencyMs = 0;
    expect((await pull()).status).toBe('succeeded');
  }, 30_000);

  it('a full disk: the end is recorded as soon as the database takes it, with its cause, not as abandoned', async () => {
    await sql`create table disk_full (on_purpose boolean)`.execute(db());
    await sql`
      create function refuse_when_full() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from disk_full) then
          raise exception 'could not extend file "base/16384/2619": No space left on device' using errcode = 'disk_full';
        end if;
        return new;
      end $$`.execute(db());
    await sql`create trigger refuse_when_full before update on sync_runs for each row execute function refuse_when_full()`.execute(
      db(),
    );
    try {
      await sql`insert into disk_full values (true)`.execute(db());
      await expect(pull()).rejects.toThrow(
        /^run \d+ failed: the pull stopped: could not extend file .*No space left on device$/,
      );
      const failedId = await lastRunId();
      expect((await runRow(failedId)).status).toBe('running'); // the database refused every attempt so far

      // Space again: the next run in this process first records the failed run's true end.
      await sql`delete from disk_full`.execute(db());
      const next = await pull();
      expect(next.status).toBe('succeeded');
      const failed = await runRow(failedId);
      expect(failed).toMatchObject({ status: 'failed', finished: true });
      expect(failed.error).toMatch(/^the pull stopped: could not extend file .*No space left on device$/);
      expect(failed.error).not.toBe(ABANDONED_PULL);
    } finally {
      await sql`drop trigger refuse_when_full on sync_runs`.execute(db());
      await sql`drop function refuse_when_full()`.execute(db());
      await sql`drop table disk_full`.execute(db());
    }
  }, 30_000);
});
