import { defineConfig } from 'vitest/config';

/**
 * The tests whose assertions bound how fast daemons keep accounts fresh: they run by themselves,
 * after the others, so that the machine's other work does not count against their bounds.
 */
const ALONE = ['test/daemon/fleet-backfill.test.ts', 'test/daemon/fleet.test.ts', 'test/daemon/clock.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // In-process logs only when something is wrong; CLI tests set their own level.
    env: { LOG_LEVEL: 'warn' },
    projects: [
      {
        extends: true,
        test: {
          name: 'side by side',
          include: ['test/**/*.test.ts'],
          exclude: ALONE,
          // Each file has its own schema; most of their time is spent waiting on the database,
          // the sandbox and child processes, so three at a time on two cores (vitest's default
          // here would be one).
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
