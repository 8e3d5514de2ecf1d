/**
 * When an account's pulls should wait for its hourly budget (AccountGate.pullsWait, which the
 * fleet parks the account by): after a quota 403, until the pause ends, for all its work; with
 * the local budget spent down to the requests kept for actions, until half of it is free again
 * (the window forgets its oldest requests first), for its pulls only; with the service's
 * X-RateLimit-Remaining that low, for the quota pause; otherwise not at all.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { AccountGate } from '../../src/api/gate.js';

const HOUR_MS = 3_600_000;

function gate(requestsPerHour: number, rateLimitPauseMs = 900_000): AccountGate {
  return new AccountGate({ requestsPerHour, rateLimitPauseMs, slowDownBelow: 0, logger: pino({ level: 'silent' }) });
}

/** Sends `n` requests through the gate; returns the wall-clock window of each send. */
async function send(g: AccountGate, n: number): Promise<{ before: number; after: number }[]> {
  const times: { before: number; after: number }[] = [];
  for (let i = 0; i < n; i++) {
    const before = Date.now();
    await g.beforeSend(`GET /clients/${i}`, false);
    times.push({ before, after: Date.now() });
    g.noteDone(null);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return times;
}

describe('AccountGate.pullsWait', () => {
  it('no wait while the budget has more left than is kept for actions', async () => {
    const g = gate(10);
    await send(g, 7);
    expect(g.pullsWait(2)).toBeNull();
    g.close();
  });

  it('the local budget spent down to the reserve: its pulls wait until half of it is free again', async () => {
    const limit = 10;
    const keep = 3;
    const g = gate(limit);
    const times = await send(g, limit - keep);
    const wait = g.pullsWait(keep)!;
    expect(wait.all).toBe(false);
    // Half of the budget (5, more than the 3 kept) is free once the 5 oldest of the 7 sends are an hour old.
    const wanted = Math.max(keep + 1, Math.ceil(limit / 2));
    const freed = wanted - (limit - times.length);
    const nth = times[freed - 1]!;
    expect(wait.until.getTime()).toBeGreaterThanOrEqual(nth.before + HOUR_MS - 5);
    expect(wait.until.getTime()).toBeLessThanOrEqual(nth.after + HOUR_MS + 5);
    expect(wait.why).toBe(
      `its hourly budget of ${limit} requests (REQUESTS_PER_HOUR) is spent down to the ${keep} kept for actions, and ${wanted} are free again then`,
    );
    g.close();
  });

  it('a reserve as large as the budget waits for the whole of it', async () => {
    const g = gate(4);
    const times = await send(g, 4);
    const wait = g.pullsWait(6)!;
    expect(wait.until.getTime()).toBeGreaterThanOrEqual(times[3]!.before + HOUR_MS - 5);
    expect(wait.until.getTime()).toBeLessThanOrEqual(times[3]!.after + HOUR_MS + 5);
    g.close();
  });

  it('after a quota 403, all its work waits until the pause ends', () => {
    const g = gate(0);
    const until = g.pause('GET /clients', 60_000);
    expect(g.pullsWait(0)).toEqual({ until, all: true, why: 'its hourly quota was spent (403)' });
    g.close();
  });

  it("the service's X-RateLimit-Remaining down to the reserve: its pulls wait for the quota pause", () => {
    const pauseMs = 120_000;
    const g = gate(0, pauseMs);
    g.noteDone(4);
    const before = Date.now();
    const wait = g.pullsWait(5)!;
    expect(wait.all).toBe(false);
    expect(wait.until.getTime() - before).toBeGreaterThanOrEqual(pauseMs - 5);
    expect(wait.until.getTime() - before).toBeLessThanOrEqual(pauseMs + 50);
    expect(wait.why).toMatch(/^the service says only 4 requests are left this hour/);
    g.noteDone(6);
    expect(g.pullsWait(5)).toBeNull();
    g.close();
  });
});
