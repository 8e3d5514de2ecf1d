/**
 * The country list (`countrylist`): about 227 countries with gaps in the ids, 146 = the
 * Netherlands, as the real service has it. Names come from the ICU data built into Node.
 */

// ISO 3166-1 alpha-2 codes; a few tiny territories are left out, as the real list does.
const CODES = (
  'AD AE AF AG AI AL AM AO AR AS AT AU AW AZ BA BB BD BE BF BG BH BI BJ BM BN BO BR BS BT BW ' +
  'BY BZ CA CD CF CG CH CI CK CL CM CN CO CR CU CV CW CY CZ DE DJ DK DM DO DZ EC EE EG ER ' +
  'ES ET FI FJ FK FM FO FR GA GB GD GE GF GH GI GL GM GN GP GQ GR GT GU GW GY HK HN HR HT HU ID ' +
  'IE IL IN IQ IR IS IT JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU ' +
  'LV LY MA MC MD ME MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NG NI NL ' +
  'NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH ' +
  'SI SK SL SM SN SO SR SS ST SV SY SZ TC TD TG TH TJ TL TM TN TO TR TT TV TW TZ UA UG US UY ' +
  'UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

export const COUNTRY_LANGS = ['nl', 'en', 'de', 'fr', 'es'] as const;
export type CountryLang = (typeof COUNTRY_LANGS)[number];

export interface Country {
  id: string;
  code: string;
  names: Record<CountryLang, string>;
}

function build(): Country[] {
  const display = Object.fromEntries(
    COUNTRY_LANGS.map((l) => [l, new Intl.DisplayNames([l], { type: 'region' })]),
  ) as Record<CountryLang, Intl.DisplayNames>;
  const byEnglish = [...CODES].sort((a, b) => display.en.of(a)!.localeCompare(display.en.of(b)!, 'en'));
  // Ids with gaps (every 11th number unused), then the Netherlands moved to 146 by a swap.
  let next = 1;
  const ids = new Map<string, number>();
  for (const code of byEnglish) {
    if (next % 11 === 0) next++;
    ids.set(code, next++);
  }
  const holder = [...ids].find(([, id]) => id === 146);
  const nl = ids.get('NL')!;
  if (holder) ids.set(holder[0], nl);
  ids.set('NL', 146);
  return byEnglish
    .map((code) => ({
      id: String(ids.get(code)),
      code,
      names: Object.fromEntries(COUNTRY_LANGS.map((l) => [l, display[l].of(code)!])) as Record<CountryLang, string>,
    }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

export const COUNTRIES: readonly Country[] = build();

const byId = new Map(COUNTRIES.map((c) => [c.id, c]));
const byName = new Map<string, string>();
for (const c of COUNTRIES) {
  byName.set(c.code.toLowerCase(), c.id);
  for (const l of COUNTRY_LANGS) byName.set(c.names[l].toLowerCase(), c.id);
}
byName.set('holland', '146');

export function countryIdOf(code: string): string {
  return COUNTRIES.find((c) => c.code === code)!.id;
}

/** Resolve an id or a country name (any of the list's languages, or the ISO code) to an id. */
export function resolveCountry(value: string): string | undefined {
  const v = value.trim();
  if (/^\d+$/.test(v)) return byId.has(String(Number(v))) ? String(Number(v)) : undefined;
  return byName.get(v.toLowerCase());
}

/** The JSON of `countrylist[/lang]`, built once per language. */
const listJson = new Map<CountryLang, string>();
export function countryListJson(lang: CountryLang): string {
  let json = listJson.get(lang);
  if (!json) {
    json = JSON.stringify(COUNTRIES.map((c) => ({ id: c.id, name: c.names[lang] })));
    listJson.set(lang, json);
  }
  return json;
}
