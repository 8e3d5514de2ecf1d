/**
 * `invoice-mirror export xaf|ubl` as a user runs them (the built CLI, a child process) on a
 * mirror pulled from the sandbox: the files they write pass the validators, and every kind of bad
 * argument gets one line naming it.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { pullerFor, useSandbox } from '../support/sandbox.js';
import { checkPeppol, fatal } from '../support/schematron.js';
import { useTestDatabase } from '../support/test-database.js';
import { validateUbl, validateXaf } from '../support/xsd.js';
import { BELGIAN_SELLER, SELLER } from './fixtures.js';

const database = useTestDatabase();
const env = useSandbox({ records: 200, sentInvoices: 300, now: '2027-01-10T12:00:00Z' });
const dir = mkdtempSync(join(tmpdir(), 'export-cli-'));
const sellerFile = join(dir, 'seller.json');
const cli = (...args: string[]) => runCli(args, { env: database.current.env, cwd: dir });
const oneLine = (text: string) => text.trim().split('\n');

// An invoice of 2026 whose `taxes` the service left empty (as on some old records).
let untaxed = '';

beforeAll(async () => {
  writeFileSync(sellerFile, JSON.stringify(SELLER));
  const invoice = env.sandbox.store
    .sentInvoices()
    .find((candidate) => String(candidate.sent).startsWith('2026-') && !Array.isArray(candidate.lines))!;
  env.sandbox.store.setInvoiceWire(Number(invoice.id), { taxes: [] });
  untaxed = String(invoice.invoicenr);
  await pullerFor(database, env)();
}, 120_000);

describe('export xaf', () => {
  it('writes a valid auditfile of the year and says what it holds', async () => {
    const out = join(dir, '2026.xaf');
    const result = await cli(
      'export',
      'xaf',
      '--account',
      'default',
      '--year',
      '2026',
      '--seller',
      sellerFile,
      '--out',
      out,
    );
    expect(result.code).toBe(0);
    const year = env.sandbox.store.sentInvoices().filter((invoice) => String(invoice.sent).startsWith('2026-'));
    expect(result.stderr).toContain(`${year.length} invoices`);
    expect(result.stderr).toMatch(
      new RegExp(`invoice ${untaxed} \\(id \\d+\\) booked: the service gave no VAT per rate .*computed from its lines`),
    );
    expect(await validateXaf(readFileSync(out, 'utf8'))).toEqual([]);
  });

  it.each([
    [['--year', '2026', '--account', 'nobody'], /--account.*nobody/],
    [['--year', '26', '--account', 'default'], /--year: a year such as 2026, got '26'/],
    [['--year', '1999', '--account', 'default'], /no sent invoices or payments in 1999/],
  ])('refuses %j in one line', async (args, message) => {
    const result = await cli('export', 'xaf', ...args, '--seller', sellerFile);
    expect(result.code).not.toBe(0);
    expect(oneLine(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('names the seller file and the field that is wrong', async () => {
    const bad = join(dir, 'bad-seller.json');
    writeFileSync(bad, JSON.stringify({ ...SELLER, vatNumber: '123' }));
    for (const [file, message] of [
      [bad, /--seller .*bad-seller\.json: vatNumber: a VAT number with its country prefix/],
      [join(dir, 'none.json'), /--seller .*none\.json: no such file/],
    ] as const) {
      const result = await cli('export', 'xaf', '--account', 'default', '--year', '2026', '--seller', file);
      expect(result.code).toBe(2);
      expect(oneLine(result.stderr)).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
  });
});

describe('export ubl', { timeout: 120_000 }, () => {
  it('writes one valid document per invoice of the quarter and names those it leaves out', async () => {
    const out = join(dir, 'q3');
    const result = await cli(
      'export',
      'ubl',
      '--account',
      'default',
      '--period',
      '2026-Q3',
      '--seller',
      sellerFile,
      '--out',
      out,
    );
    const quarter = env.sandbox.store
      .sentInvoices()
      .filter((invoice) => String(invoice.sent) >= '2026-07-01' && String(invoice.sent) <= '2026-09-30');
    const files = readdirSync(out);
    const leftOut = result.stderr.split('\n').filter((line) => line.includes(' left out: '));
    expect(files.length + leftOut.length).toBe(quarter.length);
    expect(result.code).toBe(leftOut.length > 0 ? 1 : 0);
    const documents = files.map((name) => ({ name, xml: readFileSync(join(out, name), 'utf8') }));
    expect(await validateUbl(documents)).toEqual([]);
    for (const { name, xml } of documents.slice(0, 10))
      expect({ name, fatal: fatal(await checkPeppol(xml)) }).toEqual({ name, fatal: [] });
  });

  it('writes the one invoice asked for', async () => {
    const out = join(dir, 'one');
    const [first] = readdirSync(join(dir, 'q3'));
    const number = first!.replace(/\.xml$/, '');
    const invoice = env.sandbox.store.sentInvoices().find((candidate) => candidate.invoicenr === number)!;
    const result = await cli(
      'export',
      'ubl',
      '--account',
      'default',
      '--invoice',
      String(invoice.id),
      '--seller',
      sellerFile,
      '--out',
      out,
    );
    expect(result.code).toBe(0);
    expect(readdirSync(out)).toEqual([first]);
  });

  it('names what the seller file lacks for Peppol, before reading any invoice', async () => {
    const noIban = join(dir, 'no-iban.json');
    writeFileSync(noIban, JSON.stringify({ ...SELLER, iban: undefined }));
    const result = await cli(
      'export',
      'ubl',
      '--account',
      'default',
      '--period',
      '2026-Q3',
      '--seller',
      noIban,
      '--out',
      join(dir, 'y'),
    );
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toEqual([
      'invoice-mirror: --seller: a Dutch seller must say how to pay (NL-R-007): set "iban"',
    ]);
  });

  it.each([
    [['--period', '2026-Q5'], /--period: a quarter \(2026-Q3\), a month \(2026-07\) or a year \(2026\), got '2026-Q5'/],
    [[], /give --invoice ID or --period PERIOD/],
    [['--period', '2026-Q3', '--invoice', '5'], /give --invoice ID or --period PERIOD/],
    [['--invoice', '999999'], /no sent invoice with id 999999/],
    [['--period', '2001-Q1'], /no sent invoice in 2001-Q1/],
  ])('refuses %j in one line', async (args, message) => {
    const result = await cli(
      'export',
      'ubl',
      '--account',
      'default',
      ...args,
      '--seller',
      sellerFile,
      '--out',
      join(dir, 'x'),
    );
    expect(result.code).not.toBe(0);
    expect(oneLine(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });
});

describe('the seller of an account', { timeout: 120_000 }, () => {
  const run = (args: string[], extra: Record<string, string | undefined> = {}) =>
    runCli(['export', 'xaf', '--account', 'default', '--year', '2026', ...args], {
      env: { ...database.current.env, EXPORT_SELLERS: undefined, ...extra },
      cwd: dir,
    });

  it('is the account’s NAME.json in EXPORT_SELLERS when --seller is not given', async () => {
    const sellers = mkdtempSync(join(tmpdir(), 'export-sellers-'));
    writeFileSync(join(sellers, 'default.json'), JSON.stringify(SELLER));
    const out = join(dir, 'from-sellers.xaf');
    const result = await run(['--out', out], { EXPORT_SELLERS: sellers });
    expect(result.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain(`<taxRegIdent>${SELLER.vatNumber}</taxRegIdent>`);
  });

  it.each([
    [
      'neither --seller nor EXPORT_SELLERS',
      [],
      {},
      /give --seller FILE .*, or set EXPORT_SELLERS to a directory holding default\.json/,
    ],
    [
      'no file of the account in EXPORT_SELLERS',
      [],
      { EXPORT_SELLERS: tmpdir() },
      /EXPORT_SELLERS: .*default\.json \(the seller file of account default\): no such file/,
    ],
  ])('says in one line what to do with %s', async (_what, args, extra, message) => {
    const result = await run(args, extra);
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it('refuses a seller of another country than the account’s VAT country', async () => {
    const belgian = join(dir, 'belgian-seller.json');
    writeFileSync(belgian, JSON.stringify(BELGIAN_SELLER));
    for (const kind of ['xaf', 'ubl']) {
      const result = await runCli(
        [
          'export',
          kind,
          '--account',
          'default',
          kind === 'xaf' ? '--year' : '--period',
          kind === 'xaf' ? '2026' : '2026-Q3',
          '--seller',
          belgian,
          '--out',
          join(dir, 'never'),
        ],
        { env: database.current.env, cwd: dir },
      );
      expect(result.code).toBe(2);
      expect(oneLine(result.stderr)).toEqual([
        "invoice-mirror: --seller: the seller's country is BE, but account default files its VAT return in NL (accounts.vat_country), by which its VAT is classified: give the seller of NL, or set the account's vat_country",
      ]);
    }
  });
});
