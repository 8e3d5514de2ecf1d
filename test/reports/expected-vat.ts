/**
 * What the VAT views should show, worked out in TypeScript from the service's records in wire form
 * (the sandbox's own invoices, its own country codes), independently of the views' SQL: the
 * Dutch and Belgian rules written out again here, and every amount in whole cents (BigInt), so
 * sums are exact to the cent.
 */
import { BE_GRIDS, NL_RUBRICS, VAT_PROBLEMS } from '../../src/catalog/index.js';
import type { Row, Wire } from './expected.js';

/** What the oracle knows of a country id: its Dutch name and the code the mirror should find (null: none). */
export interface KnownCountry {
  name: string;
  code: string | null;
}

export interface VatAccount {
  invoices: Wire[];
  countries: ReadonlyMap<string, KnownCountry>;
  vatCountry: 'NL' | 'BE';
}

const text = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

/** Cents of a decimal text or JSON number, exactly; null when it is not a plain decimal. */
export function toCents(value: unknown): bigint | null {
  if (typeof value !== 'number' && typeof value !== 'string') return null;
  const t = String(value).trim();
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(t);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const fraction = (m[3] ?? '').padEnd(2, '0');
  if (/[1-9]/.test(fraction.slice(2))) throw new Error(`the oracle handles cents only, not ${t}`);
  const cents = BigInt(m[2] || '0') * 100n + BigInt(fraction.slice(0, 2) || '0');
  return m[1] === '-' ? -cents : cents;
}

const number = (value: unknown): number | null => {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/.test(value)) return Number(value);
  return null;
};

const EU: Record<string, [string, string | null]> = Object.fromEntries(
  [
    ...'AT:1995 BE:1958 BG:2007 CY:2004-05 CZ:2004-05 DE:1958 DK:1973 EE:2004-05 ES:1986 FI:1995 FR:1958 GR:1981 HU:2004-05 IE:1973 IT:1958 LT:2004-05 LU:1958 LV:2004-05 MC:1958 MT:2004-05 NL:1958 PL:2004-05 PT:1986 RO:2007 SE:1995 SI:2004-05 SK:2004-05'
      .split(' ')
      .map((entry) => {
        const [code, from] = entry.split(':') as [string, string];
        return [code, [from.length === 4 ? `${from}-01-01` : `${from}-01`, null]] as const;
      }),
    ['HR', ['2013-07-01', null]],
    ['GB', ['1973-01-01', '2020-12-31']],
    ['IM', ['1973-01-01', '2020-12-31']],
  ].map(([code, period]) => [code, period]),
);

function euBuyer(code: string | null, vatNumber: string | null, date: string | null): boolean | null {
  if (code === null || date === null) return null;
  const period = EU[code];
  const member = period !== undefined && date >= period[0] && (period[1] === null || date <= period[1]);
  return member || (code === 'GB' && date >= '2021-01-01' && (vatNumber ?? '').startsWith('XI'));
}

/** What a rate is in the account's country on a date. */
function rateKind(country: 'NL' | 'BE', rate: number, date: string | null): string {
  if (rate === 0) return 'zero';
  const d = date ?? '';
  if (country === 'BE') return rate === 21 ? 'high' : rate === 12 ? 'intermediate' : rate === 6 ? 'low' : 'unknown';
  if (rate === 21) return d >= '2012-10-01' ? 'high' : 'former';
  if (rate === 19) return d >= '2001-01-01' && d <= '2012-09-30' ? 'high' : 'former';
  if (rate === 17.5) return d >= '1992-10-01' && d <= '2000-12-31' ? 'high' : 'former';
  if (rate === 9) return d >= '2019-01-01' ? 'low' : 'former';
  if (rate === 6) return d >= '1986-10-01' && d <= '2018-12-31' ? 'low' : 'former';
  return 'unknown';
}

interface Entry {
  key: string | null;
  rate: number | null;
  vat: bigint | null;
  base: bigint | null;
  readable: boolean;
}

