/**
 * The console and `status` over a mirror of two accounts whose client numbers overlap (rows put
 * in with SQL, no service): the all-accounts overview lists both with their state; the switcher
 * changes what a page shows; a page of one account never shows the other's rows; a page that
 * acts on one account asks which when none is chosen; an unknown `?account=` is a 400 line.
 * The overview is photographed at 1280×800 into test-output/screenshots/.
 */
import type { Server } from 'node:http';
import { Command } from 'commander';
import { sql } from 'kysely';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureDefaultAccount } from '../../src/accounts/store.js';
import { registerStatusCommand } from '../../src/commands/status.js';
import { createConsoleApp } from '../../src/console/index.js';
import { jsonb } from '../../src/db/index.js';
import { findChromium, photograph, serveConsole, widerThanWindow } from '../support/browser.js';
import { useTestDatabase } from '../support/test-database.js';

const CHROMIUM = findChromium('web console browser tests');
const database = useTestDatabase();
const settings = { inDaemon: false, user: 'admin', password: undefined, token: undefined };

/** What each account's rows say, so a page can be searched for the other account's. */
const ACME = { one: 'Acme Anvils BV', two: 'Acme Rockets BV' };
const BETA = { one: 'Beta Bakery GmbH', three: 'Beta Brewery GmbH' };
const ids = { acme: 0, beta: 0, acmeJob: 0, betaJob: 0 };

async function fill(): Promise<void> {
  const db = database.current.handle.db;
  // A test schema may start with the account `default` (no rows yet): this mirror holds two others.
  await sql`delete from accounts where name = 'default'`.execute(db);
  const { rows } = await sql<{ id: number; name: string }>`
    insert into accounts (name, state, state_reason) values
      ('acme', 'active', null), ('beta', 'refused', '401 Unauthorized on 2026-11-25')
    returning id, name`.execute(db);
  ids.acme = rows.find((r) => r.name === 'acme')!.id;
  ids.beta = rows.find((r) => r.name === 'beta')!.id;
  const { acme, beta } = ids;
  // Client 1 is in both accounts, each its own.
  await sql`insert into clients (account_id, clientnr, company, raw) values
    (${acme}, 1, ${ACME.one}, '{}'), (${acme}, 2, ${ACME.two}, '{}'),
    (${beta}, 1, ${BETA.one}, '{}'), (${beta}, 3, ${BETA.three}, '{}')`.execute(db);
  await sql`insert into sync_runs (account_id, kind, status, entities, started_at, finished_at, error) values
    (${acme}, 'sync', 'succeeded', '{clients,products}', now() - interval '11 minutes', now() - interval '10 minutes', null),
    (${beta}, 'sync', 'partial', '{clients,products}', now() - interval '3 hours', now() - interval '3 hours',
     'products: the list ended early')`.execute(db);
  await sql`insert into changes (account_id, entity, entity_id, op, changed_fields, before, after) values
    (${acme}, 'clients', '1', 'update', '{company}', ${jsonb({ company: 'Acme Old' })}, ${jsonb({ company: ACME.one })}),
    (${beta}, 'clients', '1', 'update', '{company}', ${jsonb({ company: 'Beta Old' })}, ${jsonb({ company: BETA.one })})`.execute(
    db,
  );
  const jobs = await sql<{ id: string; account_id: number }>`
    insert into jobs (account_id, kind, payload) values
      (${acme}, 'set_product_stock', '{"id": 1, "stock": 3}'), (${beta}, 'delete_product', '{"id": 1}')
    returning id, account_id`.execute(db);
  ids.acmeJob = Number(jobs.rows.find((r) => r.account_id === acme)!.id);
  ids.betaJob = Number(jobs.rows.find((r) => r.account_id === beta)!.id);
  await sql`insert into held_deletes (account_id, entity, entity_id) values (${beta}, 'clients', '3'), (${beta}, 'clients', '1')`.execute(
    db,
  );
  await sql`insert into rejected_values (account_id, entity, entity_id, field, action, value, reason) values
    (${acme}, 'clients', '2', 'email', 'rejected', 'not-an-email', 'not an email address')`.execute(db);
}

const app = () => createConsoleApp({ db: database.current.handle.db, settings, maxAttempts: 1, worker: true });
async function get(path: string): Promise<{ status: number; body: string }> {
  const answer = await app().request(path);
  return { status: answer.status, body: await answer.text() };
}

beforeAll(fill);

