/**
 * Progress as counters that are true: records and pages so far, the records expected once a
 * complete pull has told, and `done` or `failed` at the end; the terminal line says so in words.
 */
import { describe, expect, it } from 'vitest';
import { progressReporter, progressText, runSync, type SyncProgress } from '../../src/sync/index.js';
import { clientFor, useSandbox } from '../support/sandbox.js';
import { testSession, useTestDatabase } from '../support/test-database.js';
import { logger } from '../../src/log.js';

const database = useTestDatabase();
const env = useSandbox({ perEntity: { clients: 45 } });

async function backfill(client = env.client): Promise<SyncProgress[]> {
  const seen: SyncProgress[] = [];
  await runSync(
    testSession({
      db: database.current.handle.db,
      client: client,
      accountId: database.current.accountId,
      schema: database.current.schema,
    }),
    {},
    { kind: 'backfill', entities: ['clients'], onProgress: (p) => seen.push({ ...p }) },
  );
  return seen;
}

describe('pull progress', () => {
  it('counts records and pages, learns the total from a complete pull, and ends done', async () => {
    const paged = clientFor(env.sandbox, { pageSize: 20 });
    try {
      const first = await backfill(paged);
      expect(first.map((p) => [p.fetched, p.pages, p.expected, p.state])).toEqual([
        [20, 1, null, 'pulling'],
        [40, 2, null, 'pulling'],
        [45, 3, null, 'pulling'],
        [45, 3, null, 'done'],
      ]);
      const second = await backfill(paged);
      expect(second.at(-1)).toMatchObject({ fetched: 45, pages: 3, expected: 45, state: 'done' });
      expect(progressText(second[0]!)).toMatch(/^20 of 45 records \(44 %\), 1 page, [\d,]+\/s, \d+\.\d s$/);
    } finally {
      await paged.close();
    }
  });

  it('ends stopped, not failed, when a signal stops it after a page', async () => {
    const paged = clientFor(env.sandbox, { pageSize: 20 });
    const stop = new AbortController();
    const seen: SyncProgress[] = [];
    try {
      await runSync(
        testSession({
          db: database.current.handle.db,
          client: paged,
          accountId: database.current.accountId,
          schema: database.current.schema,
        }),
        {},
        {
          kind: 'backfill',
          entities: ['clients'],
          signal: stop.signal,
          onProgress: (p) => {
            seen.push({ ...p });
            stop.abort();
          },
        },
      );
      expect(seen.map((p) => p.state)).toEqual(['pulling', 'stopped']);
    } finally {
      await paged.close();
    }
  });

  it('ends failed when the list does not end (a refused login), never done', async () => {
    const refused = clientFor(env.sandbox, { apiKey: 'wrong-key' });
    try {
      const seen = await backfill(refused);
      expect(seen.map((p) => p.state)).toEqual(['failed']);
    } finally {
      await refused.close();
    }
  });

  it('on a terminal: one line per entity, redrawn, ending in done or failed', () => {
    let written = '';
    const write = (text: string) => {
      written += text;
      return true;
    };
    const tty = { isTTY: true, write } as unknown as NodeJS.WriteStream;
    const report = progressReporter(tty, logger);
    const base = { entity: 'clients', fetched: 500, pages: 1, expected: 1000, elapsedMs: 1000 } as const;
    report({ ...base, state: 'pulling' });
    report({ ...base, fetched: 1000, pages: 2, state: 'done' });
    report({ ...base, entity: 'products', fetched: 0, pages: 0, expected: null, state: 'failed' });
    expect(written.split('\r\x1b[2K').slice(1)).toEqual([
      'clients             500 of 1,000 records (50 %), 1 page, 500/s, 1.0 s',
      'clients             1,000 of 1,000 records (100 %), 2 pages, 1,000/s, 1.0 s  done\n',
      'products            0 records, 0 pages, 0/s, 1.0 s  failed\n',
    ]);
  });
});
