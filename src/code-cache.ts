/**
 * Runs the command line's bundle (one CommonJS file, dist/cli/main.cjs) with the code V8 compiled
 * for it kept on disk between runs.
 *
 * Why our own, in about 50 lines: Node 20 has no compile cache (22.1 added one), and the
 * package that gives one to Node 20 (v8-compile-cache) keeps only the code compiled before the
 * bundle runs. V8's cache made after a command ran (`createCachedData`) also holds the functions
 * it compiled on the way. Most of what it saves is the first parse of the 4.5 MB bundle, so one
 * cache serves every command (`config` started as quickly from the cache `status` made as from its
 * own). Measured on a 2-core VM, Node 20: `status` 490 → 410 ms of CPU (medians of 15).
 *
 * The cache lives in the system's temporary directory, in a directory of this user's that no one
 * else may write (another user's code there would run as this one); a cache is used only for the
 * bundle it was made from (its SHA-256, written by the build beside it) and V8 refuses one made by
 * another V8 or under other flags, so the heap's flags are set before (cli.ts).
 * NODE_DISABLE_COMPILE_CACHE=1, Node's own switch for its cache, turns it off.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * What the build writes around the bundle's CommonJS code (scripts/build.mjs), as Node wraps a
 * module: the file is then one function expression, compiled as it is read (wrapped here, the copy
 * was 4.5 MB more of every command's memory).
 */
export const BUNDLE_WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})'] as const;

/** Runs `bundle` (a CommonJS module in BUNDLE_WRAPPER) as this process's program. */
export function runBundle(bundle: string): void {
  const cache = cacheOf(bundle);
  const cachedData = cache ? readIfThere(join(cache.dir, cache.file)) : undefined;
  const script = new Script(readFileSync(bundle, 'utf8'), { filename: bundle, cachedData });
  if (cache && (!cachedData || script.cachedDataRejected)) process.once('exit', () => keep(cache, script));
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
}

interface Cache {
  dir: string;
  /** The bundle's build: the first 16 hex digits of its SHA-256, which begin the names of its caches. */
  build: string;
  file: string;
}

/** Where the cache of `bundle` is, or undefined when there is to be none. */
function cacheOf(bundle: string): Cache | undefined {
  const uid = process.getuid?.();
  if (process.env.NODE_DISABLE_COMPILE_CACHE === '1' || uid === undefined) return undefined;
  const build = readIfThere(`${bundle}.sha256`)?.toString('utf8').trim().slice(0, 16);
  const dir = ownDirectory(join(tmpdir(), `invoice-mirror-code-cache-${uid}`), uid);
  if (!build || !dir) return undefined;
  return { dir, build, file: `${build}-${process.version}.v8` };
}

/** `dir`, made if missing, when it is user `uid`'s and no one else may write to it. */
function ownDirectory(dir: string, uid: number): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o022) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Other builds' caches are removed when they are older than this (two builds used in turn keep theirs). */
const STALE_MS = 24 * 60 * 60 * 1000;

/** Writes the script's cache (whole, by renaming), and removes other builds' stale caches. */
function keep({ dir, build, file }: Cache, script: Script): void {
  try {
    const partial = join(dir, `${file}.${process.pid}`);
    writeFileSync(partial, script.createCachedData());
    renameSync(partial, join(dir, file));
    for (const other of readdirSync(dir)) {
      const path = join(dir, other);
      if (!other.startsWith(build) && Date.now() - lstatSync(path).mtimeMs > STALE_MS) rmSync(path, { force: true });
    }
  } catch {
    // A cache is only a shortcut: without it the next run compiles again.
  }
}
