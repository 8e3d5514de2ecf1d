/**
 * Prints query results for people (an aligned text table) or for programs (CSV, JSON).
 */
export const OUTPUT_FORMATS = ['table', 'csv', 'json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

type Row = Record<string, unknown>;

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  return value;
}

function csvCell(value: unknown): string {
  const text = cellText(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Renders rows; `columns` gives the order (and the header when there are no rows). */
export function formatRows(
  rows: Row[],
  format: OutputFormat,
  columns: string[] = rows[0] ? Object.keys(rows[0]) : [],
): string {
  if (format === 'json') {
    return `${JSON.stringify(
      rows.map((row) => Object.fromEntries(columns.map((c) => [c, jsonValue(row[c])]))),
      null,
      2,
    )}\n`;
  }
  if (format === 'csv') {
    const lines = [columns.map(csvCell).join(','), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(','))];
    return `${lines.join('\n')}\n`;
  }
  if (columns.length === 0) return '(no columns)\n';
  // Long cells (notes, raw json) are cut so a row stays on one line of a terminal.
  const cells = rows.map((row) => columns.map((c) => truncate(cellText(row[c]).replace(/\s+/g, ' '), 60)));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((line) => line[i]!.length)));
  const numeric = columns.map(
    (c) => rows.length > 0 && rows.every((row) => row[c] === null || row[c] === undefined || isNumberLike(row[c])),
  );
  const render = (line: string[]) =>
    line
      .map((text, i) => (numeric[i] ? text.padStart(widths[i]!) : text.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [render(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(render)];
  out.push(`(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`);
  return `${out.join('\n')}\n`;
}

function isNumberLike(value: unknown): boolean {
  return (
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value))
  );
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
