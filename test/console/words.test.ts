/**
 * The console speaks a bookkeeper's words (issue 47), in headless Chromium against a backfilled
 * mirror: at 1280 px no column header of a record, list or report page takes more than two lines,
 * and none shows a backtick or a raw field name; an interrupted send's page says what the
 * mirror's own syncs show about each id and offers the decisions as buttons, not CLI commands;
 * the overview's attention list links to where things are decided.
 */
import type { Server } from 'node:http';
import { sql } from 'kysely';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOOKKEEPING_COLUMNS,
  ENTITIES,
  entityColumns,
  LINE_COLUMNS,
  primaryKeyOf,
  REPORTS,
} from '../../src/catalog/index.js';
import { jsonb } from '../../src/db/index.js';
import { resolveCommands } from '../../src/jobs/ledger.js';
import { findChromium, serveConsole } from '../support/browser.js';
import { useJobsEnv } from '../jobs/helpers.js';

const CHROMIUM = findChromium('console wording browser tests');
const env = useJobsEnv();
let server: Server;
let base: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!CHROMIUM) return;
  ({ server, base } = await serveConsole(env.database.current.handle.db));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Every name the catalogue gives a column: a header must not be one of them. */
const RAW_NAMES = new Set([
  ...ENTITIES.flatMap((entity) => entityColumns(entity.name).map((column) => column.name)),
  ...LINE_COLUMNS.map((column) => column.name),
  ...BOOKKEEPING_COLUMNS.map((column) => column.name),
  ...REPORTS.flatMap((report) => Object.keys(report.columns)),
]);

/** Each header of the page's tables: its text (without a sort arrow) and how many lines it takes. */
async function headers(): Promise<{ text: string; lines: number }[]> {
  // Run in the page (a string: the tests compile without the DOM's types). The tables of the page,
  // not a chart's legend (uPlot draws it as a table); one rectangle per line box a header's text
  // takes, so a wrapped header has several tops.
  return (await page.evaluate(`[...document.querySelectorAll('main th')]
    .filter((th) => !th.closest('figure'))
    .map((th) => {
      const range = document.createRange();
      range.selectNodeContents(th);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      return { text: (th.textContent ?? '').replace(/[▲▼]/g, '').trim(), lines: tops.size };
    })`)) as { text: string; lines: number }[];
}