describe('the console over two accounts', () => {
  it('the overview of all accounts lists both: state with its reason, last complete sync, counts, failing lists', async () => {
    const { status, body } = await get('/');
    expect(status).toBe(200);
    expect(body).toContain('<h1>All accounts</h1>');
    expect(body).toContain('href="/?account=acme"');
    expect(body).toContain('href="/?account=beta"');
    expect(body).toContain('the service refused its API key (401 Unauthorized on 2026-11-25)');
    // beta's last pull named products in its error: a failing list.
    expect(body).toMatch(/<span class="error">products<\/span>/);
    // The attention list names the account of each item, and its remedy names it too.
    expect(body).toContain('account beta: 2 held deletes of clients (too many missing from the service at once)');
    // On a page the remedy is a link to where they are released (the CLI's command is status's wording).
    expect(body).toContain('<a href="/?account=beta#held-deletes">release or keep them</a>');
    expect(body).not.toContain('invoice-mirror sync --account beta --allow-deletes clients');
    expect(body).toContain('account acme: 1 values not stored as sent');
  });

  it('a page of one account never shows the other account’s rows', async () => {
    const pages = [
      '/',
      '/records',
      '/records/clients',
      '/records/clients/1',
      '/changes',
      '/changes/clients/1',
      '/jobs',
    ];
    for (const path of pages) {
      const { status, body } = await get(`${path}?account=acme`);
      expect(status, path).toBe(200);
      for (const other of [BETA.one, BETA.three, 'Beta Old', `/jobs/${ids.betaJob}`])
        expect(body, `${path} shows ${other}`).not.toContain(other);
    }
    expect((await get('/records/clients/1?account=acme')).body).toContain(ACME.one);
    expect((await get('/records/clients/1?account=beta')).body).toContain(BETA.one);
    expect((await get('/records/clients?account=beta')).body).not.toContain(ACME.two);
    // Every link of a page of one account keeps the account.
    const links = [...(await get('/records/clients?account=acme')).body.matchAll(/href="(\/[^"]*)"/g)].map(
      (m) => m[1]!,
    );
    const kept = links.filter((href) => !href.startsWith('/static/') && href !== '/favicon.ico');
    expect(kept.length).toBeGreaterThan(5);
    expect(kept.filter((href) => !href.includes('account=acme'))).toEqual([]);
    expect((await get(`/jobs/${ids.betaJob}?account=acme`)).status).toBe(404);
    expect((await get(`/jobs/${ids.betaJob}?account=beta`)).status).toBe(200);
  });

  it("a report of one account shows that account's rows only, by the view's account_id", async () => {
    const acme = (await get('/reports/client_overview?account=acme')).body;
    expect(acme).toContain(ACME.one);
    expect(acme).not.toContain(BETA.one);
    expect(acme).not.toContain('<th class="" title="account_name');
    const all = (await get('/reports/client_overview')).body;
    expect(all).toContain(ACME.one);
    expect(all).toContain(BETA.one);
    // A client number names a record of the row's own account.
    expect(all).toContain('href="/records/clients/1?account=beta"');
  });

  it('rows of all accounts name their account and link to it', async () => {
    const { body } = await get('/records/clients');
    expect(body).toContain(ACME.one);
    expect(body).toContain(BETA.one);
    expect(body).toContain('href="/records/clients/1?account=beta"');
    expect(body).toContain('href="/records/clients/1?account=acme"');
    expect((await get('/changes')).body).toContain('href="/changes/clients/1?account=beta"');
    expect((await get('/jobs')).body).toContain(`href="/jobs/${ids.betaJob}?account=beta"`);
  });

  it('a page that acts on one account asks which when none is chosen; the job form queues for the one chosen', async () => {
    const form = await get('/jobs/new?kind=set_product_stock');
    expect(form.body).toContain('Choose the account: a job is for one account.');
    expect(form.body).toContain('href="/jobs/new?kind=set_product_stock&amp;account=acme"');
    expect(form.body).not.toContain('<textarea');
    const chosen = await get('/jobs/new?kind=set_product_stock&account=beta');
    expect(chosen.body).toContain('action="/jobs?account=beta"');
    expect(chosen.body).toContain('For account <strong>beta</strong>.');
    expect(chosen.body).toContain('A job queued now waits until it is served again.');
    expect((await get('/records/clients/1')).body).toContain('Choose the account: a record is for one account.');
    const posted = await app().request('/jobs', {
      method: 'POST',
      headers: { origin: 'http://localhost', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'kind=delete_product&payload=%7B%22id%22%3A1%7D',
    });
    expect(posted.status).toBe(400);
    expect(await posted.text()).toContain('Choose the account: a job is for one account.');
  });

  it('an unknown account is a 400 with one line naming the known ones', async () => {
    for (const path of ['/?account=gamma', '/records/clients?account=gamma', '/jobs/new?account=gamma']) {
      const { status, body } = await get(path);
      expect(status, path).toBe(400);
      expect(body).toContain(
        '<p class="error">No account named &quot;gamma&quot; in this mirror (known: acme, beta).</p>',
      );
    }
  });
});

