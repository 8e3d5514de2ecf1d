/**
 * `invoice-mirror report` and `invoice-mirror sql` as a user runs them (the built CLI, a child
 * process), against a mirror filled from the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { REPORTS, findReport, runReport } from '../../src/reports/index.js';
import { runSync } from '../../src/sync/index.js';
import { runCli } from '../support/cli.js';
import { useSandbox } from '../support/sandbox.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const env = useSandbox({
  perEntity: { clients: 30, products: 30, quotations: 40, saved_invoices: 40, repeating_invoices: 40 },
  now: new Date(),
});

const cli = (...args: string[]) => runCli(args, { env: database.current.env });

/** What the report holds, as JSON would print it. */
async function reportJson(name: string): Promise<unknown> {
  const { rows, columns } = await runReport(database.current.handle.db, database.current.schema, findReport(name)!);
  return JSON.parse(JSON.stringify(rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c]])))));
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
      'quotation_id,quotation_reference,saved_name,client_number,client_name,quotation_date,valid_until,days_open,expired,custom_status,total_incl_tax\n',
    );
  });

  it('prints a report as JSON, CSV and a table', async () => {
    const outcome = await runSync(
      { db: database.current.handle.db, client: env.client, schema: database.current.schema },
      { kind: 'backfill' },
    );
    expect(outcome.status).toBe('succeeded');

    const json = await cli('report', 'open_quotations', '--format', 'json');
    expect(json.code).toBe(0);
    const expected = (await reportJson('open_quotations')) as Record<string, unknown>[];
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
    expect(rows[0]).toMatch(/^client_number\s+client_name\s+city\s+active\s/);
    expect(rows.at(-1)).toBe('(30 rows)');
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
      'select frequency, repeating_invoice_count, monthly_amount from recurring_revenue_by_frequency order by frequency';
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
