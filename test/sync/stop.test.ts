/**
 * How one entity's pull stopped (sync/stop.ts), what its problems say (problemsOf), and the
 * read-ahead/conclude-behind pieces of a run (sync/pipeline.ts): pure, no database.
 */
import { describe, expect, it } from 'vitest';
import { AuthenticationError, NetworkError, RateLimitedError } from '../../src/api/index.js';
import { problemsOf } from '../../src/sync/entity-pull.js';
import type { Reading } from '../../src/sync/entity-read.js';
import { Ahead, Behind } from '../../src/sync/pipeline.js';
import { failureOf, progressState, readToEnd, stopOf, stopsRun, type Stop } from '../../src/sync/stop.js';

const reading = (stop: Stop, more: Partial<Reading> = {}): Reading => ({
  stop,
  counts: { fetched: 10, inserted: 0, updated: 0, restored: 0, unchanged: 10, rejected: 0 },
  pages: 2,
  seen: new Set([1, 2]),
  unidentified: 0,
  unresolved: 0,
  learnedCap: null,
  ...more,
});

describe('a pull’s stop', () => {
  it('is read to its end only when its lists ended (a shifted pass only when it then finished)', () => {
    expect(readToEnd({ kind: 'end' })).toBe(true);
    expect(readToEnd({ kind: 'shifted', finished: true })).toBe(true);
    expect(readToEnd({ kind: 'shifted', finished: false })).toBe(false);
    expect(readToEnd({ kind: 'gaveWay', reason: 'a job waits', pages: 3 })).toBe(false);
    expect(readToEnd({ kind: 'interrupted' })).toBe(false);
    expect(readToEnd({ kind: 'unfinished', warnings: [] })).toBe(false);
  });

  it('tells from the error whether the run ends, the account is refused or a connection was lost', () => {
    const refused = stopOf('clients', new AuthenticationError({ operation: 'GET /clients', status: 401 }));
    expect(refused.kind).toBe('refused');
    expect(stopsRun(refused)).toBe(true);
    expect(failureOf(refused)).toMatch(/^clients: /);
    const quota = stopOf('clients', new RateLimitedError(new Date(), { operation: 'GET /clients', status: 429 }));
    expect(quota).toMatchObject({ kind: 'failed', stopRun: true });
    const unreachable = stopOf(
      'clients',
      new NetworkError({ operation: 'GET /clients', detail: 'refused', cause: null, transport: 'connect' }),
    );
    expect(stopsRun(unreachable)).toBe(true);
    const lost = stopOf('clients', Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' }));
    expect(lost.kind).toBe('connectionLost');
    expect(stopsRun(lost)).toBe(false);
    expect(stopOf('clients', new Error('a bug'))).toEqual({ kind: 'failed', error: 'clients: a bug', stopRun: false });
  });

  it('says done, stopped or failed in the progress', () => {
    expect(progressState({ kind: 'end' }, false)).toBe('done');
    expect(progressState({ kind: 'gaveWay', reason: 'slice over', pages: 1 }, false)).toBe('stopped');
    expect(progressState({ kind: 'interrupted' }, true)).toBe('stopped');
    expect(progressState({ kind: 'failed', error: 'x: y', stopRun: false }, true)).toBe('stopped');
    expect(progressState({ kind: 'failed', error: 'x: y', stopRun: false }, false)).toBe('failed');
  });

  it('gives one problem for how it stopped, then the ones of what it read and concluded', () => {
    expect(
      problemsOf('clients', reading({ kind: 'end' }), { deleted: 0, held: 0, complete: true, issuesBefore: 0 }),
    ).toEqual([]);
    expect(problemsOf('clients', reading({ kind: 'gaveWay', reason: 'a job waits', pages: 2 }), null)).toEqual([
      'gave way after 2 page(s) (a job waits); the pull goes on from there',
    ]);
    expect(problemsOf('clients', reading({ kind: 'shifted', finished: true }), null)[0]).toMatch(
      /the list changed while the pull was away.*nothing is marked deleted until the next complete pass/,
    );
    expect(problemsOf('clients', reading({ kind: 'unfinished', warnings: ['cut short'] }), null)).toEqual([
      'the list did not end cleanly (cut short)',
    ]);
    expect(problemsOf('clients', reading({ kind: 'end' }, { unidentified: 2, unresolved: 1 }), null)).toEqual([
      '2 record(s) without a readable id; nothing is marked deleted',
      '1 record(s) the mirror holds as open were not found upstream; they stay until the next pull, a full one, confirms',
    ]);
    const held = problemsOf('clients', reading({ kind: 'end' }), {
      deleted: 0,
      held: 3,
      complete: false,
      issuesBefore: 4,
    });
    expect(held).toHaveLength(2);
    expect(held[1]).toMatch(/^4 value\(s\) stored other than as sent by an earlier pull/);
  });
});

describe('read ahead, conclude behind', () => {
  it('takes what was begun ahead once, and a failure of it as nothing', async () => {
    const ahead = new Ahead<number>();
    expect(await ahead.take()).toBeUndefined();
    ahead.begin(
      async () => 1,
      () => {},
    );
    ahead.begin(
      async () => 2,
      () => {},
    ); // one at a time: the first stays
    expect(await ahead.take()).toBe(1);
    const errors: unknown[] = [];
    ahead.begin(
      async () => Promise.reject(new Error('no plan')),
      (error) => errors.push(error),
    );
    expect(await ahead.take()).toBeUndefined();
    expect(errors).toHaveLength(1);
  });

  it('takes a conclusion behind in order, and fails only after what came first is stored', async () => {
    const behind = new Behind<string>();
    const taken: string[] = [];
    behind.begin(Promise.resolve('clients'), async (name) => {
      taken.push(name);
    });
    await behind.settle();
    await behind.settle(); // nothing left
    expect(taken).toEqual(['clients']);
    const order: string[] = [];
    behind.begin(Promise.reject(new Error('sweep failed')), async () => {});
    const stored = new Promise<void>((resolve) => setTimeout(resolve, 10)).then(() => order.push('stored'));
    await expect(behind.settle(stored).finally(() => order.push('failed'))).rejects.toThrow('sweep failed');
    expect(order).toEqual(['stored', 'failed']);
  });
});
