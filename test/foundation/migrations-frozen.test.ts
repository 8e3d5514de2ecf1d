/**
 * Migrations are history: once one has landed, databases have run it, so its text never changes
 * (a change to the schema is a new migration). Each file's hash is pinned here; a new migration
 * adds its line, in the same change that adds the file.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';

const FROZEN: Record<string, string> = {
  '0001_core.ts': '11fcab0d602148df',
  '0002_mirror.ts': '96234fc5ea3cfd76',
  '0004_reports.ts': '6bb2c09ab74ef9de',
  '0005_status.ts': '81ead45b8572d69f',
  '0006_write_path.ts': '57384f062b0af64d',
  '0007_deleted_index.ts': 'c4808caddbbc5d02',
  '0008_data_safety.ts': '6dbe637dd0a662bf',
  '0009_interrupted_runs.ts': '221357b52f24311b',
};

const sourceDir = new URL('../../migrations/', import.meta.url);

describe('migrations', () => {
  it('a landed migration never changes, and every migration file is listed and pinned', () => {
    const files = readdirSync(sourceDir).filter((name) => /^\d{4}_.*\.ts$/.test(name));
    const hashes = Object.fromEntries(
      files.map((name) => [
        name,
        createHash('sha256')
          .update(readFileSync(new URL(name, sourceDir)))
          .digest('hex')
          .slice(0, 16),
      ]),
    );
    expect(hashes, 'a migration changed or is new: never edit one that landed; pin a new one in FROZEN').toEqual(
      FROZEN,
    );
    expect(migrations.map((m) => `${m.name}.ts`)).toEqual(Object.keys(FROZEN));
  });
});
