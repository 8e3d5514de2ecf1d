/** What a report view is (see reports.ts), and the account columns every report view carries. */
import { nameInWords } from './define.js';

export interface Report {
  /** The view's name, and what to type after `invoice-mirror report` (also with `-` for `_`). */
  readonly name: string;
  readonly title: string;
  /** One line for `invoice-mirror report` without a name. */
  readonly description: string;
  /** The SQL `order by` list the report prints in. */
  readonly orderBy: string;
  /** The view's comment in the database: what it shows. */
  readonly comment: string;
  readonly select: string;
  /** Every column of the view, in order, with its meaning. */
  readonly columns: Readonly<Record<string, string>>;
  /** How the web console draws it, where a person would rather look than read. */
  readonly chart?: ReportChart;
}

/** A chart of a report: `y` summed per value of `x`, as bars, or as lines over dates. */
export interface ReportChart {
  readonly kind: 'bars' | 'lines';
  readonly x: string;
  readonly y: readonly string[];
}

/** The two columns every report view ends with (the new cross-account views begin with them). */
export const ACCOUNT_COLUMNS = {
  account_id: 'id of the account the rows belong to (accounts.id)',
  account_name: 'name of that account (accounts.name)',
} as const;

/** Report columns whose label is not their name in words. */
const REPORT_LABELS: Readonly<Record<string, string>> = {
  account_name: 'Account',
  account_id: 'Account ID',
  client_number: 'Client no.',
  invoice_number: 'Invoice no.',
};

/** A report column's header (its meaning is the hover): "Total incl. tax" for `total_incl_tax`. */
export function reportColumnLabel(column: string): string {
  return REPORT_LABELS[column] ?? nameInWords(column);
}

/** A report's columns that hold money (by name: totals, amounts, prices, values; not counts of them). */
const MONEY = /(total|amount|price|value|paid|to_pay|still_open|invoiced|^tax$|discount|^base$|^vat$)/;
const NOT_MONEY = /(_count$|days|sends|changes|rate|pct|grid|rubric|_id$|rejected|unknown)/;
export const isMoneyColumn = (name: string): boolean => MONEY.test(name) && !NOT_MONEY.test(name);

/** A report column holding a month as its first day (`date_trunc('month', …)`), printed as `2026-11`. */
export const isMonthColumn = (name: string): boolean => name === 'month' || name.endsWith('_month');
