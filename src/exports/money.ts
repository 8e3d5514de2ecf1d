/**
 * Money as whole cents, and rates and quantities as decimal text: read from the decimal text
 * Postgres and the service give, never through binary floating point.
 */

/** An amount in whole cents (a safe integer). */
export type Cents = number;

const DECIMAL = /^\s*([+-])?(\d*)(?:\.(\d*))?\s*$/;

/** Decimal text (or a whole number) as cents, rounded half away from zero past the second decimal. */
export function toCents(value: string | number | null | undefined): Cents {
  if (value === null || value === undefined || value === '') return 0;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`not a whole number of units: ${value}`);
    return value * 100;
  }
  const match = DECIMAL.exec(value);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new Error(`not a decimal amount: '${value}'`);
  const [, sign, whole = '', fraction = ''] = match;
  const digits = `${fraction}000`;
  let cents = Number(whole || '0') * 100 + Number(digits.slice(0, 2));
  if (Number(digits[2]) >= 5) cents += 1;
  return sign === '-' && cents !== 0 ? -cents : cents;
}

/** Cents as decimal text with two decimals: `-12.30`. */
export function formatCents(cents: Cents): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** A decimal as a whole number of thousandths (rates and quantities have at most three decimals here). */
export function toMilli(value: string): number {
  const match = DECIMAL.exec(value);
  if (!match) throw new Error(`not a decimal: '${value}'`);
  const [, sign, whole = '', fraction = ''] = match;
  const milli = Number(whole || '0') * 1000 + Number(`${fraction}000`.slice(0, 3));
  return sign === '-' ? -milli : milli;
}

/** Thousandths as the shortest decimal text: 21000 → `21`, 5500 → `5.5`. */
export function formatMilli(milli: number): string {
  const sign = milli < 0 ? '-' : '';
  const abs = Math.abs(milli);
  const fraction = String(abs % 1000)
    .padStart(3, '0')
    .replace(/0+$/, '');
  return `${sign}${Math.floor(abs / 1000)}${fraction ? `.${fraction}` : ''}`;
}

/** a × b / divisor rounded half away from zero, in integers (exact while the product is a safe integer). */
export function mulDivRound(a: number, b: number, divisor: number): number {
  const product = BigInt(a) * BigInt(b);
  const d = BigInt(divisor);
  const quotient = product / d;
  const remainder = product % d;
  const away = (remainder < 0n ? -remainder : remainder) * 2n >= d ? (product < 0n ? -1n : 1n) : 0n;
  return Number(quotient + away);
}

/** The VAT on a base at a rate (in thousandths of a percent): base × rate / 100, to the cent. */
export const vatOf = (base: Cents, rateMilli: number): Cents => mulDivRound(base, rateMilli, 100_000);
