/**
 * ISO 3166-1 alpha-2 codes for the service's Dutch country names (service-notes.md, "Taxes,
 * categories, countries and VAT": `countrylist` gives ids and Dutch names only).
 *
 * A name maps to a code by the Dutch names of i18n-iso-countries (its Dutch locale only), compared
 * without case, common accents or extra spaces, and by a short kept list of the spellings the service uses
 * that the library does not know (`Antartica`, `St. Kitts`, `Norkfolkeiland`, …). A name that maps
 * to nothing, or to two codes, has no code: the mirror never guesses, and the VAT views list what it
 * cannot place (`vat_problems`). The mapping is applied by the database (`country_iso2`, made by the
 * repeatable step from this table), so a better table reaches every stored row at the next migrate.
 */
import isoCountries from 'i18n-iso-countries/index.js';
import dutch from 'i18n-iso-countries/langs/nl.json' with { type: 'json' };

/** The accented letters the comparison folds, and what they fold to (the same in SQL: see country_iso2). */
const ACCENTED = 'àáâãäåçèéêëìíîïñòóôõöùúûüýÿ';
const PLAIN = 'aaaaaaceeeeiiiinooooouuuuyy';

/**
 * The capitals beyond ASCII (Latin-1 and Latin Extended) and their lower case as toLowerCase gives
 * them: SQL's lower() folds only ASCII where the database's locale is C, as the embedded server's
 * is, so country_iso2 folds these itself (`Åland` is a Dutch name of AX).
 */
const CAPITALS = Array.from({ length: 0x250 - 0xc0 }, (_, i) => String.fromCharCode(0xc0 + i)).filter(
  (char) => char.toLowerCase() !== char && char.toLowerCase().length === 1,
);

/** How names are compared: lower case, the common accents folded, spaces trimmed and collapsed. */
export function countryNameKey(name: string): string {
  let out = '';
  for (const char of name.toLowerCase().replace(/\s+/g, ' ').trim()) {
    const at = ACCENTED.indexOf(char);
    out += at < 0 ? char : PLAIN[at];
  }
  return out;
}

/**
 * The service's spellings the library does not know (from the real list of about 227 names), with
 * their codes; `null` for names that have no code to give: a state that no longer exists, or a name
 * the list uses for two countries.
 */
export const KEPT_COUNTRY_NAMES: Readonly<Record<string, string | null>> = {
  'Amerikaanse Overzeese eilanden': 'UM',
  Antartica: 'AQ',
  Antigua: 'AG',
  Bolivia: 'BO',
  Bouvet: 'BV',
  Cookeiland: 'CK',
  'De Bahama\u2019s': 'BS',
  "De Bahama's": 'BS',
  'Equatoriaal Guinee': 'GQ',
  Guinee: 'GN',
  Hongkong: 'HK',
  'Maagdeneilanden (UK)': 'VG',
  'Maagdeneilanden (VS)': 'VI',
  Macau: 'MO',
  Macedonië: 'MK',
  Malediven: 'MV',
  Mauretanië: 'MR',
  Monsterrat: 'MS',
  'Noordelijke Mariana-eilanden': 'MP',
  Norkfolkeiland: 'NF',
  'Papoea Nieuw-Guinea': 'PG',
  Solomoneilanden: 'SB',
  'St. Helena': 'SH',
  'St. Kitts': 'KN',
  'St. Lucia': 'LC',
  'St. Pierre': 'PM',
  'St. Vincent': 'VC',
  Sudan: 'SD',
  Uganda: 'UG',
  'West-Sahara': 'EH',
  // The list has two entries named Congo (the Republic, CG, and the Democratic Republic, CD) and
  // nothing tells them apart.
  Congo: null,
  // Withdrawn codes: Yugoslavia (YU, 2003) and the Netherlands Antilles (AN, 2010).
  Joegoslavië: null,
  'Nederlandse Antillen': null,
};

/** Every name key the mapping knows, with its code (null: known to have none). */
function buildTable(): Map<string, string | null> {
  isoCountries.registerLocale(dutch);
  const table = new Map<string, string | null>();
  const ambiguous = new Set<string>();
  for (const [code, names] of Object.entries(isoCountries.getNames('nl', { select: 'all' }))) {
    for (const name of names) {
      const key = countryNameKey(name);
      const known = table.get(key);
      if (known !== undefined && known !== code) ambiguous.add(key);
      table.set(key, code);
    }
  }
  for (const key of ambiguous) table.set(key, null);
  for (const [name, code] of Object.entries(KEPT_COUNTRY_NAMES)) table.set(countryNameKey(name), code);
  return table;
}

/** Name key → code, in key order (so the SQL made from it is the same on every run). */
export const COUNTRY_NAME_TABLE: ReadonlyMap<string, string | null> = new Map(
  [...buildTable()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
);

/** The code of a Dutch country name as the service spells it, or null when it has none. */
export function countryCodeOf(name: string | null | undefined): string | null {
  if (name === null || name === undefined) return null;
  return COUNTRY_NAME_TABLE.get(countryNameKey(name)) ?? null;
}

const sqlText = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * `country_iso2(name)`: the table as a SQL function, comparing names as countryNameKey does. The
 * table is one jsonb object looked up by key, in a body of one expression, so PostgreSQL inlines
 * the function into the query that calls it and parses the object once per query; a table of
 * `values` in the body was scanned at every call (the iso2 trigger of 227 countries took 215 ms).
 */
export function countryIso2Functions(): string[] {
  const codes = Object.fromEntries([...COUNTRY_NAME_TABLE].filter(([, code]) => code !== null));
  return [
    `
    create or replace function country_iso2(name text) returns text language sql immutable as $$
      select ${sqlText(JSON.stringify(codes))}::jsonb
             ->> translate(lower(translate(btrim(regexp_replace(name, '\\s+', ' ', 'g')), ${sqlText(CAPITALS.join(''))},
                                           ${sqlText(CAPITALS.map((char) => char.toLowerCase()).join(''))})),
                           '${ACCENTED}', '${PLAIN}')
    $$`,
    `
    comment on function country_iso2(text) is
      'The ISO 3166-1 alpha-2 code of a Dutch country name as the service spells it (the Dutch names of i18n-iso-countries plus a kept list of the service''s own spellings, src/catalog/country-codes.ts), compared without case, common accents and extra spaces; NULL when the name maps to no code or to two.'`,
  ];
}
