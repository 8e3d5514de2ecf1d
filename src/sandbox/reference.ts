/**
 * The account's reference lists: its VAT rates (`GET /taxes`) and categories (`GET /categories`),
 * generated per account. Their scalar types are not shown by any public client, so the sandbox
 * sends them in the forms a PHP service might (numbers or strings, booleans as `"1"`, `"true"` or
 * `true`, `ledger` an integer, a string or `false`), chosen per account: the mirror must read all.
 */
import { countryIdOf } from './countries.js';
import { chance, int, mixSeed, mulberry32, pick } from './prng.js';
import type { Rec } from './wire.js';

const CATEGORY_NAMES = ['Advies', 'Ontwikkeling', 'Hosting', 'Reiskosten', 'Materialen', 'Onderhoud', 'Licenties'];

/** The account's VAT rates: the Dutch ones (with the former 6 % and 19 % still listed), and two foreign ones. */
export function generateTaxRates(seed: number): Rec[] {
  const rng = mulberry32(mixSeed(seed, 0x7a8e5));
  const asString = chance(rng, 0.5);
  const bool = (value: boolean): unknown => pick(rng, [value ? '1' : '0', value ? 'true' : 'false', value]);
  const percentage = (value: number): unknown =>
    asString ? (chance(rng, 0.5) ? String(value) : value.toFixed(2)) : value;
  const home: [number, string, boolean][] = [
    [21, 'H', true],
    [9, 'L', false],
    [0, 'Z', false],
    [0, 'N', false],
    [6, 'L', false],
    [19, 'H', false],
  ];
  const rates: Rec[] = home.map(([rate, type, isDefault]) => ({
    percentage: percentage(rate),
    type,
    default: bool(isDefault),
    country: '',
  }));
  rates.push({ percentage: percentage(21), type: 'H', default: bool(false), country: countryIdOf('BE') });
  rates.push({ percentage: percentage(19), type: 'H', default: bool(false), country: countryIdOf('DE') });
  return rates;
}

/** A few categories, some with a ledger account and some with `false`. */
export function generateCategories(seed: number): Rec[] {
  const rng = mulberry32(mixSeed(seed, 0xca7e6));
  const count = int(rng, 3, CATEGORY_NAMES.length);
  return CATEGORY_NAMES.slice(0, count).map((name, i) => ({
    id: String(i + 1),
    name,
    ledger: chance(rng, 0.3) ? false : pick(rng, [8000 + i * 10, String(8000 + i * 10)]),
  }));
}
