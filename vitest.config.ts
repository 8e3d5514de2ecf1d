import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // In-process logs only when something is wrong; CLI tests set their own level.
    env: { LOG_LEVEL: 'warn' },
  },
});
