// `npm ci` and `npm install` run this (the prepare script): it builds unless dist/ is newer than
// every source, then links the command. `npx invoice-mirror` inside the clone installs the project
// into npx's cache on its first call, which runs prepare again; with dist/ up to date that costs
// nothing instead of a 7 s rebuild.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'cli', 'cli.js');

/** The newest modification time under the paths (files and directories, recursively). */
function newest(paths) {
  let latest = 0;
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const stat = statSync(path);
    if (stat.isDirectory()) latest = Math.max(latest, newest(readdirSync(path).map((name) => join(path, name))));
    else latest = Math.max(latest, stat.mtimeMs);
  }
  return latest;
}

const sources = ['src', 'migrations', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'].map((p) =>
  join(root, p),
);
if (!existsSync(built) || newest(sources) > statSync(built).mtimeMs) {
  const build = spawnSync('npm', ['run', 'build'], {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  process.exit(build.status ?? 1);
}
const link = spawnSync(process.execPath, [join(root, 'scripts', 'link-bin.mjs')], { cwd: root, stdio: 'inherit' });
process.exit(link.status ?? 1);
