/**
 * The VAT return against figures computed here from the sandbox's own records (its invoices, its
 * own country codes; test/reports/expected-vat.ts, in whole cents): 10,002 sent invoices over
 * about eight quarters in three accounts (two Dutch, one Belgian), pulled by the real sync. Every
 * entry's classification, every rubric and grid of every quarter and month to the cent, the Opgaaf
 * ICP equal to rubric 3b in every period, every kind of problem listed, the countries' ISO codes
 * and the mirrored tax rates and categories.
 */
import { resolveAccounts } from '../../src/accounts/resolve.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { forEachAccount, pullAccount } from '../../src/accounts/pull.js';
import { NL_RUBRICS, BE_GRIDS, VAT_PROBLEMS } from '../../src/catalog/index.js';
import { loadConfig } from '../../src/config.js';
import { findReport, runReport } from '../../src/reports/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { COUNTRIES } from '../../src/sandbox/countries.js';
import { createApiClient } from '../../src/service-client.js';
import { addSandboxAccounts } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';
import { normaliseRow } from './expected.js';
import {
  beReturnSums,
  icpSums,
  nlReturnSums,
  vatEntries,
  type KnownCountry,
  type ReturnSums,
  type VatAccount,
} from './expected-vat.js';

const database = useTestDatabase();
const SECRET = 'a test master secret of more than 32 characters';
const db = () => database.current.handle.db;
/** The Dutch names of the service's list that map to no ISO code: Congo twice, two states gone. */
const UNMAPPED = ['Congo', 'Joegoslavië', 'Nederlandse Antillen'];
const VAT_COUNTRY: Record<number, 'NL' | 'BE'> = { 1: 'NL', 2: 'NL', 3: 'BE' };

let sandbox: Sandbox;
let app: App;
const oracle = new Map<number, VatAccount>();
const accountIds = new Map<number, number>();

/** What the oracle knows of the sandbox's countries: its own code, none for the names that map to none. */
const KNOWN = new Map<string, KnownCountry>(
  COUNTRIES.map((c) => [c.id, { name: c.names.nl, code: UNMAPPED.includes(c.names.nl) ? null : c.code }]),
);

/** Faults no generated record has: put on a few invoices of account 1, as a real account may hold them. */
function addFaults(): void {
  const store = sandbox.account(1).store;
  const [a, b, c, d] = store.sentInvoices().filter((i) => i.sent !== '' && Number(i.totalintax) > 0);
  store.setInvoiceWire(Number(a!.id), { taxes: { tax1: { rate: 7, sum: '7.00', sum_of: '100.00' } } });
  store.setInvoiceWire(Number(b!.id), { taxes: { tax1: { rate: 'hoog', sum: '21.00', sum_of: '100.00' } } });
  store.setInvoiceWire(Number(c!.id), { taxes: { tax1: { rate: 0, sum: '1.00', sum_of: '10.00' } } });
  // One client library spells the base `sumof`: read as well.
  store.setInvoiceWire(Number(d!.id), { taxes: [{ rate: 21, sum: '2.10', sumof: '10.00' }] });
}

beforeAll(async () => {
  sandbox = await startSandbox({
    accounts: 3,
    seed: 44,
    perEntity: { clients: 400, products: 5, quotations: 0, saved_invoices: 5, repeating_invoices: 0 },
    sentInvoices: 3334,
    now: new Date(),
  });
  addFaults();
  const config = loadConfig({ INVOICING_API_URL: sandbox.url, ACCOUNTS_SECRET: SECRET, MAX_RETRIES: '1' });
  app = {
    config: { ...config, schema: database.current.schema },
    database: database.current.handle,
    close: async () => {},
  };
  await addSandboxAccounts(db(), sandbox, SECRET);
  for (const index of [1, 2, 3]) {
    const account = await resolveAccounts(db(), `client-${index}`, { one: true });
    accountIds.set(index, account.id);
    await sql`update accounts set vat_country = ${VAT_COUNTRY[index]!} where id = ${account.id}`.execute(db());
    oracle.set(index, {
      invoices: sandbox.account(index).store.sentInvoices(),
      countries: KNOWN,
      vatCountry: VAT_COUNTRY[index]!,
    });
  }
  const accounts = await Promise.all([1, 2, 3].map((i) => resolveAccounts(db(), `client-${i}`, { one: true })));
  const results = await forEachAccount(accounts, 3, async (acc) => {
    const client = createApiClient(app, acc);
    try {
      return await pullAccount(app, { account: acc, client, options: { kind: 'backfill' } });
    } finally {
      await client.close();
    }
  });
  for (const result of results) if (result.status === 'rejected') throw result.reason;
}, 240_000);

