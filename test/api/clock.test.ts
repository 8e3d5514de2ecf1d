/**
 * The gate measures its waits on the monotonic clock: a wall clock stepped by hours neither holds
 * the slot for the length of the step nor ends a pause, a budget or the spacing early.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimitedError } from '../../src/api/index.js';
import { AccountGate, type GateOptions } from '../../src/api/gate.js';
import { caught } from './helpers.js';

const HOUR_MS = 3_600_000;
const gates: AccountGate[] = [];

function gate(options: Partial<GateOptions> = {}): AccountGate {
  const created = new AccountGate({
    requestsPerHour: 0,
    rateLimitPauseMs: 800,
    slowDownBelow: 0,
    logger: pino({ level: 'silent' }),
    ...options,
  });
  gates.push(created);
  return created;
}

/** One request through the gate: the slot, the waits before sending, the answer's quota header. */
async function request(g: AccountGate, operation: string, wait: boolean, remaining: number | null): Promise<number> {
  return g.run(operation, wait, async () => {
    await g.beforeSend(operation, wait);
    const sentAt = performance.now();
    g.noteDone(remaining);
    return sentAt;
  });
}

/** Only Date is faked (real timers run); it advances with real time until stepped. */
function fakeWallClock(): void {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
}

afterEach(() => {
  vi.useRealTimers();
  for (const g of gates.splice(0)) g.close();
});

describe('AccountGate under a stepped wall clock', () => {
  it('keeps the slow-down spacing, no longer and no shorter, when the wall clock steps back or forward 2 h', async () => {
    fakeWallClock();
    // One call left of 8: spacing = 800 ms × (8 − 1) / 8² = 87.5 ms.
    const g = gate({ slowDownBelow: 8 });
    let previous = await request(g, 'GET /clients/1', true, 1);
    for (const step of [-2 * HOUR_MS, 2 * HOUR_MS]) {
      vi.setSystemTime(Date.now() + step);
      // Before the fix, the step back made this request wait two hours (the test timed out).
      const sent = await request(g, 'GET /clients/2', true, 1);
      expect(sent - previous).toBeGreaterThanOrEqual(87);
      expect(g.stall).toBeNull();
      previous = sent;
    }
  });

  it('a quota pause lasts its length whichever way the wall clock steps', async () => {
    fakeWallClock();
    const g = gate();
    g.pause('GET /clients/1', 60_000);
    for (const step of [2 * HOUR_MS, -4 * HOUR_MS]) {
      vi.setSystemTime(Date.now() + step);
      // Shown in the new wall time: still at most a minute ahead.
      const shownAhead = g.pausedUntil!.getTime() - Date.now();
      expect(shownAhead).toBeGreaterThan(0);
      expect(shownAhead).toBeLessThanOrEqual(60_000);
      const refused = await caught(request(g, 'GET /clients/2', false, null));
      expect(refused).toBeInstanceOf(RateLimitedError);
      expect((refused as RateLimitedError).retryInMs).toBeGreaterThan(0);
      expect((refused as RateLimitedError).retryInMs).toBeLessThanOrEqual(60_000);
    }
  });

  it('a spent local budget stays spent when the wall clock steps forward 2 h', async () => {
    fakeWallClock();
    const g = gate({ requestsPerHour: 2 });
    await request(g, 'GET /clients/1', false, null);
    await request(g, 'GET /clients/2', false, null);
    vi.setSystemTime(Date.now() + 2 * HOUR_MS);
    const refused = await caught(request(g, 'GET /clients/3', false, null));
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused.message).toMatch(/local budget of 2 requests per hour spent/);
    expect((refused as RateLimitedError).retryInMs).toBeGreaterThan(HOUR_MS - 60_000);
  });
});
