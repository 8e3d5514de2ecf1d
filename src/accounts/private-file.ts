/**
 * Files that hold credentials (a CSV of API keys, the master secret) must be their owner's alone:
 * a file others may read is refused, with the chmod that mends it (POSIX modes; Windows has none
 * to check).
 */
import { statSync } from 'node:fs';
import { UsageError } from '../errors.js';

/**
 * A UsageError when `file` cannot be read, or when its group or others have any access to it.
 * `holds` completes "… and it holds …".
 */
export function checkPrivateFile(file: string, holds = 'API keys', platform: NodeJS.Platform = process.platform): void {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch (error) {
    throw new UsageError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (platform !== 'win32' && (mode & 0o077) !== 0)
    throw new UsageError(
      `${file}: others may read it (mode ${(mode & 0o777).toString(8)}) and it holds ${holds}; chmod 600 ${file} first`,
    );
}
