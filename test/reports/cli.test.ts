/**
 * `invoice-mirror report` and `invoice-mirror sql` as a user runs them (the built CLI, a child
 * process), against a mirror of two accounts filled from two sandboxes: all accounts, or those
 * named with `--account`.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { AccountScope } from '../../src/db/scope.js';
import { isMoneyColumn } from '../../src/catalog/index.js';
import { REPORTS, findReport, runReport } from '../../src/reports/index.js';
import { runCli } from '../support/cli.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';
import { addAccount, loadAccount, type AccountRecords } from './load.js';

const database = useTestDatabase();
const acmeService = useSandbox({
  perEntity: { clients: 30, products: 30, quotations: 40, saved_invoices: 40, repeating_invoices: 40 },
  now: new Date(),
});
const boltService = useSandbox({
  perEntity: { clients: 12, products: 10, quotations: 15, saved_invoices: 15, repeating_invoices: 15 },
  now: new Date(),
  seed: 9,
});

const cli = (...args: string[]) => runCli(args, { env: database.current.env });
const ids: Record<string, number> = {};

/** What the report holds, as JSON would print it. */
async function reportJson(name: string, scope: AccountScope = 'all'): Promise<Record<string, unknown>[]> {
  const { rows, columns } = await runReport(database.current.handle.db, database.current.schema, findReport(name)!, {
    scope,
  });
  return JSON.parse(JSON.stringify(rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c]])))));
}

/** Both sandboxes' records, as accounts acme and bolt. */
async function loadAccounts(): Promise<void> {
  const { db } = database.current.handle;
  for (const [name, service] of [
    ['acme', acmeService],
    ['bolt', boltService],
  ] as const) {
    const store = service.sandbox.store;
    ids[name] = await addAccount(db, name);
    await loadAccount(db, ids[name]!, {
      clients: store.list('clients'),
      products: store.list('products'),
      quotations: store.list('quotations'),
      saved_invoices: store.list('saved_invoices'),
      repeating_invoices: store.list('repeating_invoices'),
      invoices: store.sentInvoices(),
      countries: [],
    } as AccountRecords);
  }
}

describe('invoice-mirror report', () => {
  it('lists the reports when no name is given', async () => {
    const result = await cli('report');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^name\s+title\s+description$/);
    for (const report of REPORTS)
      expect(result.stdout).toMatch(new RegExp(`^${report.name}\\s+${report.title}\\s`, 'm'));
    expect(lines.at(-1)).toBe(`(${REPORTS.length} rows)`);
  });

  it('lists them as JSON too', async () => {
    const result = await cli('report', '--format', 'json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(
      REPORTS.map(({ name, title, description }) => ({ name, title, description })),
    );
  });

  it('prints the header of a report that has no rows yet', async () => {
    const result = await cli('report', 'open_quotations', '--format', 'csv');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'quotation_id,quotation_reference,saved_name,client_number,client_name,quotation_date,valid_until,days_open,expired,custom_status,total_incl_tax,account_id,account_name\n',
    );
  });

  it('prints a report as JSON, CSV and a table', async () => {
    await loadAccounts();
    const json = await cli('report', 'open_quotations', '--format', 'json');
    expect(json.code).toBe(0);
    const expected = await reportJson('open_quotations');
    expect(expected.length).toBeGreaterThan(0);
    expect(JSON.parse(json.stdout)).toEqual(expected);

    const csv = await cli('report', 'open-quotations', '--format', 'csv');
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(Object.keys(expected[0]!).join(','));
    expect(lines).toHaveLength(expected.length + 1);
    expect(lines[1]!.startsWith(`${expected[0]!.quotation_id},`)).toBe(true);

    const table = await cli('report', 'client_overview');
    expect(table.code).toBe(0);
    const rows = table.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^client_number\s+client_name\s+city\s+active\s.*\saccount_id\s+account_name$/);
    expect(rows.at(-1)).toBe('(42 rows)');
  });

  it('prints only the accounts named with --account', async () => {
    const acme = await cli('report', 'client_overview', '--account', 'acme', '--format', 'json');
    expect(acme.code).toBe(0);
    const rows = JSON.parse(acme.stdout) as Record<string, unknown>[];
    expect(rows).toEqual(await reportJson('client_overview', { ids: [ids.acme!] }));
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((row) => row.account_name))).toEqual(new Set(['acme']));

    const both = await cli('report', 'open-quotations', '--account', 'bolt', '--account', 'acme', '--format', 'json');
    expect(JSON.parse(both.stdout)).toEqual(await reportJson('open_quotations'));
  });

  it('refuses an account that does not exist, naming the known ones', async () => {
    const result = await cli('report', 'client_overview', '--account', 'acne');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "invoice-mirror: --account: no account named 'acne' (known: acme, bolt, default); 'invoice-mirror accounts list' shows them\n",
    );
  });

  it('refuses an unknown report with exit code 2 and one line', async () => {
    const result = await cli('report', 'turnover');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "invoice-mirror: unknown report 'turnover' (run 'invoice-mirror report' to list them)\n",
    );
  });

  it('suggests the report a misspelled name was meant to be', async () => {
    const result = await cli('report', 'open_quotatons');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "invoice-mirror: unknown report 'open_quotatons' (did you mean 'open_quotations'?) (run 'invoice-mirror report' to list them)\n",
    );
  });

  it('refuses an unknown format with exit code 2', async () => {
    const result = await cli('report', 'open_quotations', '--format', 'xml');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--format: must be one of table, csv, json');
  });
});

