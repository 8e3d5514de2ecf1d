/**
 * Migrations are history: once one has landed, databases have run it, so its text never changes
 * (a change to the schema is a new migration). Each file's hash is pinned here; a new migration
 * adds its line, in the same change that adds the file. 0001, 0002 and 0004 were pinned again once,
 * when they became literal DDL snapshots instead of code built from live lists: the DDL they run
 * is the same, which test/foundation/upgrade.test.ts checks against a database the release
 * before built. 0012 was pinned again once: a catalog query in it could fail on the planner's
 * choice (a name cast to regclass, tested on another schema's index); the DDL it runs is the same.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';

const FROZEN: Record<string, string> = {
  '0001_core.ts': '59152ddab5b5468f',
  '0002_mirror.ts': '4ad84e0b1137745a',
  '0004_reports.ts': 'c18e016087e062c0',
  '0005_status.ts': '81ead45b8572d69f',
  '0006_write_path.ts': '57384f062b0af64d',
  '0007_deleted_index.ts': 'c4808caddbbc5d02',
  '0008_data_safety.ts': '6dbe637dd0a662bf',
  '0009_interrupted_runs.ts': '221357b52f24311b',
  '0010_invoices.ts': 'cd6160cb7c1a5340',
  '0011_invoice_pdfs.ts': '1bd2de040fcba534',
  '0012_accounts.ts': 'bfbabf2e274321d0',
  '0013_fleet.ts': '4e6698e64c1309e8',
  '0014_pull_cursors.ts': '4feb5e07d8363791',
  '0015_events.ts': '0e313f0cdd9d9390',
  '0016_confinement.ts': 'ce948d5526e3a59c',
  '0017_pulls_parked.ts': '7a336f2db4c95a63',
  '0018_account_service.ts': '1bc04a054bd672cc',
  '0019_vat.ts': 'fe7126338bf099ae',
  '0021_fleet_leader.ts': '00bba975493c70fc',
  '0022_work_due.ts': '38099a4ceb797079',
  '0023_account_checks.ts': '83c62075ec180e0d',
  '0024_account_checks_once.ts': '6f1127fefb6a432e',
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

  it('a migration imports nothing but Kysely, so no later change of live code can change what it does', () => {
    for (const name of readdirSync(sourceDir).filter((file) => /^\d{4}_.*\.ts$/.test(file))) {
      const imports = [...readFileSync(new URL(name, sourceDir), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map(
        (m) => m[1],
      );
      expect(imports, name).toEqual(['kysely']);
    }
  });
});
