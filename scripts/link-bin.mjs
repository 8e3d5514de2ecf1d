// Makes `npx invoice-mirror …` work inside a clone of this repository: npm links the bins of
// dependencies into node_modules/.bin, but never the project's own. Run by `npm run prepare`
// (after the build), so `npm ci` leaves the command ready.
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'dist', 'cli', 'cli.js');
const binDir = join(root, 'node_modules', '.bin');
const link = join(binDir, 'invoice-mirror');

if (!existsSync(target)) {
  console.error('link-bin: dist/cli/cli.js is missing; run the build first');
  process.exit(1);
}
chmodSync(target, 0o755);
mkdirSync(binDir, { recursive: true });
rmSync(link, { force: true });
symlinkSync(relative(binDir, target), link);
