/**
 * Realistic VAT on the generated data: who the clients are for VAT (Dutch businesses and
 * consumers, Dutch subcontractors whose VAT is shifted, businesses and consumers elsewhere in the
 * EU, buyers outside it), the VAT their invoices carry, credit notes, and the oddities old
 * accounts hold (a former 19 % rate, a VAT amount without a base, no country, a shifted invoice
 * without a VAT number, a country the Dutch list names ambiguously). Each from its own PRNG
 * stream, so the rest of a generated record stays as it was.
 */
import { countryIdOf, countryOf } from './countries.js';
import { recompute } from './derive.js';
import { chance, int, mixSeed, mulberry32, pick } from './prng.js';
import { linesToWire, readLines, type Rec } from './wire.js';

/** The sandbox's own list of the EU's members today (the mirror has its own, by period). */
const EU = new Set('AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '));
const EU_ABROAD = ['BE', 'BE', 'DE', 'DE', 'FR', 'ES', 'IT', 'AT', 'PL', 'IE', 'GR'];
const OUTSIDE = ['US', 'GB', 'GB', 'CH', 'NO', 'JP', 'AU'];

/** A VAT number as the country writes it (prefix EL for Greece). */
function vatNumber(code: string, rng: () => number): string {
  const digits = (n: number) => Array.from({ length: n }, () => String(int(rng, 0, 9))).join('');
  switch (code) {
    case 'NL':
      return `NL${digits(9)}B01`;
    case 'BE': {
      // An enterprise number: eight digits and their check digits, 97 less their remainder by 97.
      const first = `0${digits(9).slice(0, 7)}`;
      return `BE${first}${String(97 - (Number(first) % 97)).padStart(2, '0')}`;
    }
    case 'AT':
      return `ATU${digits(8)}`;
    case 'GR':
      return `EL${digits(9)}`;
    case 'GB':
      return `GB${digits(9)}`;
    case 'CH':
      return `CHE-${digits(3)}.${digits(3)}.${digits(3)} MWST`;
    default:
      return `${code}${digits(code === 'FR' || code === 'IT' ? 11 : 9)}`;
  }
}

/** Whether the sandbox counts a country id as in the EU today. */
export function isEuCountry(countryId: unknown): boolean {
  const code = countryOf(String(countryId ?? ''))?.code;
  return code !== undefined && EU.has(code);
}

interface ClientVat {
  /** The country id ('' for none). */
  country: string;
  taxnumber: string;
  shifted: boolean;
}

/** Who a generated client is for VAT. */
function clientVat(seed: number, id: number): ClientVat {
  const rng = mulberry32(mixSeed(seed, 0x5a7, id));
  const roll = rng();
  const of = (code: string, taxnumber: string, shifted: boolean): ClientVat => ({
    country: code === '' ? '' : countryIdOf(code),
    taxnumber,
    shifted,
  });
  // The oddities: a shifted client without a VAT number, one in "Congo" (the list has two), one without a country.
  if (id % 53 === 7) return of('NL', '', true);
  if (id % 59 === 11) return { country: '40', taxnumber: `CG${int(rng, 1e6, 9e6)}`, shifted: true };
  if (id % 61 === 13) return of('', vatNumber('DE', rng), true);
  if (roll < 0.72) return of('NL', chance(rng, 0.5) ? vatNumber('NL', rng) : '', false);
  if (roll < 0.78) return of('NL', vatNumber('NL', rng), true);
  if (roll < 0.9) {
    const code = pick(rng, EU_ABROAD);
    return of(code, vatNumber(code, rng), chance(rng, 0.7));
  }
  if (roll < 0.93) return of(pick(rng, EU_ABROAD), '', false);
  const code = pick(rng, OUTSIDE);
  // A British buyer in Northern Ireland has an XI number: EU for goods since 2021.
  const number = code === 'GB' && chance(rng, 0.2) ? `XI${vatNumber('GB', rng).slice(2)}` : vatNumber(code, rng);
  return of(code, chance(rng, 0.6) ? number : '', false);
}

/** Sets a generated client's country, VAT number and reverse charge. */
export function assignClientVat(seed: number, client: Rec): void {
  const vat = clientVat(seed, Number(client.clientnr));
  client.country = vat.country;
  client.taxnumber = vat.taxnumber;
  client.tax_shifted = vat.shifted ? 'true' : 'false';
}

/**
 * Gives a sent invoice's lines the VAT its client's status calls for (0 % when the VAT is shifted
 * or the supply leaves the Netherlands untaxed), and makes some credit notes and oddities; then
 * the document's totals are computed again.
 */
export function vatLines(id: number, document: Rec, client: Rec | undefined): void {
  const lines = readLines(document.lines, false);
  const shifted = client?.tax_shifted === 'true';
  const abroad = client !== undefined && client.country !== '146';
  const euConsumer = abroad && isEuCountry(client.country) && client.taxnumber === '';
  let untaxed = shifted || (abroad && !euConsumer);
  if (shifted && id % 43 === 21) untaxed = false; // VAT charged though it is shifted
  if (euConsumer && id % 7 === 0) untaxed = true; // 0 % to an EU consumer without a VAT number
  const credit = id % 29 === 3;
  let formerRateSet = false;
  for (const line of lines) {
    if (line.tax_rate === undefined) continue;
    if (untaxed) line.tax_rate = 0;
    if (!formerRateSet && id % 97 === 13) {
      line.tax_rate = 19;
      formerRateSet = true;
    }
    if (credit && line.amount !== undefined) line.amount = -line.amount;
  }
  document.lines = linesToWire(lines);
  recompute('saved_invoices', document);
}

/** After the taxes are made: a credit note is settled; old records get their oddities. */
export function adjustSentInvoice(id: number, invoice: Rec, day: string): void {
  if (Number(invoice.totalintax) < 0) Object.assign(invoice, { open: '0', paiddate: day });
  const taxes = invoice.taxes;
  if (id % 89 === 17 && taxes && !Array.isArray(taxes)) {
    const entry = Object.values(taxes as Rec).find((e) => Number((e as Rec).sum) !== 0) as Rec | undefined;
    if (entry) entry.sum_of = '0.00';
  }
  if (id % 101 === 19 && Number(invoice.totalintax) !== 0) invoice.taxes = [];
}