function entriesOf(taxes: unknown): Entry[] {
  const items: [string, unknown][] = Array.isArray(taxes)
    ? taxes.map((e, i) => [String(i), e])
    : typeof taxes === 'object' && taxes !== null
      ? Object.entries(taxes)
      : [];
  return items.map(([key, e]) => {
    const r = (typeof e === 'object' && e !== null && !Array.isArray(e) ? e : {}) as Wire;
    const rate = number(r.rate);
    const vat = toCents(r.sum);
    const base = toCents(r.sum_of ?? r.sumof);
    return { key, rate, vat, base, readable: rate !== null && vat !== null && base !== null };
  });
}

const quarterOf = (date: string) => `${date.slice(0, 4)}-Q${Math.floor((Number(date.slice(5, 7)) - 1) / 3) + 1}`;

/** One row of vat_entries, money in cents (as normaliseRow gives them), plus what the sums need. */
export interface VatEntryRow extends Row {
  base: number | null;
  vat: number | null;
}

function problemOf(entry: Entry, facts: Facts): string | null {
  if (entry.key === null) return 'no_taxes';
  if (!entry.readable) return 'unreadable_taxes';
  if (facts.date === null) return 'no_date';
  if (entry.base === 0n && entry.vat !== 0n) return 'vat_without_base';
  if (facts.kind === 'former') return 'former_rate';
  if (facts.kind === 'unknown') return 'unknown_rate';
  if (facts.kind === 'zero' && entry.vat !== 0n) return 'vat_at_zero_rate';
  if (facts.shifted && entry.vat !== 0n) return 'vat_on_shifted';
  if (facts.shifted && facts.vatNumber === null) return 'shifted_without_vat_number';
  const untaxed = facts.shifted || entry.rate === 0;
  if (untaxed && (facts.countryId === 0 || facts.country === undefined)) return 'no_country';
  if (untaxed && facts.code === null) return 'unmapped_country';
  if (untaxed && !facts.domestic && facts.eu && facts.vatNumber === null) return 'eu_without_vat_number';
  return null;
}

interface Facts {
  date: string | null;
  kind: string | null;
  shifted: boolean;
  vatNumber: string | null;
  countryId: number;
  country: KnownCountry | undefined;
  code: string | null;
  domestic: boolean | null;
  eu: boolean | null;
}

function treatmentOf(entry: Entry, facts: Facts): string {
  if (facts.shifted || entry.rate === 0) {
    if (facts.domestic) return facts.shifted ? 'reverse_charge' : 'zero_rated';
    return facts.eu ? 'intra_eu' : 'export';
  }
  return 'domestic_vat';
}

const PEPPOL: Record<string, string> = {
  domestic_vat: 'S',
  zero_rated: 'Z',
  reverse_charge: 'AE',
  intra_eu: 'K',
  export: 'G',
};

function nlRubric(treatment: string, kind: string | null): string {
  if (treatment === 'domestic_vat') return kind === 'high' ? '1a' : kind === 'low' ? '1b' : '1c';
  return { zero_rated: '1e', reverse_charge: '1e', intra_eu: '3b', export: '3a' }[treatment]!;
}

function beGrid(treatment: string, kind: string | null, base: bigint): string {
  if (base < 0n) return treatment === 'intra_eu' ? '48' : '49';
  if (treatment === 'domestic_vat') return kind === 'high' ? '03' : kind === 'intermediate' ? '02' : '01';
  return { zero_rated: '00', reverse_charge: '45', intra_eu: '46', export: '47' }[treatment]!;
}

