/**
 * Where the browser tests find Chromium: CHROMIUM_PATH, Debian's or another distribution's
 * package, or Playwright's own download. Without one, the browser tests are skipped with one
 * visible line, except under CI=true, where a missing browser fails the run (CI keeps testing
 * the console: `.ci/run` installs Debian's chromium).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { chromium, type Page } from 'playwright-core';
import { consoleListener } from '../../src/console/index.js';
import type { Database } from '../../src/db/index.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/snap/bin/chromium'];

/** The Chromium to drive, or undefined when there is none (then the caller skips, see above). */
export function findChromium(suite: string): string | undefined {
  const fromPlaywright = (() => {
    try {
      return chromium.executablePath();
    } catch {
      return undefined;
    }
  })();
  const wanted = process.env.CHROMIUM_PATH;
  const found = wanted ? (existsSync(wanted) ? wanted : undefined) : [...CANDIDATES, fromPlaywright].find(isFile);
  if (found) return found;
  const why = wanted
    ? `CHROMIUM_PATH=${wanted} does not exist`
    : "no Chromium found (install Debian's chromium package, or set CHROMIUM_PATH)";
  if (process.env.CI === 'true') throw new Error(`${suite}: ${why}; under CI=true the browser tests must run`);
  console.warn(`${suite}: skipped, ${why}`);
  return undefined;
}

const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;

/**
 * Photographs the page into test-output/screenshots/<name>.png, for a person to look at, when
 * SCREENSHOTS=1: no assertion reads them, and the hundred of a run of the console tests cost
 * about 7 s of CPU and 11 s of one file's time.
 */
export async function photograph(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), ...options });
}

function isFile(path: string | undefined): path is string {
  return path !== undefined && existsSync(path);
}

/** The console's pages among `paths` (under `base`) that are wider than the window, at each size: "path at width: scroll > inner". */
export async function widerThanWindow(
  page: Page,
  base: string,
  paths: readonly string[],
  sizes: readonly (readonly [number, number])[] = [
    [1280, 800],
    [390, 844],
  ],
  onPage?: (path: string, width: number) => Promise<unknown>,
): Promise<string[]> {
  const overflowing: string[] = [];
  for (const [width, height] of sizes) {
    await page.setViewportSize({ width, height });
    for (const path of paths) {
      await page.goto(`${base}${path}`);
      const [scrollWidth, innerWidth] = (await page.evaluate(
        '[document.documentElement.scrollWidth, window.innerWidth]',
      )) as [number, number];
      if (scrollWidth > innerWidth) overflowing.push(`${path} at ${width}: ${scrollWidth} > ${innerWidth}`);
      await onPage?.(path, width);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  return overflowing;
}

/**
 * The console with its worker, signed in as `admin` without a password, on a free port of
 * 127.0.0.1 (as the daemon serves it with `inDaemon`): its server, to close, and its base URL.
 */
export async function serveConsole(
  db: Kysely<Database>,
  { inDaemon = true }: { inDaemon?: boolean } = {},
): Promise<{ server: Server; base: string }> {
  const settings = { inDaemon, user: 'admin', password: undefined, token: undefined };
  const server = createServer(consoleListener({ db, settings, maxAttempts: 1, worker: true }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
