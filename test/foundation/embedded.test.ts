import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { jsonb, migrate, openDatabase } from '../../src/db/index.js';

const dir = mkdtempSync(join(tmpdir(), 'im-pglite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('embedded PGlite database', () => {
  it('migrates, round-trips a job and keeps it across a reopen', async () => {
    const options = { databaseUrl: undefined, embeddedDbDir: join(dir, 'db'), schema: 'invoicing' };
    const first = await openDatabase(options);
    expect(first.kind).toBe('embedded');
    expect(await migrate(first.db, 'invoicing')).toEqual(migrations.map((m) => m.name));
    expect(await migrate(first.db, 'invoicing')).toEqual([]);
    const inserted = await first.db
      .insertInto('jobs')
      .values({ kind: 'set_product_stock', payload: jsonb({ id: 7, stock: 2.5 }) })
      .returning(['id'])
      .executeTakeFirstOrThrow();
    expect(typeof inserted.id).toBe('number');
    await first.close();

    const second = await openDatabase(options);
    const job = await second.db.selectFrom('jobs').selectAll().where('id', '=', inserted.id).executeTakeFirstOrThrow();
    expect(job.payload).toEqual({ id: 7, stock: 2.5 });
    expect(job.status).toBe('queued');
    expect(job.errors).toEqual([]);
    await second.close();
  });
});
