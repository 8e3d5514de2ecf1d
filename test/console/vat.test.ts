/**
 * The console's VAT return page against `invoice-mirror report vat_return_nl --account … --period …`:
 * the same rubrics with the same figures, money right-aligned with two decimals, the period's
 * problems linked (and listed on their page); in Chromium when one is found.
 */
import type { Server } from 'node:http';
import { sql } from 'kysely';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../src/console/index.js';
import { findChromium, photograph, serveConsole } from '../support/browser.js';
import { runCli } from '../support/cli.js';
import { pullerFor, useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({
  perEntity: { clients: 120, saved_invoices: 5 },
  sentInvoices: 1200,
  now: new Date(),
  seed: 45,
});
const chromiumPath = findChromium('console VAT page');

let period = '';
let cli: Record<string, unknown>[] = [];

beforeAll(async () => {
  const outcome = await pullerFor(database, env)({ kind: 'backfill' });
  expect(outcome.status).toBe('succeeded');
  // The quarter with the most problems, so that the link has something to show.
  const { rows } = await sql<{ period: string | null }>`select period from vat_problems`.execute(
    database.current.handle.db,
  );
  const counts = new Map<string, number>();
  for (const row of rows) if (row.period) counts.set(row.period, (counts.get(row.period) ?? 0) + 1);
  period = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const printed = await runCli(
    ['report', 'vat_return_nl', '--account', 'default', '--period', period, '--format', 'json'],
    { env: database.current.env },
  );
  expect(printed.stderr).toBe('');
  cli = (JSON.parse(printed.stdout) as Record<string, unknown>[]).filter((row) => row.period === period);
}, 120_000);

/** `1,234.50` → 123450, `—` → null. */
const cents = (shown: string): number | null =>
  shown.trim() === '—' ? null : Math.round(Number(shown.replace(/,/g, '')) * 100);
const cliCents = (value: unknown): number | null => (value === null ? null : Math.round(Number(value) * 100));

describe('the VAT return page', () => {
  it('shows the rubrics report prints, with the same figures', async () => {
    const app = createConsoleApp({
      db: database.current.handle.db,
      settings: { inDaemon: false, user: 'admin', password: undefined, token: undefined },
      maxAttempts: 1,
      worker: false,
    });
    const answer = await app.request(`/vat?account=default&period=${period}`);
    expect(answer.status).toBe(200);
    const body = await answer.text();
    const rows = [...body.matchAll(/<tr class="[^"]*" data-code="([^"]+)">([\s\S]*?)<\/tr>/g)].map(
      ([, code, cells]) => {
        const values = [...cells!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
        return { code, base: cents(values[3]!), vat: cents(values[4]!) };
      },
    );
    expect(cli.length).toBeGreaterThan(10);
    expect(rows).toEqual(cli.map((row) => ({ code: row.rubric, base: cliCents(row.base), vat: cliCents(row.vat) })));
    expect(rows.some((row) => row.base !== null && row.base !== 0)).toBe(true);
    // Two decimals, right-aligned (class num), and the problems linked.
    expect(body).toMatch(/<td class="num money">\d{1,3}(,\d{3})*\.\d{2}<\/td>/);
    const problems = Number(cli[0]!.unclassified_entries);
    expect(problems).toBeGreaterThan(0);
    expect(body).toContain(`/vat/problems?period=${period}`);
    const list = await (await app.request(`/vat/problems?period=${period}&account=default`)).text();
    expect(list.match(/<tr><td><a href="\/records\/invoices\//g)?.length).toBe(problems);
  });

  describe.skipIf(!chromiumPath)('in a browser', () => {
    let browser: Browser;
    let served: { server: Server; base: string };
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: chromiumPath });
      served = await serveConsole(database.current.handle.db);
    });
    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => served?.server.close(resolve));
    });

    it('right-aligns the money and follows the link to the problems', async () => {
      const page = await browser.newPage();
      await page.goto(`${served.base}/vat?account=default&period=${period}`);
      const align = await page
        .locator('td.money')
        .first()
        .evaluate(
          (cell) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { textAlign: string } }).getComputedStyle(cell)
              .textAlign,
        );
      expect(align).toBe('right');
      await photograph(page, 'vat-return', { fullPage: true });
      await page.getByRole('link', { name: 'see the VAT problems' }).click();
      await expect(page.locator('h1').textContent()).resolves.toContain('VAT problems');
      await page.close();
    });
  });
});
