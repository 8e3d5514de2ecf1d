/**
 * The web console, driven in headless Chromium (Debian's, through playwright-core) against a
 * backfilled mirror and the sandbox: the overview after a sync, a failed job retried from its
 * page, a job queued through the form (and a bad payload refused on its field), a record's
 * history after an upstream change, a report downloaded as CSV, and access without a credential
 * off loopback. Each page is photographed at 1280×800 into test-output/screenshots/.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { sql } from 'kysely';
import { chromium, type Browser, type Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENTITY_NAMES, invoiceOpenSql, REPORTS } from '../../src/catalog/index.js';
import { jsonb } from '../../src/db/index.js';
import { createConsoleApp, NO_WORKER_NOTE } from '../../src/console/index.js';
import { chart } from '../../src/console/layout.js';
import { logger } from '../../src/log.js';
import { findChromium, photograph, serveConsole, widerThanWindow } from '../support/browser.js';
import { CLI_PATH } from '../support/cli.js';
import { useJobsEnv } from '../jobs/helpers.js';

const CHROMIUM = findChromium('web console browser tests');

const env = useJobsEnv();
let server: Server;
let base: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!CHROMIUM) return;
  ({ server, base } = await serveConsole(env.database.current.handle.db));
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const shoot = (name: string) => photograph(page, name);

describe.skipIf(!CHROMIUM)('web console', () => {
  it('overview after a sync: the run, each entity, the 30-day chart and the queue', async () => {
    await page.goto(`${base}/`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Overview');
    const lastSync = page.locator('section', { hasText: 'Last sync' });
    await expect(lastSync.locator('.badge').first().textContent()).resolves.toBe('succeeded');
    const clients = page.locator('tr', { has: page.locator('a[href="/records/clients"]') });
    await expect(clients.locator('td').nth(1).textContent()).resolves.toBe('20');
    await page.locator('figure.chart .uplot').waitFor(); // the chart was drawn by uPlot
    await shoot('overview');
  });

  it('a failed job is retried from its page and succeeds; the page refreshes itself', async () => {
    const db = env.database.current.handle.db;
    env.box.sandbox.failNext('500', 3, { method: 'PUT' }); // the attempt and the client's two retries
    const { rows } = await sql<{ id: string }>`insert into jobs (kind, payload, max_attempts)
      values ('set_product_stock', '{"id": 2, "stock": 17}', 1) returning id`.execute(db);
    const id = Number(rows[0]!.id);
    await env.runner().runUntilEmpty();
    await page.goto(`${base}/jobs/${id}`);
    await expect(page.locator('#job .badge').first().textContent()).resolves.toBe('failed');
    await expect(page.locator('#job table').first().textContent()).resolves.toContain('500');
    await shoot('job-failed');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.waitForURL(`${base}/jobs/${id}`);
    await expect(page.locator('#job .badge').first().textContent()).resolves.toBe('queued');
    await env.runner().runUntilEmpty();
    await page.locator('#job .badge.succeeded').waitFor({ timeout: 10_000 }); // live refresh, no reload
    expect(env.box.sandbox.store.get('products', 2)?.stock).toBe(17);
    await shoot('job');
  });

  it('queues a job through the form; a bad payload is refused with the field named, nothing queued', async () => {
    const db = env.database.current.handle.db;
    const count = async () => Number((await sql<{ n: string }>`select count(*) as n from jobs`.execute(db)).rows[0]!.n);
    const before = await count();
    await page.goto(`${base}/jobs/new`);
    await page.selectOption('select[name="kind"]', 'set_product_stock');
    await page.waitForURL(`${base}/jobs/new?kind=set_product_stock`); // the kind's fields, to fill in
    await expect(page.locator('textarea[name="payload"]').inputValue()).resolves.toBe('{"id": null, "stock": null}');
    await page.fill('textarea[name="payload"]', '{"id": 3, "stock": "many"}');
    await page.getByRole('button', { name: 'Queue' }).click();
    const error = page.locator('.field-error [role="alert"]');
    await expect(error.textContent()).resolves.toMatch(/^payload\.stock: /);
    await expect(page.locator('textarea[name="payload"]').inputValue()).resolves.toBe('{"id": 3, "stock": "many"}');
    await shoot('jobs-new-refused');
    expect(await count()).toBe(before);

    await page.fill('textarea[name="payload"]', '{"id": 3, "stock": 5}');
    await page.getByRole('button', { name: 'Queue' }).click();
    await page.waitForURL(/\/jobs\/\d+$/);
    const id = Number(page.url().split('/').pop());
    const { rows } = await sql<{
      kind: string;
      payload: unknown;
      status: string;
    }>`select kind, payload, status from jobs where id = ${id}`.execute(db);
    expect(rows[0]).toEqual({ kind: 'set_product_stock', payload: { id: 3, stock: 5 }, status: 'queued' });
    await page.goto(`${base}/jobs?kind=set_product_stock`);
    await expect(page.locator('#job-table').textContent()).resolves.toContain(String(id));
    await shoot('jobs');
    await env.runner().runUntilEmpty();
  });

  it("shows a record's history after an upstream change, before and after side by side", async () => {
    env.box.sandbox.store.update('clients', 3, { company: 'Renamed Trading BV' });
    const outcome = await env.sync({ kind: 'sync' });
    expect(outcome.status).toBe('succeeded');
    await page.goto(`${base}/records/clients?q=Renamed`);
    await page.getByRole('link', { name: '3', exact: true }).click();
    await page.waitForURL(`${base}/records/clients/3`);
    await expect(
      page
        .locator('tr', { has: page.locator('th[data-column="company"]') })
        .locator('td')
        .textContent(),
    ).resolves.toBe('Renamed Trading BV');
    await shoot('record');
    await page.getByRole('link', { name: /^History/ }).click();
    const row = page.locator('table.diff tr', { has: page.locator('td', { hasText: /^company$/ }) }).first();
    await expect(row.locator('td.after').textContent()).resolves.toBe('Renamed Trading BV');
    await expect(row.locator('td.before').textContent()).resolves.not.toBe('Renamed Trading BV');
    await shoot('history');
    await page.goto(`${base}/changes?entity=clients&op=update`);
    await expect(page.locator('table').textContent()).resolves.toContain('company');
    await shoot('changes');
  });

  it('downloads a report as CSV with its header and every row; the table sorts by a column', async () => {
    await page.goto(`${base}/reports/product_stock`);
    await page.locator('figure.chart .uplot').waitFor({ timeout: 5000 });
    await page.locator('th[data-column="stock"] a').click({ timeout: 5000 });
    await page.waitForURL(/sort=stock&dir=asc/, { timeout: 5000 });
    const stocks = await page.locator('tbody tr td:nth-child(4)').allTextContents();
    const numbers = stocks.filter((s) => s !== '—').map((s) => Number(s.replace(/,/g, '')));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    await shoot('report');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    // Every column, the account's too (as `report --format csv` prints them); the page shows no account column.
    expect(csv[0]).toBe(
      'product_id,product_code,product_name,stock,stock_status,price_excl_tax,stock_value_excl_tax,account_id,account_name',
    );
    const { rows } = await sql<{ n: string }>`select count(*) as n from product_stock`.execute(
      env.database.current.handle.db,
    );
    expect(csv.length - 1).toBe(Number(rows[0]!.n));
    await page.goto(`${base}/records`);
    await shoot('records');
    await page.goto(`${base}/reports`);
    await shoot('reports');
  });

  it("offers only the actions the kind's pre-check accepts: none to pay or remind a paid invoice, no approval of a draft", async () => {
    const db = env.database.current.handle.db;
    const paid = await sql<{ id: string }>`select id from invoices
      where coalesce(open, 0) <= 0 and deleted_at is null order by id limit 1`.execute(db);
    const open = await sql<{ id: string }>`select id from invoices
      where ${sql.raw(invoiceOpenSql('open', 'uncollectible'))} and deleted_at is null order by id limit 1`.execute(db);
    const draft = await sql<{ id: string }>`select id from quotations
      where sent is not true and deleted_at is null order by id limit 1`.execute(db);
    const sent = await sql<{ id: string }>`select id from quotations
      where sent = true and deleted_at is null order by id limit 1`.execute(db);
    const buttons = async (path: string) => {
      await page.goto(`${base}${path}`);
      return page.locator('.actions button').allTextContents();
    };
    const paidButtons = await buttons(`/records/invoices/${paid.rows[0]!.id}`);
    expect(paidButtons).not.toContain('Register a payment…');
    expect(paidButtons).not.toContain('Send a reminder…');
    expect(paidButtons).toContain('Fetch its PDF…');
    await shoot('record-paid-invoice');
    if (open.rows[0]) expect(await buttons(`/records/invoices/${open.rows[0].id}`)).toContain('Register a payment…');
    const draftButtons = await buttons(`/records/quotations/${draft.rows[0]!.id}`);
    expect(draftButtons).not.toContain('Approve this quotation…');
    expect(draftButtons).toContain('Send it…');
    const sentButtons = await buttons(`/records/quotations/${sent.rows[0]!.id}`);
    expect(sentButtons).not.toContain('Send it…');
    expect(sentButtons).toContain('Approve this quotation…');
  });

  it('an interrupted send is resolved from its page: one id marked sent, the rest sent again, each id once', async () => {
    const db = env.database.current.handle.db;
    const { store } = env.box.sandbox;
    const sentBefore = new Set(store.sentSavedIds());
    const live = await sql<{
      id: string;
    }>`select id from saved_invoices where deleted_at is null order by id desc limit 3`.execute(db);
    const ids = live.rows.map((r) => Number(r.id)).filter((i) => !sentBefore.has(i));
    expect(ids).toHaveLength(3);
    const [first, ...rest] = ids as [number, number, number];
    // The call reached the service for the first id only; the job cannot tell which went.
    await env.box.client.sendSavedInvoices([first], { delete: false });
    const result = {
      ids,
      delete: false,
      sent: [],
      batches: [
        {
          ids,
          attempt: 1,
          outcome: 'unknown',
          started_at: new Date().toISOString(),
          error: 'the worker stopped during the call',
        },
      ],
    };
    const { rows } = await sql<{
      id: string;
    }>`insert into jobs (kind, payload, status, attempts, max_attempts, result, last_error)
      values ('send_saved_invoices', ${jsonb({ ids, delete: false })}, 'interrupted', 1, 1,
        ${jsonb(result)}, 'interrupted: the worker stopped during attempt 1') returning id`.execute(db);
    const id = Number(rows[0]!.id);

    await page.goto(`${base}/jobs/${id}`);
    await expect(page.locator('h2', { hasText: 'Ids by state' }).count()).resolves.toBe(1);
    await shoot('job-interrupted');
    await page
      .locator('li', { hasText: new RegExp(`^${first}:`) })
      .getByRole('link', { name: 'Mark as sent…' })
      .click();
    await expect(page.locator('p.error').textContent()).resolves.toContain('without sending');
    await shoot('job-decide');
    await page.getByRole('button', { name: 'Mark as sent' }).click();
    await page.waitForURL(`${base}/jobs/${id}`);
    await expect(page.locator('#job .badge').first().textContent()).resolves.toBe('queued');
    // Queued: nothing to retry (it will run), no decisions.
    await expect(page.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(0);
    await env.runner().runUntilEmpty(); // the other two are still saved invoices, their call not settled: unknown
    await page.goto(`${base}/jobs/${id}`);
    await expect(page.locator('#job .badge').first().textContent()).resolves.toBe('interrupted');
    await page.getByRole('link', { name: 'Send again (all unknown)…' }).click();
    await expect(page.locator('p.error').textContent()).resolves.toContain('twice');
    await page.getByRole('button', { name: 'Send again' }).click();
    await page.waitForURL(`${base}/jobs/${id}`);
    await env.runner().runUntilEmpty();
    await page.goto(`${base}/jobs/${id}`);
    await expect(page.locator('#job .badge').first().textContent()).resolves.toBe('succeeded');
    // The attempts that failed are numbered by position across the retries.
    const numbers = await page
      .locator('h2:has-text("Attempts that failed") + table tbody tr td:first-child')
      .allTextContents();
    expect(numbers).toEqual(numbers.map((_, i) => String(i + 1)));
    const sentNow = store.sentSavedIds().filter((i) => ids.includes(i));
    expect(sentNow.sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    expect(rest.every((i) => sentNow.includes(i))).toBe(true);
  });

  it('held deletes are released from the overview, behind a confirmation', async () => {
    const db = env.database.current.handle.db;
    const held = await sql<{
      id: string;
    }>`select id from repeating_invoices where deleted_at is null order by id limit 2`.execute(db);
    const keys = held.rows.map((r) => Number(r.id));
    // The mirror's one account (`default`) holds them.
    await sql`insert into held_deletes (account_id, entity, entity_id)
      select (select id from accounts), 'repeating_invoices', k::text from unnest(${keys}::int[]) k`.execute(db);
    await page.goto(`${base}/`);
    const row = page.locator('tr', { has: page.locator('td', { hasText: /^repeating_invoices$/ }) }).last();
    await expect(row.getByRole('link', { name: 'Keep holding…' }).count()).resolves.toBe(1);
    await shoot('overview-held');
    await row.getByRole('link', { name: 'Release…' }).click();
    await expect(page.locator('main, body').first().textContent()).resolves.toContain(
      'sync --allow-deletes repeating_invoices',
    );
    await page.getByRole('button', { name: 'Release: mark them deleted' }).click();
    await page.waitForURL(`${base}/`);
    const after = await sql<{
      n: string;
    }>`select count(*) as n from repeating_invoices where id = any(${keys}::int[]) and deleted_at is not null`.execute(
      db,
    );
    expect(Number(after.rows[0]!.n)).toBe(2);
    const left = await sql<{ n: string }>`select count(*) as n from held_deletes`.execute(db);
    expect(Number(left.rows[0]!.n)).toBe(0);
  });

  it('refuses a change posted from another site', async () => {
    const answer = await request(`${base}/jobs`, {
      method: 'POST',
      headers: { origin: 'http://elsewhere.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'kind=delete_product&payload=%7B%22id%22%3A1%7D',
    });
    expect(answer.statusCode).toBe(403);
    await answer.body.dump();
  });

  it('off loopback: refuses to start without a credential, and asks every request for it', async () => {
    const dbEnv = { ...process.env, ...env.database.current.env, LOG_LEVEL: 'warn' };
    const refused = spawn(process.execPath, [CLI_PATH, 'console', '--host', '0.0.0.0', '--port', '0'], { env: dbEnv });
    let stderr = '';
    refused.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => refused.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toBe(
      'invoice-mirror: --host: the console would listen on 0.0.0.0 without a credential; set CONSOLE_PASSWORD (Basic auth, user CONSOLE_USER) or CONSOLE_TOKEN, or listen on 127.0.0.1\n',
    );

    const guarded = spawn(process.execPath, [CLI_PATH, 'console', '--host', '0.0.0.0', '--port', '0'], {
      env: { ...dbEnv, CONSOLE_PASSWORD: 'correct horse battery' },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        guarded.stderr.on('data', (chunk) => {
          out += chunk;
          const found = /http:\/\/0\.0\.0\.0:(\d+)\//.exec(out);
          if (found) resolve(`http://127.0.0.1:${found[1]}/`);
        });
        guarded.on('exit', (exitCode) => reject(new Error(`console exited ${exitCode}: ${out}`)));
      });
      const anonymous = await request(url);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers['www-authenticate']).toMatch(/^Basic realm=/);
      expect(await anonymous.body.text()).not.toContain('correct horse');
      const wrong = await request(url, {
        headers: { authorization: `Basic ${Buffer.from('admin:guess').toString('base64')}` },
      });
      expect(wrong.statusCode).toBe(401);
      await wrong.body.dump();
      const signedIn = await browser.newPage({
        viewport: { width: 1280, height: 800 },
        httpCredentials: { username: 'admin', password: 'correct horse battery' },
      });
      expect((await signedIn.goto(url))?.status()).toBe(200);
      await expect(signedIn.locator('h1').textContent()).resolves.toBe('Overview');
      // The console command runs no jobs, and every page says so.
      await expect(signedIn.locator('main .note').textContent()).resolves.toBe(NO_WORKER_NOTE);
      await signedIn.close();
    } finally {
      guarded.kill('SIGTERM');
    }
  });

  it('numbers right-aligned and formatted (en-US: money "1,234.50"), meanings as headers, client numbers as links', async () => {
    await page.goto(`${base}/records/invoices`);
    // The header is the catalogue's label; its meaning is on hover (issue 47).
    const head = page.locator('th[data-column="totalintax"]');
    await expect(head.textContent()).resolves.toBe('Total incl. tax');
    await expect(head.getAttribute('title')).resolves.toBe('invoice total including tax');
    const money = page.locator('table.records tbody td.money').first();
    await expect(money.textContent()).resolves.toMatch(/^-?\d{1,3}(,\d{3})*\.\d{2}$/);
    await expect(
      money.evaluate(
        (td) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { textAlign: string } }).getComputedStyle(td)
            .textAlign,
      ),
    ).resolves.toBe('right');
    // The cell says the stored value, formatted: the stored value is its title.
    const stored = await money.getAttribute('title');
    const expected = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(
      Number(stored),
    );
    await expect(money.textContent()).resolves.toBe(expected);
    const columns = await page
      .locator('table.records thead th')
      .evaluateAll((ths) => ths.map((th) => th.getAttribute('data-column')));
    expect(columns.slice(0, 7)).toEqual([
      'invoicenr_full',
      'clientnr',
      'company',
      'sent',
      'duedate',
      'totalintax',
      'open',
    ]);
    const client = page.locator('table.records tbody a[href^="/records/clients/"]').first();
    await client.click();
    await page.waitForURL(/\/records\/clients\/\d+$/);
    // Times in the viewer's zone, the exact time on hover.
    const seen = page.locator('tr', { has: page.locator('th[data-column="first_seen_at"]') }).locator('time');
    await expect(seen.getAttribute('data-local')).resolves.toBe('1');
    await expect(seen.getAttribute('title')).resolves.toMatch(/\d{4}/);
    await page.goto(`${base}/records/clients`);
    await expect(
      page
        .locator('table.records thead th')
        .evaluateAll((ths) => ths.slice(0, 4).map((th) => th.getAttribute('data-column'))),
    ).resolves.toEqual(['clientnr', 'company', 'city', 'email']);
    await page.goto(`${base}/records/quotations`);
    await expect(
      page.locator('table.records thead th').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-column'))),
    ).resolves.toEqual(expect.arrayContaining(['clientnr', 'date', 'totalintax', 'customstatus']));
  });

  it('bar charts: stages in the catalogue order, titled in words; a chart of nothing but zeros is not drawn', async () => {
    await page.goto(`${base}/reports/quotation_pipeline`);
    const figure = page.locator('figure.chart');
    await figure.locator('.uplot').waitFor({ timeout: 5000 });
    const data = JSON.parse((await figure.getAttribute('data-chart'))!) as { x: string[] };
    const stages = ['draft', 'open', 'approved', 'declined'];
    expect(data.x).toEqual(stages.filter((stage) => data.x.includes(stage)));
    await expect(figure.locator('figcaption').textContent()).resolves.not.toContain('_');
    await shoot('report-pipeline');
    const empty = String(await chart('lines', 'Nothing', { x: ['2024-01-01', '2024-01-02'], series: { a: [0, 0] } }));
    expect(empty).not.toContain('data-chart');
    expect(empty).toContain('Nothing to draw');
  });

  it('answers an unknown job with a 404 page and logs no error; serves a favicon; says when no worker runs', async () => {
    const errors: unknown[] = [];
    const child = vi
      .spyOn(logger, 'child')
      .mockReturnValue({ error: (...args: unknown[]) => errors.push(args) } as never);
    const deps = { db: env.database.current.handle.db, maxAttempts: 1 };
    const settings = { inDaemon: false, user: 'admin', password: undefined, token: undefined };
    const alone = createConsoleApp({ ...deps, settings, worker: false });
    const withWorker = createConsoleApp({ ...deps, settings, worker: true });
    child.mockRestore();
    const missing = await alone.request('/jobs/9999');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('No job 9999');
    expect(errors).toEqual([]);
    const favicon = await withWorker.request('/favicon.ico');
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    for (const path of ['/', '/jobs', '/records', '/reports', '/changes']) {
      expect(await (await alone.request(path)).text()).toContain(NO_WORKER_NOTE);
      expect(await (await withWorker.request(path)).text()).not.toContain(NO_WORKER_NOTE);
    }
    await page.goto(`${base}/jobs/9999`);
    await shoot('not-found');
  });

  it('no page is wider than its window, at 1280×800 and at 390×844', async () => {
    const first = async (path: string) => {
      await page.goto(`${base}${path}`);
      return page.locator('table tbody a').first().getAttribute('href');
    };
    const paths = ['/', '/jobs', '/jobs/new', '/changes', '/records', '/reports'];
    const job = await first('/jobs');
    if (job) paths.push(job);
    for (const entity of ENTITY_NAMES) {
      paths.push(`/records/${entity}`);
      const record = await first(`/records/${entity}`);
      if (record) paths.push(record, `/changes/${record.slice('/records/'.length)}`);
    }
    for (const report of REPORTS) paths.push(`/reports/${report.name}`);
    const overflowing = await widerThanWindow(page, base, paths, undefined, (path, width) => {
      const name = path === '/' ? 'overview' : path.slice(1).replace(/[/?=&]/g, '-');
      return photograph(page, `${width}-${name}`);
    });
    expect(overflowing).toEqual([]);
  }, 240_000);

  it('the job form: one typed input per payload field, with its meaning; the JSON follows the fields', async () => {
    await page.goto(`${base}/jobs/new?kind=set_product_stock`);
    const id = page.locator('#payload-fields [data-field="id"]');
    await expect(id.getAttribute('type')).resolves.toBe('number');
    await expect(
      page
        .locator('#payload-fields label', { has: page.locator('[data-field="id"]') })
        .locator('.help')
        .textContent(),
    ).resolves.toContain('a whole number');
    await id.fill('4');
    await page.locator('#payload-fields [data-field="stock"]').fill('12.5');
    await expect(page.locator('textarea[name="payload"]').inputValue()).resolves.toBe('{"id":4,"stock":12.5}');
    await shoot('jobs-new-fields');
    await page.goto(`${base}/jobs/new?kind=send_quotation`);
    await expect(
      page.locator('#payload-fields select[data-field="sendmethod"] option').allTextContents(),
    ).resolves.toEqual(['', 'email', 'mail', 'printcenter']);
    await page.selectOption('#payload-fields select[data-field="sendmethod"]', 'mail');
    await expect(page.locator('textarea[name="payload"]').inputValue()).resolves.toContain('"sendmethod":"mail"');
    await page.goto(
      `${base}/jobs/new?kind=send_reminder&payload=${encodeURIComponent('{"id": 7, "attach_invoice": true}')}`,
    );
    const attach = page.locator('#payload-fields input[data-field="attach_invoice"]');
    await expect(attach.getAttribute('type')).resolves.toBe('checkbox');
    await expect(attach.isChecked()).resolves.toBe(true); // the fields show the payload given
    await attach.uncheck();
    await expect(page.locator('textarea[name="payload"]').inputValue()).resolves.toBe(
      '{"id":7,"attach_invoice":false}',
    );
    // A refusal names its field in the JSON view and marks the field's input.
    await page.goto(`${base}/jobs/new?kind=set_product_stock`);
    await page.locator('#payload-fields [data-field="id"]').fill('3');
    await page.getByRole('button', { name: 'Queue' }).click();
    await page.locator('label.field-error [data-field="stock"]').waitFor({ timeout: 5000 });
    await expect(page.locator('[role="alert"]').textContent()).resolves.toMatch(/^payload\.stock: /);
  });
});
