/** Checks on the repository's own sources, each by the script that a developer runs by hand. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function script(...args: string[]): { code: number | null; stdout: string } {
  const result = spawnSync(process.execPath, args, { cwd: new URL('../..', import.meta.url), encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout + result.stderr };
}

describe('the repository', () => {
  it("README's settings table is the one src/settings.ts makes", () => {
    // On a difference the script prints the table the README should hold.
    expect(script('scripts/settings-table.mjs', '--check')).toEqual({ code: 0, stdout: '' });
  });

  it('src/ has no import cycle', () => {
    expect(script('scripts/import-cycles.mjs', 'src')).toEqual({ code: 0, stdout: 'no import cycles in src/\n' });
  });
});