/** vat_entries of one account, in the view's order (invoice date, nulls first; invoice id; entry key). */
export function vatEntries(account: VatAccount): VatEntryRow[] {
  const rows: VatEntryRow[] = [];
  for (const invoice of account.invoices) {
    let entries = entriesOf(invoice.taxes);
    const total = toCents(invoice.totalintax) ?? 0n;
    if (entries.length === 0) {
      if (total === 0n) continue;
      entries = [{ key: null, rate: null, vat: null, base: null, readable: false }];
    }
    const date = text(invoice.sent) === '' ? null : text(invoice.sent);
    const countryId = Number(text(invoice.country) || '0');
    const country = account.countries.get(String(countryId));
    const code = country?.code ?? null;
    const vatNumber =
      text(invoice.taxnumber)
        .replace(/[^A-Za-z0-9]/g, '')
        .toUpperCase() || null;
    const shifted = ['true', '1'].includes(text(invoice.tax_shifted).toLowerCase()) || invoice.tax_shifted === true;
    for (const entry of entries) {
      const kind = entry.rate === null ? null : rateKind(account.vatCountry, entry.rate, date);
      const facts: Facts = {
        date,
        kind,
        shifted,
        vatNumber,
        countryId,
        country,
        code,
        domestic: code === null ? null : code === account.vatCountry,
        eu: euBuyer(code, vatNumber, date),
      };
      const problem = problemOf(entry, facts);
      const treatment = problem === null ? treatmentOf(entry, facts) : null;
      rows.push({
        invoice_id: Number(invoice.id),
        invoice_number: text(invoice.invoicenr),
        invoice_date: date,
        quarter: date && quarterOf(date),
        month: date?.slice(0, 7) ?? null,
        client_number: Number(text(invoice.clientnr) || '0'),
        client_name: text(invoice.company) || text(invoice.contact) || null,
        country_id: text(invoice.country) === '' ? null : countryId,
        country_name: country?.name ?? null,
        country_iso2: code,
        eu_buyer: facts.eu,
        vat_number: vatNumber,
        tax_shifted: shifted,
        entry_key: entry.key,
        rate: entry.rate,
        base: entry.base === null ? null : Number(entry.base),
        vat: entry.vat === null ? null : Number(entry.vat),
        treatment,
        peppol_category: treatment && PEPPOL[treatment]!,
        nl_rubric: treatment && account.vatCountry === 'NL' ? nlRubric(treatment, kind) : null,
        be_grid: treatment && account.vatCountry === 'BE' ? beGrid(treatment, kind, entry.base!) : null,
        be_vat_grid:
          treatment === 'domestic_vat' && account.vatCountry === 'BE' ? (entry.base! < 0n ? '64' : '54') : null,
        problem,
        account_country: account.vatCountry,
      });
    }
  }
  const key = (row: Row) => [row.invoice_date === null ? '' : `~${String(row.invoice_date)}`, row.invoice_id];
  return rows.sort((a, b) => {
    const [da, ia] = key(a);
    const [db, ib] = key(b);
    if (da !== db) return String(da) < String(db) ? -1 : 1;
    if (ia !== ib) return Number(ia) - Number(ib);
    return text(a.entry_key) < text(b.entry_key) ? -1 : text(a.entry_key) > text(b.entry_key) ? 1 : 0;
  });
}

/** The sums of a return: per period (quarter and month) and rubric or grid, in cents. */
export interface ReturnSums {
  /** `${period}|${code}` → base, VAT and entries. */
  sums: Map<string, { base: bigint; vat: bigint; entries: number }>;
  periods: Map<string, 'quarter' | 'month'>;
}

function add(map: ReturnSums['sums'], key: string, base: bigint, vat: bigint): void {
  const s = map.get(key) ?? { base: 0n, vat: 0n, entries: 0 };
  s.base += base;
  s.vat += vat;
  s.entries += 1;
  map.set(key, s);
}

/**
 * A return's sums per period (quarter and month): `sumEntry` adds one entry's amounts (in cents)
 * under the period given.
 */
function returnSums(
  entries: readonly VatEntryRow[],
  sumEntry: (sums: ReturnSums['sums'], period: string, e: VatEntryRow, base: bigint, vat: bigint) => void,
): ReturnSums {
  const out: ReturnSums = { sums: new Map(), periods: new Map() };
  for (const e of entries) {
    if (e.invoice_date === null) continue;
    const base = BigInt(e.base ?? 0);
    const vat = BigInt(e.vat ?? 0);
    for (const [period, kind] of [
      [e.quarter as string, 'quarter'],
      [e.month as string, 'month'],
    ] as const) {
      out.periods.set(period, kind);
      sumEntry(out.sums, period, e, base, vat);
    }
  }
  return out;
}

