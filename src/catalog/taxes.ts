/**
 * The account's VAT rates (`GET /taxes`; service-notes.md, "Taxes, categories, countries and
 * VAT"): `[{percentage, type, default, country}]`, read as a list only. Their scalar types are not
 * shown by any client, so each is read leniently (numbers and booleans from strings too). The
 * service gives a rate no id: the mirror keys it by its country, type and percentage.
 */
import { defineEntity, field } from './define.js';
import { toNumber } from './wire.js';

/** FNV-1a of the text, in the range of a non-negative `integer`. */
function hash31(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h & 0x7fffffff;
}

/**
 * A rate's key: what identifies it (its country, type and percentage, as read), hashed to an
 * integer; a percentage that cannot be read keeps the record out (reported, never stored half).
 */
export function taxRateKey(raw: Record<string, unknown>): number | null {
  let percentage: number | null;
  try {
    percentage = toNumber(raw.percentage);
  } catch {
    return null;
  }
  if (percentage === null) return null;
  const country = typeof raw.country === 'string' || typeof raw.country === 'number' ? String(raw.country) : '';
  const type = typeof raw.type === 'string' ? raw.type : '';
  return hash31(`${country.trim().toLowerCase()}|${type.trim().toUpperCase()}|${percentage}`);
}

export const taxes = defineEntity({
  name: 'taxes',
  label: 'tax rate',
  endpoint: '/taxes',
  key: 'rate_key',
  singleRead: false,
  derivedKey: taxRateKey,
  fields: {
    rate_key: field.derivedKey(
      "the mirror's key of the rate (the service gives none): a number made from its country, type and percentage",
      'Rate key',
    ),
    percentage: field.num('the VAT rate in percent', 'VAT rate (%)'),
    type: field.upper('`H` high, `L` low, `Z` zero, `N` none (no VAT)', 'Rate type'),
    default: field.bool('whether it is the rate new lines get', 'Default rate'),
    country: field.text('the country of a foreign rate, as the service gives it; empty for the home rates', 'Country'),
  },
});
