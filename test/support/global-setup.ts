/**
 * Finds the Postgres server the tests run against: DATABASE_URL when set, otherwise a throwaway
 * container through testcontainers when a Docker engine is there, otherwise the program's own
 * embedded server in a throwaway directory. Each test file then makes its own schema (see
 * `test-database.ts`), so files never see each other's rows.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { attachEmbeddedServer, freePort } from '../../src/db/embedded-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

let stopServer: (() => Promise<unknown>) | undefined;

export async function setup(project: TestProject): Promise<void> {
  const url = process.env.DATABASE_URL ?? (dockerAnswers() ? await startContainer() : await startEmbedded());
  project.provide('databaseUrl', url);
}

export async function teardown(): Promise<void> {
  await stopServer?.();
}

/** A Docker engine is there to ask (its socket, or DOCKER_HOST). */
function dockerAnswers(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

async function startContainer(): Promise<string> {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgres:16-alpine').start();
  stopServer = () => container.stop();
  return container.getConnectionUri();
}

/**
 * The program's own embedded PostgreSQL, in a throwaway directory, listening on a free loopback
 * port too so that tests and the processes they start reach it by URL. Durability is off (a test
 * server's data is thrown away) and there are enough connections for files running side by side.
 */
async function startEmbedded(): Promise<string> {
  // Reachable by the server's own user when the tests run as root (mkdtemp makes it private).
  const dir = mkdtempSync(join(tmpdir(), 'invoice-mirror-test-pg-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const server = await attachEmbeddedServer(join(dir, 'db'), {
    create: true,
    tcpPort: port,
    settings: ['max_connections=300', 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off'],
  }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  stopServer = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}
