/** Quoting for the SQL text the sync engine and the repeatable step build from the catalogue. */

const RESERVED = new Set(['date', 'position', 'reference', 'default', 'order', 'user']);

/** A column name as SQL: quoted only where it is also a keyword (`date`, `position`). */
export function quoteName(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name) ? name : `"${name}"`;
}

/** A text as an SQL string literal. */
export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
