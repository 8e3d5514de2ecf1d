/** The version of invoice-mirror, from its package.json. */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  // dist/cli/cli.js (the bundle), dist/src/*.js and src/*.ts sit at different depths below package.json.
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'invoice-mirror' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}
