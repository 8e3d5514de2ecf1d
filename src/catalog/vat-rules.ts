/**
 * The facts the VAT classification stands on, as data: the Dutch and Belgian rates by period, the
 * EU VAT area by period, and what each kind of unclassifiable record means. vat.ts turns them into
 * the SQL functions the VAT views use; the tests read them only to name what they check.
 */

/** A VAT rate of a country, valid from a date until a date (inclusive; null: still valid). */
export interface VatRate {
  country: 'NL' | 'BE';
  /** `high` and `low` are the Dutch rubrics 1a and 1b; Belgium has an `intermediate` rate (12 %) too. */
  kind: 'high' | 'low' | 'intermediate';
  rate: number;
  from: string;
  until: string | null;
}

export const VAT_RATES: readonly VatRate[] = [
  { country: 'NL', kind: 'high', rate: 17.5, from: '1992-10-01', until: '2000-12-31' },
  { country: 'NL', kind: 'high', rate: 19, from: '2001-01-01', until: '2012-09-30' },
  { country: 'NL', kind: 'high', rate: 21, from: '2012-10-01', until: null },
  { country: 'NL', kind: 'low', rate: 6, from: '1986-10-01', until: '2018-12-31' },
  { country: 'NL', kind: 'low', rate: 9, from: '2019-01-01', until: null },
  { country: 'BE', kind: 'high', rate: 21, from: '1996-01-01', until: null },
  { country: 'BE', kind: 'intermediate', rate: 12, from: '1992-04-01', until: null },
  { country: 'BE', kind: 'low', rate: 6, from: '1971-01-01', until: null },
];

/**
 * The EU VAT area by ISO code and period (joined; left, inclusive). Monaco is French VAT
 * territory and the Isle of Man was British; the overseas departments (GF, GP, MQ, RE, YT) and
 * the Canary Islands, Channel Islands and Åland are outside it, and have codes of their own or
 * cannot be told from the country alone. Since 2021 a British buyer with an XI VAT number
 * (Northern Ireland) counts as EU for goods: see vat.ts.
 */
export const EU_VAT_AREA: readonly { code: string; from: string; until: string | null; note?: string }[] = [
  { code: 'AT', from: '1995-01-01', until: null },
  { code: 'BE', from: '1958-01-01', until: null },
  { code: 'BG', from: '2007-01-01', until: null },
  { code: 'CY', from: '2004-05-01', until: null },
  { code: 'CZ', from: '2004-05-01', until: null },
  { code: 'DE', from: '1958-01-01', until: null },
  { code: 'DK', from: '1973-01-01', until: null },
  { code: 'EE', from: '2004-05-01', until: null },
  { code: 'ES', from: '1986-01-01', until: null },
  { code: 'FI', from: '1995-01-01', until: null },
  { code: 'FR', from: '1958-01-01', until: null },
  { code: 'GB', from: '1973-01-01', until: '2020-12-31', note: 'left the EU VAT area at the end of 2020' },
  { code: 'GR', from: '1981-01-01', until: null, note: 'VAT numbers begin with EL' },
  { code: 'HR', from: '2013-07-01', until: null },
  { code: 'HU', from: '2004-05-01', until: null },
  { code: 'IE', from: '1973-01-01', until: null },
  { code: 'IM', from: '1973-01-01', until: '2020-12-31', note: 'part of the British VAT area' },
  { code: 'IT', from: '1958-01-01', until: null },
  { code: 'LT', from: '2004-05-01', until: null },
  { code: 'LU', from: '1958-01-01', until: null },
  { code: 'LV', from: '2004-05-01', until: null },
  { code: 'MC', from: '1958-01-01', until: null, note: 'part of the French VAT area' },
  { code: 'MT', from: '2004-05-01', until: null },
  { code: 'NL', from: '1958-01-01', until: null },
  { code: 'PL', from: '2004-05-01', until: null },
  { code: 'PT', from: '1986-01-01', until: null },
  { code: 'RO', from: '2007-01-01', until: null },
  { code: 'SE', from: '1995-01-01', until: null },
  { code: 'SI', from: '2004-05-01', until: null },
  { code: 'SK', from: '2004-05-01', until: null },
];

/**
 * Why a tax entry of a sent invoice cannot be put in a rubric, and what to do: in the order the
 * classification tests them (the first that applies is the entry's problem).
 */
export const VAT_PROBLEMS = {
  no_taxes: 'the invoice has a total but no VAT per rate (taxes is empty): check it in the service',
  unreadable_taxes: 'a VAT entry whose rate, VAT or base is not a number: check the invoice in the service',
  no_date: 'the invoice has no date (sent is empty), so it falls in no period: enter it by hand',
  vat_without_base:
    'VAT without a base (sum_of 0 beside a VAT amount), as old records hold: enter base and VAT by hand',
  former_rate:
    'a former Dutch rate (19 % until 2012-09-30, 6 % until 2018-12-31) on a later invoice: rubric 1c if the supply was made before the change, else a mistake to correct with a credit note',
  unknown_rate: "a rate that is not one of the account country's VAT rates on the invoice date: check the invoice",
  vat_at_zero_rate: 'VAT at a 0 % rate: check the invoice',
  vat_on_shifted: 'VAT charged on an invoice whose VAT is shifted to the buyer (reverse charge): check the invoice',
  shifted_without_vat_number: "VAT shifted to the buyer, but the invoice has no buyer's VAT number",
  no_country: "the invoice's country is missing, or not in the country list: set the client's country",
  unmapped_country:
    "the invoice's country name maps to no ISO code (see countries.iso2), so EU or not cannot be told: set another country, or report the name",
  eu_without_vat_number:
    "no VAT charged to a buyer in another EU country without a VAT number (an intra-EU supply needs the buyer's VAT number): check the invoice",
} as const;

export type VatProblemKind = keyof typeof VAT_PROBLEMS;