describe('invoice-mirror sql on the views', () => {
  it('reads a view in each format', async () => {
    const query =
      "select frequency, repeating_invoice_count, monthly_amount from recurring_revenue_by_frequency where account_name = 'acme' order by frequency";
    const json = await cli('sql', query, '--format', 'json');
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as { frequency: string; repeating_invoice_count: number }[];
    expect(rows.find((row) => row.frequency === 'all frequencies')?.repeating_invoice_count).toBe(40);

    const csv = await cli('sql', query, '--format', 'csv');
    expect(csv.stdout.split('\n')[0]).toBe('frequency,repeating_invoice_count,monthly_amount');
    expect(csv.stdout.trimEnd().split('\n')).toHaveLength(rows.length + 1);

    const table = await cli('sql', query);
    expect(table.stdout.trimEnd().split('\n').at(-1)).toBe(`(${rows.length} rows)`);
  });

  it('prints the header of an empty result in every format', async () => {
    const query = 'select clientnr, company from clients where false';
    expect((await cli('sql', query, '--format', 'csv')).stdout).toBe('clientnr,company\n');
    expect((await cli('sql', query)).stdout).toBe('clientnr  company\n--------  -------\n(0 rows)\n');
    expect((await cli('sql', query, '--format', 'json')).stdout).toBe('[]\n');
  });

  it('prints bigint values exactly, past 2^53 too', async () => {
    const query = 'select 12345678901234567::bigint as big, 42::bigint as small';
    expect(JSON.parse((await cli('sql', query, '--format', 'json')).stdout)).toEqual([
      { big: '12345678901234567', small: 42 },
    ]);
    expect((await cli('sql', query, '--format', 'csv')).stdout).toBe('big,small\n12345678901234567,42\n');
  });
});

