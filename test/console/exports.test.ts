/**
 * The console's Exports page against `invoice-mirror export`: the XAF of a year it downloads is the
 * file `export xaf` writes; the zip of a quarter holds the files `export ubl --period` writes (and
 * the invoices it leaves out, with their reasons); each invoice's link gives the file `export ubl
 * --invoice` writes. The seller is the account's file in EXPORT_SELLERS, and what keeps an export
 * from being made is one line on the page.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../src/console/index.js';
import { runCli } from '../support/cli.js';
import { pullerFor, useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';
import { validateXaf } from '../support/xsd.js';
import { BELGIAN_SELLER, SELLER } from '../exports/fixtures.js';

const database = useTestDatabase();
const env = useSandbox({ records: 150, sentInvoices: 600, now: '2027-01-10T12:00:00Z' });
const sellers = mkdtempSync(join(tmpdir(), 'console-sellers-'));
const work = mkdtempSync(join(tmpdir(), 'console-exports-'));
const settings = { inDaemon: false, user: 'admin', password: undefined, token: undefined };
const consoleWith = (dir: string | undefined) =>
  createConsoleApp({ db: database.current.handle.db, settings, maxAttempts: 1, worker: false, sellers: dir });
const cli = (...args: string[]) =>
  runCli(['export', ...args, '--account', 'default', '--seller', join(sellers, 'default.json')], {
    env: database.current.env,
    cwd: work,
  });

beforeAll(async () => {
  writeFileSync(join(sellers, 'default.json'), JSON.stringify(SELLER));
  await pullerFor(database, env)({ kind: 'backfill' });
}, 120_000);

describe('the Exports page', { timeout: 120_000 }, () => {
  it('lists the years and quarters with their downloads, linked from the header', async () => {
    const page = await (await consoleWith(sellers).request('/exports?account=default')).text();
    expect(page).toContain('href="/exports?account=default"');
    expect(page).toContain(
      `Seller: ${SELLER.name.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')}`,
    );
    const quarters = new Set(
      env.sandbox.store
        .sentInvoices()
        .filter((i) => i.sent !== '')
        .map((i) => `${String(i.sent).slice(0, 4)}-Q${Math.ceil(Number(String(i.sent).slice(5, 7)) / 3)}`),
    );
    for (const quarter of quarters) {
      expect(page).toContain(`href="/exports/ubl.zip?period=${quarter}&amp;account=default"`);
      expect(page).toContain(`href="/exports/ubl?period=${quarter}&amp;account=default"`);
    }
    for (const year of new Set([...quarters].map((q) => q.slice(0, 4))))
      expect(page).toContain(`href="/exports/xaf?year=${year}&amp;account=default"`);
  });

  it('downloads the auditfile of a year that export xaf writes', async () => {
    const answer = await consoleWith(sellers).request('/exports/xaf?account=default&year=2026');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="default-2026.xaf"');
    const downloaded = await answer.text();
    const out = join(work, '2026.xaf');
    expect((await cli('xaf', '--year', '2026', '--out', out)).code).toBe(0);
    expect(downloaded).toBe(readFileSync(out, 'utf8'));
    expect(await validateXaf(downloaded)).toEqual([]);
  });

  it('downloads the UBL documents of a quarter as a zip of the files export ubl writes, and lists each invoice', async () => {
    const app = consoleWith(sellers);
    const answer = await app.request('/exports/ubl.zip?account=default&period=2026-Q3');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await answer.arrayBuffer()));
    const out = join(work, 'q3');
    const written = await cli('ubl', '--period', '2026-Q3', '--out', out);
    const leftOut = written.stderr.split('\n').filter((line) => line.includes(' left out: '));
    expect(leftOut.length).toBeGreaterThan(0);
    const names = readdirSync(out).sort();
    expect(Object.keys(files).sort()).toEqual([...names, 'left-out.txt'].sort());
    for (const name of names) expect(strFromU8(files[name]!)).toBe(readFileSync(join(out, name), 'utf8'));
    expect(strFromU8(files['left-out.txt']!).trim().split('\n')).toHaveLength(leftOut.length);
    // The list: a link per document, and each invoice left out with its reason.
    const list = await (await app.request('/exports/ubl?account=default&period=2026-Q3')).text();
    expect(list.match(/href="\/exports\/ubl\/\d+\?account=default"/g)).toHaveLength(names.length);
    expect(list.match(/<td>left out<\/td>/g)).toHaveLength(leftOut.length);
    const [id] = /\/exports\/ubl\/(\d+)/.exec(list)!.slice(1);
    const one = await app.request(`/exports/ubl/${id}?account=default`);
    expect(one.status).toBe(200);
    const single = join(work, 'one');
    expect((await cli('ubl', '--invoice', id!, '--out', single)).code).toBe(0);
    const [file] = readdirSync(single);
    expect(one.headers.get('content-disposition')).toBe(`attachment; filename="${file}"`);
    expect(await one.text()).toBe(readFileSync(join(single, file!), 'utf8'));
  });

  it.each([
    [
      'no EXPORT_SELLERS',
      undefined,
      '/exports/xaf?account=default&year=2026',
      /set EXPORT_SELLERS to a directory holding default\.json/,
    ],
    [
      'no seller file of the account',
      work,
      '/exports/ubl.zip?account=default&period=2026-Q3',
      /EXPORT_SELLERS: .*default\.json \(the seller file of account default\): no such file/,
    ],
    [
      'a year that is none',
      'sellers',
      '/exports/xaf?account=default&year=26',
      /year: a year such as 2026, got &#39;26&#39;/,
    ],
    [
      'a period that is none',
      'sellers',
      '/exports/ubl.zip?account=default&period=2026-Q5',
      /period: a quarter \(2026-Q3\)/,
    ],
  ])('refuses a download with one line: %s', async (_what, dir, path, line) => {
    const answer = await consoleWith(dir === 'sellers' ? sellers : dir).request(path);
    expect(answer.status).toBe(400);
    const body = await answer.text();
    expect(body.match(/<p class="error" role="alert">([^<]*)<\/p>/)?.[1]).toMatch(line);
  });

  it('answers an invoice id that names no sent invoice with 404 and one line, as every route with an id', async () => {
    const answer = await consoleWith(sellers).request('/exports/ubl/999999?account=default');
    expect(answer.status).toBe(404);
    const body = await answer.text();
    expect(body.match(/<p class="error">([^<]*)<\/p>/)?.[1]).toBe('No sent invoice 999999 in default.');
  });

  it('says on the page why a seller does not fit the account', async () => {
    const other = mkdtempSync(join(tmpdir(), 'console-sellers-be-'));
    writeFileSync(join(other, 'default.json'), JSON.stringify(BELGIAN_SELLER));
    const page = await (await consoleWith(other).request('/exports?account=default')).text();
    expect(page).toMatch(
      /No export without the seller: the seller&#39;s country is BE, but account default files its VAT return in NL/,
    );
    expect(page).not.toContain('/exports/xaf?year=');
  });
});