afterAll(async () => {
  await sandbox?.close();
});

async function rows(name: string, index: number): Promise<Record<string, unknown>[]> {
  const report = findReport(name)!;
  const { rows: found } = await runReport(db(), database.current.schema, report, {
    scope: { ids: [accountIds.get(index)!] },
  });
  return found.map(normaliseRow);
}

const cents = (value: unknown): bigint | null => (value === null ? null : BigInt(value as number));

/** A return's rows against the oracle's sums: every covered row to the cent, every other row empty. */
function expectReturn(
  found: Record<string, unknown>[],
  sums: ReturnSums,
  codeColumn: string,
  partlyVat: (period: string) => bigint | null,
) {
  const periods = new Set(found.map((row) => String(row.period)));
  expect([...periods].sort()).toEqual([...sums.periods.keys()].sort());
  for (const row of found) {
    const period = String(row.period);
    const code = String(row[codeColumn]);
    const at = `${period} ${code}`;
    const s = sums.sums.get(`${period}|${code}`) ?? { base: 0n, vat: 0n, entries: 0 };
    if (row.coverage === 'no') {
      expect([row.base, row.vat, row.entries], at).toEqual([null, null, null]);
      continue;
    }
    if (row.coverage === 'partly') {
      expect(cents(row.vat), at).toBe(partlyVat(period));
      continue;
    }
    if (row.base !== null) expect(cents(row.base), at).toBe(s.base);
    if (row.vat !== null) expect(cents(row.vat), at).toBe(s.vat);
    expect(row.entries, at).toBe(s.entries);
    expect(row.unclassified_entries, at).toBe(sums.sums.get(`${period}|unclassified`)?.entries ?? 0);
  }
}