describe('invoice-mirror sql --account', () => {
  const json = async (...args: string[]) => {
    const result = await cli('sql', ...args, '--format', 'json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>[];
  };

  it('shows the query only the named accounts’ rows, in every table and view with account_id', async () => {
    const { rows: relations } = await sql<{ name: string }>`
      select table_name as name from information_schema.columns
       where table_schema = ${database.current.schema} and column_name = 'account_id' order by 1`.execute(
      database.current.handle.db,
    );
    expect(relations.length).toBeGreaterThan(20);
    // One query over all of them (one process each would take seconds).
    const query = relations.map(({ name }) => `select '${name}' as relation, account_id from ${name}`).join(' union ');
    const rows = await json('--account', 'bolt', query);
    expect(new Set(rows.map((row) => row.account_id))).toEqual(new Set([ids.bolt]));
    expect(new Set(rows.map((row) => row.relation)).size).toBeGreaterThan(10);
    expect(await json('--account', 'bolt', 'select count(*) as n from clients')).toEqual([{ n: 12 }]);
    expect(await json('--account', 'bolt', 'select name from accounts')).toEqual([{ name: 'bolt' }]);
    const both = await json('--account', 'acme', '--account', 'bolt', 'select count(*) as n from clients');
    expect(both).toEqual([{ n: 42 }]);
  });

  it('reads the same as a report of that account', async () => {
    const rows = await json(
      '--account',
      'acme',
      'select * from open_quotations order by account_name, days_open desc nulls last, quotation_id',
    );
    expect(rows).toEqual(await reportJson('open_quotations', { ids: [ids.acme!] }));
  });

  it('still refuses to change anything, and prints the header of an empty result', async () => {
    for (const statement of ['drop view clients', 'delete from jobs', 'create table x (a int)']) {
      const result = await cli('sql', '--account', 'acme', statement);
      expect(result.code, statement).toBe(1);
      expect(result.stderr, statement).toContain('read-only transaction');
    }
    const empty = await cli(
      'sql',
      '--account',
      'acme',
      'select clientnr, company from clients where false',
      '--format',
      'csv',
    );
    expect(empty.stdout).toBe('clientnr,company\n');
  });

  it('refuses an account that does not exist', async () => {
    const result = await cli('sql', '--account', 'nope', 'select 1');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--account: no account named 'nope' (known: acme, bolt, default)");
  });
});

/** A table's cells by column, cut by the widths of its dashes line (columns are two spaces apart). */
function tableCells(stdout: string): Record<string, string>[] {
  const [header = '', dashes = '', ...rest] = stdout.trimEnd().split('\n');
  const spans: [number, number][] = [];
  for (const match of dashes.matchAll(/-+/g)) spans.push([match.index, match.index + match[0].length]);
  const names = spans.map(([from, to]) => header.slice(from, to).trim());
  return rest
    .slice(0, -1) // the "(N rows)" line
    .map((line) => Object.fromEntries(spans.map(([from, to], i) => [names[i]!, line.slice(from, to).trim()])));
}

describe('tables for people', () => {
  it('every money column of every report prints two decimals', async () => {
    let checked = 0;
    const offenders: string[] = [];
    const withMoney = REPORTS.filter((report) => Object.keys(report.columns).some(isMoneyColumn));
    expect(withMoney.length).toBeGreaterThan(15);
    // Three CLI processes at a time: each is mostly its start.
    const outputs: { name: string; stdout: string; code: number | null; stderr: string }[] = [];
    for (let i = 0; i < withMoney.length; i += 3)
      outputs.push(
        ...(await Promise.all(
          withMoney
            .slice(i, i + 3)
            .map(async (report) => ({ name: report.name, ...(await cli('report', report.name)) })),
        )),
      );
    for (const [index, report] of withMoney.entries()) {
      const money = Object.keys(report.columns).filter(isMoneyColumn);
      const result = outputs[index]!;
      expect(result.code, `${report.name}: ${result.stderr}`).toBe(0);
      for (const row of tableCells(result.stdout))
        for (const column of money) {
          const cell = row[column] ?? '';
          if (cell === '') continue;
          checked++;
          if (!/^-?\d+\.\d{2}$/.test(cell)) offenders.push(`${report.name}.${column}: ${cell}`);
        }
    }
    expect(offenders).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  }, 120_000);

  it('months print as 2026-11 and money as stored with --raw; sql prints the catalogue money columns alike', async () => {
    const first = (await reportJson('invoice_revenue_per_month', { ids: [ids.acme!] }))[0]!;
    expect(first.month).toMatch(/^\d{4}-\d{2}-01$/);
    const people = tableCells((await cli('report', 'invoice_revenue_per_month', '--account', 'acme')).stdout)[0]!;
    expect(people.month).toBe(String(first.month).slice(0, 7));
    expect(people.total_incl_tax).toMatch(/^-?\d+\.\d{2}$/);
    const raw = tableCells((await cli('report', 'invoice_revenue_per_month', '--account', 'acme', '--raw')).stdout)[0]!;
    expect(raw).toMatchObject({ month: first.month, total_incl_tax: String(first.total_incl_tax) });

    const query =
      "select invoicenr, totalintax, open from invoices where account_id = (select id from accounts where name = 'acme') order by id";
    const cells = tableCells((await cli('sql', query)).stdout);
    expect(cells.length).toBeGreaterThan(10);
    for (const row of cells) expect(`${row.totalintax} ${row.open}`).toMatch(/^-?\d+\.\d{2} -?\d+\.\d{2}$/);
  });
});