/** The Dutch return's sums per period: 1a … 3b, 5a (VAT of 1a–1e), unclassified. */
export function nlReturnSums(entries: readonly VatEntryRow[]): ReturnSums {
  return returnSums(entries, (sums, period, e, base, vat) => {
    const code = (e.nl_rubric as string | null) ?? 'unclassified';
    add(sums, `${period}|${code}`, base, vat);
    if (['1a', '1b', '1c', '1e'].includes(code)) add(sums, `${period}|5a`, 0n, vat);
  });
}

/** The Belgian return's sums per period: the base grids (48, 49 as positive amounts), 54 and 64 (VAT). */
export function beReturnSums(entries: readonly VatEntryRow[]): ReturnSums {
  return returnSums(entries, (sums, period, e, base, vat) => {
    const grid = (e.be_grid as string | null) ?? 'unclassified';
    add(sums, `${period}|${grid}`, ['48', '49'].includes(grid) ? -base : base, vat);
    if (e.be_vat_grid === '54') add(sums, `${period}|54`, 0n, vat);
    if (e.be_vat_grid === '64') add(sums, `${period}|64`, 0n, -vat);
  });
}

/** The Opgaaf ICP of one account: period → `${country}|${vat number}` → base in cents. */
export function icpSums(entries: readonly VatEntryRow[]): Map<string, Map<string, bigint>> {
  const out = new Map<string, Map<string, bigint>>();
  for (const e of entries) {
    if (e.treatment !== 'intra_eu') continue;
    for (const period of [e.quarter as string, e.month as string]) {
      const buyers = out.get(period) ?? new Map<string, bigint>();
      const key = `${e.country_iso2}|${e.vat_number}`;
      buyers.set(key, (buyers.get(key) ?? 0n) + BigInt(e.base ?? 0));
      out.set(period, buyers);
    }
  }
  return out;
}

// ---- the report views, row for row (for test/reports/reports.test.ts) ------------------------

const byKeys =
  (...keys: ((row: Row) => string | number)[]) =>
  (a: Row, b: Row): number => {
    for (const key of keys) {
      const [x, y] = [key(a), key(b)];
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };

function lastDay(start: string, months: number): string {
  const [y, m] = start.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 + months, 0)).toISOString().slice(0, 10);
}

/** A return view's rows from its sums (see returnSelect in src/catalog/vat.ts). */
function returnRows(
  sums: ReturnSums,
  rows: typeof NL_RUBRICS,
  codeColumn: string,
  partly: (p: string) => bigint,
): Row[] {
  const out: Row[] = [];
  for (const [period, kind] of sums.periods) {
    const start =
      kind === 'quarter'
        ? `${period.slice(0, 4)}-${String((Number(period.slice(6)) - 1) * 3 + 1).padStart(2, '0')}-01`
        : `${period}-01`;
    const unclassified = sums.sums.get(`${period}|unclassified`)?.entries ?? 0;
    rows.forEach((r, i) => {
      const s = sums.sums.get(`${period}|${r.code}`) ?? { base: 0n, vat: 0n, entries: 0 };
      const covered = r.coverage !== 'no';
      out.push({
        period,
        period_kind: kind,
        period_start: start,
        period_end: lastDay(start, kind === 'quarter' ? 3 : 1),
        [codeColumn]: r.code,
        name_nl: r.nameNl,
        name_en: r.nameEn,
        coverage: r.coverage,
        base: r.base && covered ? Number(s.base) : null,
        vat: r.vat && covered ? Number(r.coverage === 'partly' ? partly(period) : s.vat) : null,
        entries: r.coverage === 'yes' || r.coverage === 'problems' ? s.entries : null,
        unclassified_entries: unclassified,
        note: r.note,
        position: i + 1,
      });
    });
  }
  return out.sort(
    byKeys(
      (r) => (r.period_kind === 'quarter' ? 0 : 1),
      (r) => String(r.period_start),
      (r) => Number(r.position),
    ),
  );
}

