/**
 * The command line's compiled code, kept between runs (src/code-cache.ts): in a directory of the
 * user's own under the temporary directory, one file per build of the bundle and Node version,
 * used by the next run (not written again), replaced when V8 refuses it, and never read from a
 * directory someone else may write to.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../support/cli.js';

const BUNDLE = join(dirname(CLI_PATH), 'main.cjs');
const temporaries: string[] = [];
afterAll(() => {
  for (const dir of temporaries) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory for the command (TMPDIR), and where its cache directory would be. */
function fresh(): { env: { TMPDIR: string }; cacheDir: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'invoice-mirror-code-cache-test-'));
  temporaries.push(tmp);
  return { env: { TMPDIR: tmp }, cacheDir: join(tmp, `invoice-mirror-code-cache-${process.getuid!()}`) };
}

const build = () => readFileSync(`${BUNDLE}.sha256`, 'utf8').trim().slice(0, 16);
const cacheName = () => `${build()}-${process.version}.v8`;

describe('the command line’s bundle', () => {
  it('is ASCII, which V8 holds at one byte a character (two for a source with one character beyond)', () => {
    const bytes = readFileSync(BUNDLE);
    expect(bytes.length).toBeGreaterThan(1_000_000);
    expect(bytes.findIndex((byte) => byte > 0x7f)).toBe(-1);
  });
});

describe.skipIf(typeof process.getuid !== 'function')('the command line’s code cache', () => {
  it('is the bundle’s, made by the first run in a directory of the user’s own, and used by the next', async () => {
    expect(readFileSync(`${BUNDLE}.sha256`, 'utf8').trim()).toBe(
      createHash('sha256').update(readFileSync(BUNDLE)).digest('hex'),
    );
    const { env, cacheDir } = fresh();
    const first = await runCli(['--help'], { env });
    expect(first.code).toBe(0);
    expect(readdirSync(cacheDir)).toEqual([cacheName()]);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    const made = statSync(join(cacheDir, cacheName()));

    // A refused cache would be written again at exit.
    const second = await runCli(['--help'], { env });
    expect([second.code, second.stdout]).toEqual([0, first.stdout]);
    expect(statSync(join(cacheDir, cacheName())).mtimeMs).toBe(made.mtimeMs);
  });

  it('replaced when V8 refuses it (damaged), the command running as before', async () => {
    const { env, cacheDir } = fresh();
    const clean = await runCli(['--help'], { env });
    writeFileSync(join(cacheDir, cacheName()), 'not a cache');
    const damaged = await runCli(['--help'], { env });
    expect([damaged.code, damaged.stdout, damaged.stderr]).toEqual([0, clean.stdout, '']);
    expect(statSync(join(cacheDir, cacheName())).size).toBeGreaterThan(100_000);
  });

  it('not kept where another user may write, nor with NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const shared = fresh();
    mkdirSync(shared.cacheDir);
    chmodSync(shared.cacheDir, 0o777);
    expect((await runCli(['--help'], { env: shared.env })).code).toBe(0);
    expect(readdirSync(shared.cacheDir)).toEqual([]);

    const off = fresh();
    expect((await runCli(['--help'], { env: { ...off.env, NODE_DISABLE_COMPILE_CACHE: '1' } })).code).toBe(0);
    expect(existsSync(off.cacheDir)).toBe(false);
  });

  it('removes other builds’ caches a day old when it writes its own, and keeps newer ones', async () => {
    const { env, cacheDir } = fresh();
    mkdirSync(cacheDir, { mode: 0o700 });
    const old = join(cacheDir, `0000000000000000-${process.version}.v8`);
    const recent = join(cacheDir, `1111111111111111-${process.version}.v8`);
    writeFileSync(old, 'old build');
    writeFileSync(recent, 'recent build');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    utimesSync(old, twoDaysAgo, twoDaysAgo);
    expect((await runCli(['--help'], { env })).code).toBe(0);
    expect(readdirSync(cacheDir).sort()).toEqual([cacheName(), `1111111111111111-${process.version}.v8`].sort());
  });
});