describe('the VAT return of 10,002 sent invoices in three accounts', () => {
  it('holds the invoices, over about eight quarters', async () => {
    const { rows: found } = await sql<{ invoices: number; quarters: number }>`
      select count(*)::int as invoices, count(distinct to_char(sent, 'YYYY-Q'))::int as quarters from invoices`.execute(
      db(),
    );
    expect(found[0]!.invoices).toBe(10_002);
    expect(found[0]!.quarters).toBeGreaterThanOrEqual(8);
  });

  it('gives each country the ISO code the sandbox knows it by; the names that map to none have none', async () => {
    const { rows: found } = await sql<{ id: number; name: string; iso2: string | null }>`
      select id, name, iso2 from countries where account_id = ${accountIds.get(1)!} order by id`.execute(db());
    expect(found).toHaveLength(COUNTRIES.length);
    for (const row of found) expect(row.iso2, row.name).toBe(KNOWN.get(String(row.id))!.code);
    expect([...new Set(found.filter((row) => row.iso2 === null).map((row) => row.name))].sort()).toEqual(UNMAPPED);
  });

  it('classifies every VAT entry as worked out from the sandbox records', async () => {
    for (const index of [1, 2, 3]) {
      const expected = vatEntries(oracle.get(index)!).map((row) => ({
        ...row,
        account_id: accountIds.get(index),
        account_name: `client-${index}`,
      }));
      expect(await rows('vat_entries', index), `client-${index}`).toEqual(expected);
    }
  });

  it('vat_return_nl: every rubric of every quarter and month, to the cent', async () => {
    for (const index of [1, 2]) {
      const sums = nlReturnSums(vatEntries(oracle.get(index)!));
      const found = await rows('vat_return_nl', index);
      expect(found.length).toBe(sums.periods.size * NL_RUBRICS.length);
      expectReturn(found, sums, 'rubric', (period) => sums.sums.get(`${period}|5a`)?.vat ?? 0n);
      const quarter = found.filter((row) => row.period_kind === 'quarter' && row.rubric === '1a');
      expect(quarter.length).toBeGreaterThanOrEqual(8);
      for (const rubric of ['1a', '1b', '1e', '3a', '3b'])
        expect(
          found.some((row) => row.rubric === rubric && cents(row.base)! !== 0n),
          rubric,
        ).toBe(true);
    }
    expect(await rows('vat_return_nl', 3)).toEqual([]);
  });

  it('vat_return_be: every grid of every quarter and month of the Belgian account, to the cent', async () => {
    const sums = beReturnSums(vatEntries(oracle.get(3)!));
    const found = await rows('vat_return_be', 3);
    expect(found.length).toBe(sums.periods.size * BE_GRIDS.length);
    expectReturn(found, sums, 'grid', () => null);
    // The sandbox's lines carry Dutch rates (21, 9, 0): its 9 % lines are problems (unknown_rate) here.
    for (const grid of ['03', '45', '46', '47', '49', '54', '64'])
      expect(
        found.some((row) => row.grid === grid && (cents(row.base) ?? cents(row.vat))! !== 0n),
        grid,
      ).toBe(true);
  });

  it('icp_return: per buyer as worked out, and its total equals rubric 3b in every period', async () => {
    for (const index of [1, 2]) {
      const buyers = icpSums(vatEntries(oracle.get(index)!));
      const icp = await rows('icp_return', index);
      const found = new Map<string, Map<string, bigint>>();
      for (const row of icp) {
        const period = found.get(String(row.period)) ?? new Map<string, bigint>();
        period.set(`${row.country_iso2}|${row.vat_number}`, cents(row.base)!);
        found.set(String(row.period), period);
      }
      expect(found).toEqual(buyers);
      const threeB = (await rows('vat_return_nl', index)).filter((row) => row.rubric === '3b');
      expect(threeB.length).toBeGreaterThan(0);
      for (const row of threeB) {
        const total = icp.filter((r) => r.period === row.period).reduce((sum, r) => sum + cents(r.base)!, 0n);
        expect(total, String(row.period)).toBe(cents(row.base));
      }
    }
  });

  it('lists every kind of entry it cannot classify in vat_problems, each with what to do', async () => {
    const found = [1, 2, 3].map(async (index) => rows('vat_problems', index));
    const problems = (await Promise.all(found)).flat();
    expect([...new Set(problems.map((row) => row.problem))].sort()).toEqual(Object.keys(VAT_PROBLEMS).sort());
    for (const row of problems) expect(row.what_to_do).toBe(VAT_PROBLEMS[row.problem as keyof typeof VAT_PROBLEMS]);
    // Counted on the return's rows of their period.
    const nl = await rows('vat_return_nl', 1);
    const dated = problems.filter((row) => row.account_id === accountIds.get(1) && row.period !== null);
    for (const row of nl.filter((r) => r.period_kind === 'quarter' && r.rubric === 'unclassified'))
      expect(row.entries, String(row.period)).toBe(dated.filter((p) => p.period === row.period).length);
  });

  it('mirrors the tax rates and categories, whatever form their scalars take', async () => {
    for (const index of [1, 2, 3]) {
      const { rows: rates } = await sql<{ percentage: string; type: string; country: string; default: boolean }>`
        select percentage::text, type, country, "default" from taxes where account_id = ${accountIds.get(index)!}
         order by rate_key`.execute(db());
      expect(rates.length).toBe(8);
      expect(rates.filter((rate) => rate.default)).toHaveLength(1);
      expect(new Set(rates.map((rate) => Number(rate.percentage)))).toEqual(new Set([0, 6, 9, 19, 21]));
      const { rows: categories } = await sql<{ n: number; ledgers: number }>`
        select count(*)::int as n, count(ledger)::int as ledgers from categories where account_id = ${accountIds.get(index)!}`.execute(
        db(),
      );
      expect(categories[0]!.n).toBeGreaterThanOrEqual(3);
    }
  });
});
