/**
 * The console's Content-Security-Policy, in Chromium: every page is sent with it, and under it
 * the pages still work as before (uPlot draws the charts, htmx refreshes a running job's page, the
 * account switcher and the job form's kind select act on a change, now from a script of their own
 * instead of inline handlers) with not one violation reported by the browser.
 */
import type { Server } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/console/index.js';
import { findChromium, serveConsole } from '../support/browser.js';
import { insertJob, useJobsEnv } from '../jobs/helpers.js';

const CHROMIUM = findChromium('web console CSP tests');
const env = useJobsEnv();
let server: Server;
let base: string;
let browser: Browser;
let page: Page;
/** What the browser reported: CSP violations (securitypolicyviolation events) and console errors. */
const reported: string[] = [];

beforeAll(async () => {
  if (!CHROMIUM) return;
  ({ server, base } = await serveConsole(env.database.current.handle.db));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.exposeFunction('reportViolation', (line: string) => reported.push(line));
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (event) =>
    window.reportViolation(event.violatedDirective + ': ' + event.blockedURI + ' (' + event.sourceFile + ':' + event.lineNumber + ')'));`);
  page.on('console', (message) => {
    if (message.type() === 'error') reported.push(`console: ${message.text()}`);
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe.skipIf(!CHROMIUM)('the console under its Content-Security-Policy', () => {
  it('sends it with every page, and every page works under it without a violation', async () => {
    for (const path of ['/', '/jobs', '/jobs/new', '/records/clients', '/reports/quotation_pipeline', '/changes']) {
      const answer = await page.goto(`${base}${path}`);
      expect(answer?.headers()['content-security-policy'], path).toBe(CONTENT_SECURITY_POLICY);
      await page.waitForLoadState('load');
    }
    // uPlot drew the chart of a report.
    await page.goto(`${base}/reports/quotation_pipeline`);
    await page.locator('figure.chart .uplot').waitFor({ timeout: 5000 });

    // The job form's kind select reloads the form with that kind's fields.
    await page.goto(`${base}/jobs/new`);
    await Promise.all([
      page.waitForURL(/kind=set_product_stock/),
      page.selectOption('select[name="kind"]', 'set_product_stock'),
    ]);
    await expect(page.locator('textarea[name="payload"]').inputValue()).resolves.toContain('"stock"');

    // The account switcher submits on a change.
    await page.goto(`${base}/jobs`);
    await Promise.all([page.waitForURL(/account=default/), page.selectOption('form.switcher select', 'default')]);

    // htmx refreshes a queued job's page (nothing runs it here): a request every 2 s, allowed.
    const id = await insertJob(env.database.current.handle, 'set_product_stock', { id: 1, stock: 9 });
    await page.goto(`${base}/jobs/${id}`);
    await page.waitForRequest(
      (request) => request.url().endsWith(`/jobs/${id}`) && request.headers()['hx-request'] === 'true',
      {
        timeout: 5000,
      },
    );
    expect(reported).toEqual([]);

    // Control: the policy blocks an inline handler, and the browser reports it where this test looks.
    await page.evaluate(
      `document.body.insertAdjacentHTML('beforeend', '<img src="/favicon.ico" onload="document.title = 1">')`,
    );
    await expect.poll(() => reported.filter((line) => line.startsWith('script-src')).length).toBeGreaterThan(0);
  });
});
