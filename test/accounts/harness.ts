/**
 * Runs the command line in this process (src/program.ts's `main`, the code the bundle is made of),
 * with its own environment and standard input, catching what it writes: the `accounts` commands are
 * tested from the sources, so they need no build (cli.test.ts runs the built one as a process).
 */
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { vi } from 'vitest';
import type { Database } from '../../src/db/index.js';
import { main } from '../../src/program.js';
import type { CliResult } from '../support/cli.js';

export async function runInProcess(
  args: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string } = {},
): Promise<CliResult> {
  const saved = { ...process.env };
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const stdin = vi.spyOn(process, 'stdin', 'get').mockReturnValue(Readable.from([options.stdin ?? '']) as never);
  try {
    process.exitCode = undefined;
    const code = await main('test', ['node', 'invoice-mirror', ...args]);
    return { code, stdout, stderr };
  } finally {
    process.exitCode = undefined;
    out.mockRestore();
    err.mockRestore();
    stdin.mockRestore();
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

/** The account's id, by name. */
export async function accountId(db: Kysely<Database>, name: string): Promise<number> {
  const row = await db.selectFrom('accounts').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  return Number(row.id);
}
