/**
 * The catalogue's labels: every column of every mirror table, document line and report has a
 * header of a few plain words (no markup, no raw field name), which the console shows with the
 * column's meaning on hover; and the money columns the CLI prints with two decimals are named.
 */
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_COLUMN,
  BOOKKEEPING_COLUMNS,
  derivedColumns,
  ENTITIES,
  entityColumns,
  hasLabel,
  isMoneyColumn,
  labelOf,
  LINE_COLUMNS,
  MONEY_COLUMN_NAMES,
  REPORTS,
  reportColumnLabel,
} from '../../src/catalog/index.js';

/** What is wrong with a header for `name`, or null: a few plain words, not the field's own name. */
function headerProblem(name: string, label: string): string | null {
  if (/[`_<>{}]/.test(label)) return `markup or a raw name in "${label}"`;
  if (label === name) return `the raw name "${label}"`;
  if (label.split(' ').length > 4 || label.length > 26) return `"${label}" is longer than a few words`;
  return null;
}

const tableColumns = ENTITIES.flatMap((entity) =>
  [...entityColumns(entity.name), ...derivedColumns(entity.name)].map((column) => [entity.name, column] as const),
);

describe('catalogue labels', () => {
  it.each(tableColumns.map(([entity, column]) => [`${entity}.${column.name}`, column] as const))(
    '%s has a short label of its own or a meaning plain enough to be one',
    (_, column) => {
      expect(hasLabel(column)).toBe(true);
      expect(headerProblem(column.name, labelOf(column))).toBeNull();
    },
  );

  it('document lines, the bookkeeping columns and the account column have labels', () => {
    for (const column of [...LINE_COLUMNS, ...BOOKKEEPING_COLUMNS, ACCOUNT_COLUMN]) {
      expect(hasLabel(column), column.name).toBe(true);
      expect(headerProblem(column.name, labelOf(column)), column.name).toBeNull();
    }
  });

  it('a label says what a cryptic field holds, and is never its meaning with its markup', () => {
    const clients = new Map(entityColumns('clients').map((column) => [column.name, labelOf(column)]));
    expect(clients.get('active')).toBe('Active'); // not "false for non-active clients (hidden …)"
    expect(clients.get('top')).toBe('Payment term (days)');
    expect(clients.get('clientnr')).toBe('Client no.');
    expect(clients.get('reference_line1')).toBe('Reference line 1');
  });

  it.each(REPORTS.map((report) => [report.name, report] as const))(
    'every column of report %s has a label',
    (_, report) => {
      for (const name of Object.keys(report.columns))
        expect(headerProblem(name, reportColumnLabel(name)), `${report.name}.${name}`).toBeNull();
    },
  );

  it('money: amounts and totals, never counts, days or rates', () => {
    expect(['total_incl_tax', 'open_amount', 'total_discount', 'base', 'vat', 'tax'].every(isMoneyColumn)).toBe(true);
    const notMoney = ['quotation_count', 'days_open', 'sends_per_year', 'rate', 'rejected_values', 'amount_unknown'];
    expect(notMoney.filter(isMoneyColumn)).toEqual([]);
    // For `sql`: a name that is money wherever the catalogue has it; `amount` is a line's quantity too.
    expect(MONEY_COLUMN_NAMES.has('totalintax')).toBe(true);
    expect(MONEY_COLUMN_NAMES.has('amount')).toBe(false);
  });
});
