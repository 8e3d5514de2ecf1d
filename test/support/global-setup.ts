/**
 * Finds the Postgres server the tests run against: DATABASE_URL when set, otherwise a throwaway
 * container through testcontainers when a Docker engine answers. Each test file then makes its
 * own schema (see `test-database.ts`), so files never see each other's rows.
 */
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

let stopContainer: (() => Promise<unknown>) | undefined;

export async function setup(project: TestProject): Promise<void> {
  let url = process.env.DATABASE_URL;
  if (!url) {
    try {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:16-alpine').start();
      stopContainer = () => container.stop();
      url = container.getConnectionUri();
    } catch (error) {
      throw new Error(
        'The tests need a real Postgres server. Set DATABASE_URL (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm test), ' +
          `or run a Docker engine for testcontainers (it failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}).`,
      );
    }
  }
  project.provide('databaseUrl', url);
}

export async function teardown(): Promise<void> {
  await stopContainer?.();
}