describe('the console over the one account a mirror starts with', () => {
  const single = useTestDatabase();
  const one = () => createConsoleApp({ db: single.current.handle.db, settings, maxAttempts: 1, worker: true });
  beforeAll(async () => {
    const db = single.current.handle.db;
    await ensureDefaultAccount(db);
    await sql`insert into clients (account_id, clientnr, company, raw) select id, 1, ${ACME.one}, '{}' from accounts`.execute(
      db,
    );
    await sql`insert into held_deletes (account_id, entity, entity_id) select id, 'clients', '1' from accounts`.execute(
      db,
    );
  });

  it('shows its pages as before accounts: no account to choose, no account in the links or the advice', async () => {
    const overview = await (await one().request('/')).text();
    expect(overview).toContain('<h1>Overview</h1>');
    // The attention list links to the held deletes (the CLI's command is status's wording, issue 47).
    expect(overview).toContain('href="/#held-deletes"');
    expect(overview).not.toContain('invoice-mirror sync --allow-deletes clients');
    expect(overview).toContain('href="/held-deletes/clients/release"');
    const record = await (await one().request('/records/clients/1')).text();
    expect(record).toContain(ACME.one);
    const form = await (await one().request('/jobs/new?kind=set_product_stock')).text();
    expect(form).toContain('action="/jobs"');
    expect(form).not.toContain('For account');
    const links = [...record.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);
    expect(links.filter((href) => href.includes('account='))).toEqual([]);
    // Named, it is the same account, and the links keep the name.
    expect(await (await one().request('/records/clients/1?account=default')).text()).toContain(
      'href="/changes/clients/1?account=default"',
    );
  });
});

describe.skipIf(!CHROMIUM)('the account switcher, in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  let base: string;
  beforeAll(async () => {
    ({ server, base } = await serveConsole(database.current.handle.db, { inDaemon: false }));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(5000);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('changes what a page shows, keeping the page and its filters', async () => {
    await page.goto(`${base}/`);
    await photograph(page, 'accounts-overview');
    await page.goto(`${base}/records/clients?q=B`);
    const companies = () => page.locator('table.records tbody').textContent();
    await expect(companies()).resolves.toContain(BETA.one);
    await page.selectOption('header select[name="account"]', 'acme');
    await page.waitForURL(`${base}/records/clients?q=B&account=acme`);
    await expect(companies()).resolves.toContain(ACME.one);
    await expect(companies()).resolves.not.toContain(BETA.one);
    await page.getByRole('link', { name: 'Changes' }).click();
    await page.waitForURL(`${base}/changes?account=acme`);
    await page.selectOption('header select[name="account"]', 'beta');
    await page.waitForURL(`${base}/changes?account=beta`);
    await page.getByRole('link', { name: '1', exact: true }).click();
    await page.waitForURL(`${base}/changes/clients/1?account=beta`);
    await expect(page.locator('td.after').first().textContent()).resolves.toBe(BETA.one);
    await page.selectOption('header select[name="account"]', '');
    await page.waitForURL(`${base}/changes/clients/1?account=`); // empty: all accounts
    await expect(page.locator('main p.error').textContent()).resolves.toBe(
      'Choose the account: a record is for one account.',
    );
  });

  it('no page of the accounts is wider than a phone (390×844), switcher included', async () => {
    const paths = ['/', '/jobs/new', '/records/clients', '/jobs?account=beta', '/changes'];
    const overflowing = await widerThanWindow(page, base, paths, [[390, 844]]);
    expect(overflowing).toEqual([]);
  });
});

describe('status over two accounts', () => {
  /** Runs `invoice-mirror status ARGS` in this process and returns what it printed. */
  async function status(...args: string[]): Promise<string> {
    const env = { ...process.env };
    Object.assign(process.env, database.current.env, { INVOICING_API_USER: 'u', INVOICING_API_KEY: 'k' });
    let out = '';
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out += String(chunk);
      return true;
    });
    try {
      const command = new Command('status').exitOverride();
      registerStatusCommand(command);
      await command.parseAsync(args, { from: 'user' });
    } finally {
      write.mockRestore();
      process.env = env;
    }
    return out;
  }

  it('starts with one row per account, then the details, each row of several accounts naming its own', async () => {
    const text = await status();
    expect(text).toMatch(/^Accounts\naccount\s+state\s+last_complete_sync\s+age\s+queued_jobs\s+problems$/m);
    expect(text).toMatch(/^acme\s+active\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+1[01] min\s+1\s+1 values not stored as sent$/m);
    expect(text).toMatch(/^beta\s+refused\s+never\s+1\s+refused \(401 Unauthorized/m);
    expect(text).toContain('- account beta: the service refused its API key');
    expect(text).toMatch(/^beta\s+clients\s+2\s+\S+\s+run invoice-mirror sync --account beta --allow-deletes/m);
    expect(text).toContain('Rate limit: not seen yet');
  });

  it('with one account named, prints what status printed before accounts', async () => {
    const text = await status('--account', 'acme');
    expect(text).not.toContain('Accounts\n');
    expect(text).not.toContain('beta');
    expect(text).toMatch(/^clients\s+2\s+0$/m);
    expect(text).toMatch(/^clients\s+2\s+email\s+rejected/m);
    const json = JSON.parse(await status('--account', 'beta', '--json')) as {
      accounts: { name: string; failing_lists: string[] }[];
      heldDeletes: { account: string; held: number }[];
    };
    expect(json.accounts).toEqual([expect.objectContaining({ name: 'beta', failing_lists: ['products'] })]);
    expect(json.heldDeletes).toEqual([expect.objectContaining({ account: 'beta', held: 2 })]);
  });

  it('an unknown --account is a usage error naming the known ones', async () => {
    await expect(status('--account', 'gamma')).rejects.toThrow(/no account named 'gamma' \(known: acme, beta\)/);
  });
});
