#!/usr/bin/env node
/**
 * Photographs the console's main pages at 1280 and 390 px into docs/screenshots/i47/, for a
 * before/after comparison of a change to the pages:
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node scripts/screenshots.mjs after
 *
 * It runs the built `demo` (a sandbox backfilled into the schema invoicing_demo of DATABASE_URL),
 * adds one interrupted send (the page a person decides on), serves the built console on that
 * schema and drives headless Chromium (CHROMIUM_PATH or /usr/bin/chromium, through playwright-core
 * as the browser tests do). The first argument names the set: `before` or `after`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import postgres from 'postgres';
import { chromium } from 'playwright-core';

const label = process.argv[2];
if (label !== 'before' && label !== 'after') {
  process.stderr.write('usage: node scripts/screenshots.mjs before|after (with DATABASE_URL set)\n');
  process.exit(2);
}
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  process.stderr.write('screenshots: set DATABASE_URL to a Postgres the demo may write its schema to\n');
  process.exit(2);
}
const SCHEMA = 'invoicing_demo';
const CLI = new URL('../dist/cli/cli.js', import.meta.url).pathname;
const OUT = new URL('../docs/screenshots/i47/', import.meta.url).pathname;
const env = { ...process.env, MIRROR_SCHEMA: SCHEMA, LOG_LEVEL: 'warn' };

const demo = spawnSync(process.execPath, [CLI, 'demo', '--records', '200'], { env, encoding: 'utf8' });
if (demo.status !== 0) {
  process.stderr.write(`screenshots: the demo failed:\n${demo.stdout}\n${demo.stderr}\n`);
  process.exit(1);
}

/** The ids the pages show: a client, an invoice, and an interrupted send of two saved invoices. */
async function prepare() {
  const db = postgres(databaseUrl, { connection: { search_path: SCHEMA }, onnotice: () => {} });
  try {
    const [client] = await db`select clientnr from clients where deleted_at is null order by clientnr limit 1`;
    const [invoice] = await db`select id from invoices where deleted_at is null order by id desc limit 1`;
    const saved = await db`select id, account_id from saved_invoices where deleted_at is null order by id limit 2`;
    const ids = saved.map((s) => Number(s.id));
    const at = new Date(Date.now() - 600_000).toISOString();
    const result = { batches: [{ ids, attempt: 1, outcome: 'unknown', started_at: at }], sent: [] };
    const error =
      `interrupted: the worker stopped during attempt 1 during its call, which may have taken effect; ` +
      `check the service; if it happened, run 'invoice-mirror jobs retry JOB --mark-sent ${ids.join(',')}'; ` +
      `if it did not, run 'invoice-mirror jobs retry JOB --resend ${ids.join(',')}'`;
    const [job] = await db`
      insert into jobs (account_id, kind, payload, status, attempts, max_attempts, result, last_error, started_at, finished_at)
      values (${saved[0].account_id}, 'send_saved_invoices', ${db.json({ ids, delete: false })}, 'interrupted', 1, 5,
              ${db.json(result)}, ${error}, ${at}, ${at})
      returning id`;
    await db`update jobs set last_error = replace(last_error, 'JOB', id::text) where id = ${job.id}`;
    return { client: client.clientnr, invoice: invoice.id, job: job.id };
  } finally {
    await db.end();
  }
}

/** Starts the built console on a free port; resolves to its base URL and the process. */
function serve() {
  const child = spawn(process.execPath, [CLI, 'console', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk) => {
      seen += chunk;
      const found = /http:\/\/\S+\//.exec(seen);
      if (found) resolve({ child, base: found[0].replace(/\/$/, '') });
    });
    child.on('exit', (code) => reject(new Error(`the console exited (${code}): ${seen}`)));
  });
}

const ids = await prepare();
const { child, base } = await serve();
const PAGES = {
  overview: '/',
  clients: '/records/clients',
  client: `/records/clients/${ids.client}`,
  invoices: '/records/invoices',
  invoice: `/records/invoices/${ids.invoice}`,
  reports: '/reports',
  'report-saved-invoices': '/reports/saved_invoices_by_client',
  'report-recurring-revenue': '/reports/recurring_revenue',
  'interrupted-send': `/jobs/${ids.job}`,
};
mkdirSync(OUT, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
try {
  const page = await browser.newPage();
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
    for (const [name, path] of Object.entries(PAGES)) {
      await page.goto(`${base}${path}`);
      await page.screenshot({ path: `${OUT}${label}-${name}-${width}.png`, fullPage: true });
    }
  }
  process.stdout.write(`screenshots: ${Object.keys(PAGES).length * 2} pages in ${OUT} (${label})\n`);
} finally {
  await browser.close();
  child.kill('SIGTERM');
}
