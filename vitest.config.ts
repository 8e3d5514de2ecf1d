import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The tests whose assertions bound how fast daemons keep accounts fresh: they run after the
 * others, so that the rest of the suite's work does not count against their bounds; the two run
 * beside each other (measured: stalest small account 7.5 s alone, bound 21 s; fleet's hand-over
 * well inside its 53 s).
 */
const ALONE = ['test/daemon/fleet-backfill.test.ts', 'test/daemon/fleet.test.ts'];

/**
 * The longest files of the side-by-side group, in the order they start (measured: 45 to 17 s
 * each, most of it waiting on daemons, servers and clocks). On a fresh clone vitest knows no
 * durations and starts the largest files first; one of these started late is the whole suite's tail.
 */
const LONGEST = [
  'test/exports/export-mirror.test.ts',
  'test/daemon/clock.test.ts',
  'test/foundation/embedded-keeper.test.ts',
  'test/foundation/embedded.test.ts',
  'test/foundation/embedded-lifecycle.test.ts',
  'test/jobs/connection-loss.test.ts',
  'test/daemon/restart.test.ts',
  'test/exports/schematron-compiler.test.ts',
  'test/console/console.test.ts',
];

/** vitest's order (groups, then known durations or sizes), with the longest files of a group first. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST.indexOf(relative(file.project.config.root, file.moduleId));
      return at === -1 ? LONGEST.length : at;
    };
    const groupOf = (file: TestSpecification) => file.project.config.sequence.groupOrder;
    // Array sort is stable: vitest's order holds among files of the same rank.
    return (await super.sort(files)).sort((a, b) => groupOf(a) - groupOf(b) || rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
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
          // A worker runs file after file without reloading the modules (a fresh process per file
          // cost about 80 of the suite's 340 CPU seconds). What src/ keeps in module state is
          // keyed so that files cannot meet there: API gates by service address, runs' unrecorded
          // ends by schema; tests restore the spies, timers and environment they change.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