export function vatReturnNl(account: VatAccount): Row[] {
  if (account.vatCountry !== 'NL') return [];
  const sums = nlReturnSums(vatEntries(account));
  return returnRows(sums, NL_RUBRICS, 'rubric', (p) => sums.sums.get(`${p}|5a`)?.vat ?? 0n);
}

export function vatReturnBe(account: VatAccount): Row[] {
  if (account.vatCountry !== 'BE') return [];
  return returnRows(beReturnSums(vatEntries(account)), BE_GRIDS, 'grid', () => 0n);
}

export function vatProblems(account: VatAccount): Row[] {
  return vatEntries(account)
    .filter((e) => e.problem !== null)
    .map((e) => ({
      invoice_id: e.invoice_id,
      invoice_number: e.invoice_number,
      invoice_date: e.invoice_date,
      period: e.quarter,
      month: e.month,
      client_number: e.client_number,
      client_name: e.client_name,
      country_id: e.country_id,
      country_name: e.country_name,
      country_iso2: e.country_iso2,
      vat_number: e.vat_number,
      tax_shifted: e.tax_shifted,
      entry_key: e.entry_key,
      rate: e.rate,
      base: e.base,
      vat: e.vat,
      problem: e.problem,
      what_to_do: VAT_PROBLEMS[e.problem as keyof typeof VAT_PROBLEMS],
    }));
}

export function icpReturn(account: VatAccount): Row[] {
  const rows = new Map<string, Row & { ids: Set<unknown> }>();
  for (const e of vatEntries(account)) {
    if (e.treatment !== 'intra_eu') continue;
    for (const [period, kind] of [
      [e.quarter, 'quarter'],
      [e.month, 'month'],
    ] as const) {
      const key = `${kind}|${period}|${e.country_iso2}|${e.vat_number}`;
      const row = rows.get(key) ?? {
        period,
        period_kind: kind,
        country_iso2: e.country_iso2,
        vat_prefix: /^[A-Z]{2}/.test(String(e.vat_number)) ? String(e.vat_number).slice(0, 2) : null,
        vat_number: e.vat_number,
        base: 0,
        entries: 0,
        invoices: 0,
        ids: new Set(),
      };
      row.base = (row.base as number) + (e.base ?? 0);
      row.entries = (row.entries as number) + 1;
      row.ids.add(e.invoice_id);
      row.invoices = row.ids.size;
      rows.set(key, row);
    }
  }
  return [...rows.values()]
    .map(({ ids: _, ...row }) => row)
    .sort(
      byKeys(
        (r) => (r.period_kind === 'quarter' ? 0 : 1),
        (r) => String(r.period),
        (r) => String(r.country_iso2),
        (r) => String(r.vat_number),
      ),
    );
}

/** A payment registered by a register_payment job that ended well (its payload). */
export interface RegisteredPayment {
  id: number;
  amount: number | 'full';
  date: string;
  method: string;
}

/** payments_received of registered payments: per month of their date, method. */
export function paymentsReceived(payments: readonly RegisteredPayment[]): Row[] {
  const rows = new Map<string, Row>();
  for (const p of payments) {
    const month = p.date.slice(0, 7);
    const key = `${month}|${p.method}`;
    const row = rows.get(key) ?? {
      period: `${p.date.slice(0, 4)}-Q${Math.floor((Number(p.date.slice(5, 7)) - 1) / 3) + 1}`,
      month,
      method: p.method,
      source: 'registered',
      payments: 0,
      amount: 0,
      amount_unknown: 0,
    };
    row.payments = (row.payments as number) + 1;
    if (p.amount === 'full') row.amount_unknown = (row.amount_unknown as number) + 1;
    else row.amount = (row.amount as number) + p.amount * 100;
    rows.set(key, row);
  }
  return [...rows.values()].sort(
    byKeys(
      (r) => String(r.month),
      (r) => String(r.method),
    ),
  );
}