/** What is wrong with the headers of a page: too many lines, markup, raw names. */
async function headerProblems(path: string): Promise<string[]> {
  await page.goto(`${base}${path}`);
  const found = await headers();
  expect(found.length, `${path} has headers`).toBeGreaterThan(0);
  return found.flatMap(({ text, lines }) => [
    ...(lines > 2 ? [`${path}: "${text}" takes ${lines} lines`] : []),
    ...(/[`_]/.test(text) ? [`${path}: "${text}" shows markup or a raw name`] : []),
    ...(RAW_NAMES.has(text) ? [`${path}: "${text}" is a raw field name`] : []),
  ]);
}

describe.skipIf(!CHROMIUM)('the console in words', () => {
  it('at 1280 px no header of a list, record or report page takes more than two lines or shows a raw name', async () => {
    const db = env.database.current.handle.db;
    const paths: string[] = [];
    for (const entity of ENTITIES) {
      paths.push(`/records/${entity.name}`);
      const [key] = primaryKeyOf(entity).slice(1);
      const { rows } = await sql<{ key: string }>`select ${sql.ref(key!)}::text as key from ${sql.table(entity.name)}
        where deleted_at is null order by 1 limit 1`.execute(db);
      if (rows[0]) paths.push(`/records/${entity.name}/${encodeURIComponent(rows[0].key)}`);
    }
    for (const report of REPORTS) paths.push(`/reports/${report.name}`);
    expect(paths.length).toBeGreaterThan(ENTITIES.length * 2);
    const problems: string[] = [];
    for (const path of paths) problems.push(...(await headerProblems(path)));
    expect(problems).toEqual([]);
  });

  it('a header says the meaning on hover, without backticks', async () => {
    await page.goto(`${base}/records/clients`);
    const email = page.locator('main th', { hasText: /^E-mail$/ });
    await expect(email.getAttribute('title')).resolves.toBe(
      'e-mail address invoices go to when the send method is email',
    );
  });

  it("an interrupted send's page says what the mirror's syncs show and offers the decisions as buttons", async () => {
    const db = env.database.current.handle.db;
    const saved = await sql<{
      id: number;
    }>`select id from saved_invoices where deleted_at is null order by id limit 2`.execute(db);
    const [kept, gone] = saved.rows.map((row) => Number(row.id)) as [number, number];
    // The call started before the backfill finished: the backfill is a sync since the call. A later
    // sync saw `gone` leave the saved invoices (a send with delete removes it).
    const { rows: runs } = await sql<{ at: Date }>`select max(finished_at) as at from sync_runs`.execute(db);
    const startedAt = new Date(runs[0]!.at.getTime() - 60_000).toISOString();
    await sql`update saved_invoices set deleted_at = now() where id = ${gone}`.execute(db);
    const result = {
      batches: [{ ids: [kept, gone], attempt: 1, outcome: 'unknown', started_at: startedAt }],
      sent: [],
    };
    const { rows } = await sql<{ id: string }>`
      insert into jobs (account_id, kind, payload, status, attempts, max_attempts, result, started_at, finished_at)
      values (${env.account().id}, 'send_saved_invoices', ${jsonb({ ids: [kept, gone], delete: true })}, 'interrupted',
              1, 5, ${jsonb(result)}, ${startedAt}, ${startedAt}) returning id`.execute(db);
    const id = Number(rows[0]!.id);
    const message = `interrupted: the worker stopped during attempt 1 during its call, which may have taken effect; ${resolveCommands(id, [kept, gone])}`;
    await sql`update jobs set last_error = ${message} where id = ${id}`.execute(db);

    await page.goto(`${base}/jobs/${id}`);
    const body = (await page.locator('main').textContent()) ?? '';
    expect(body).not.toContain('invoice-mirror jobs retry');
    expect(body).not.toContain('check the service');
    const item = (i: number) => page.locator('ul.decisions li', { has: page.locator(`strong:text-is("${i}")`) });
    await expect(item(kept).textContent()).resolves.toContain(
      "still a saved invoice at the mirror's last sync, with no invoice of its client and total since the call: most likely not sent",
    );
    await expect(item(gone).textContent()).resolves.toContain(
      "the mirror's sync saw it leave the saved invoices since the call: most likely sent",
    );
    // The decision the mirror suggests is the button; the other stays a link.
    await expect(item(kept).locator('a.button').textContent()).resolves.toBe('Send again…');
    await expect(item(gone).locator('a.button').textContent()).resolves.toBe('Mark as sent…');
    await expect(page.getByRole('button', { name: 'Retry (asks the service first)' }).count()).resolves.toBe(1);
    await item(gone).locator('a.button').click();
    await page.getByRole('button', { name: 'Mark as sent' }).waitFor();
  });

  it("the overview's attention list links to where held deletes are decided, said once, without a command", async () => {
    const db = env.database.current.handle.db;
    await sql`insert into held_deletes (account_id, entity, entity_id)
      select ${env.account().id}, 'products', id::text from products where deleted_at is null order by id limit 2`.execute(
      db,
    );
    await page.goto(`${base}/`);
    const attention = page.locator('section.card', { hasText: 'Needs attention' });
    await expect(attention.textContent()).resolves.toContain('2 held deletes of products');
    await expect(attention.getByRole('link', { name: 'release or keep them' }).getAttribute('href')).resolves.toBe(
      '/#held-deletes',
    );
    const body = (await page.locator('main').textContent()) ?? '';
    expect(body).not.toContain('invoice-mirror sync');
    expect(body.split('They wait for a person').length - 1).toBe(1); // the explanation, once
    await sql`delete from held_deletes`.execute(db);
  });
});
