/**
 * The country list (`countrylist`): the real service's 227 countries, with its ids (gaps
 * included, 146 = Nederland) and its Dutch names as it spells them (`Ijsland`, `Antartica`,
 * `St. Kitts`, two entries named `Congo`, `Joegoslavië`, …), so that the mirror's mapping of names
 * to ISO codes meets what production sends. Each entry carries the ISO code the sandbox knows it
 * by (the withdrawn YU and AN for Yugoslavia and the Netherlands Antilles); the other languages'
 * names come from the ICU data built into Node.
 */

/** `id code Dutch name`, one a line, in id order. */
const LIST = `
1 AF Afghanistan
2 AL Albanië
3 DZ Algerije
4 UM Amerikaanse Overzeese eilanden
5 AD Andorra
6 AO Angola
7 AI Anguilla
8 AQ Antartica
9 AG Antigua
10 AR Argentinië
11 AM Armenië
12 AW Aruba
13 AU Australië
14 AZ Azerbeidzjan
15 BH Bahrein
16 BD Bangladesh
17 BB Barbados
18 BE België
19 BZ Belize
20 BJ Benin
21 BM Bermuda
22 BT Bhutan
23 BO Bolivia
24 BA Bosnië-Herzegovina
25 BW Botswana
26 BV Bouvet
27 BR Brazilië
29 BN Brunei
30 BG Bulgarije
31 BF Burkina Faso
32 BI Burundi
33 KH Cambodja
34 CA Canada
35 CF Centraal-Afrikaanse Republiek
36 CL Chili
37 CN China
38 CO Colombia
39 KM Comoren
40 CG Congo
41 CD Congo
42 CK Cookeiland
43 CR Costa Rica
44 CU Cuba
45 CY Cyprus
46 DK Denemarken
47 DJ Djibouti
48 DM Dominica
49 DO Dominicaanse Republiek
50 DE Duitsland
51 EC Ecuador
52 EG Egypte
53 SV El Salvador
54 GQ Equatoriaal Guinee
55 ER Eritrea
56 EE Estland
57 ET Ethiopië
58 FO Faeröer
59 FK Falklandeilanden
60 FJ Fiji
61 PH Filipijnen
62 FI Finland
63 FR Frankrijk
64 GF Frans-Guyana
65 PF Frans-Polynesië
67 GA Gabon
68 GM Gambia
69 GE Georgië
70 GH Ghana
71 GI Gibraltar
72 GD Grenada
73 GR Griekenland
74 GL Groenland
75 GP Guadeloupe
77 GT Guatemala
78 GW Guinee-Bissau
79 GN Guinee
80 GY Guyana
81 HT Haïti
83 HN Honduras
84 HU Hongarije
85 HK Hongkong
86 IE Ierland
87 IS Ijsland
88 IN India
89 ID Indonesië
90 IQ Irak
91 IR Iran
92 IL Israël
93 IT Italië
94 CI Ivoorkust
95 JM Jamaica
96 JP Japan
97 YE Jemen
98 YU Joegoslavië
99 JO Jordanië
101 CV Kaapverdië
102 CM Kameroen
103 KZ Kazachstan
104 KE Kenia
106 KG Kirgizië
107 KI Kiribati
108 KW Koeweit
110 HR Kroatië
111 LA Laos
112 LS Lesotho
113 LV Letland
114 LB Libanon
115 LR Liberia
116 LY Libië
117 LI Liechtenstein
118 LT Litouwen
119 LU Luxemburg
120 VG Maagdeneilanden (UK)
121 VI Maagdeneilanden (VS)
122 MO Macau
123 MK Macedonië
124 MG Madagaskar
125 MW Malawi
126 MV Malediven
127 MY Maleisië
128 ML Mali
129 MT Malta
130 MA Marokko
131 MH Marshalleilanden
132 MQ Martinique
133 MR Mauretanië
134 MU Mauritius
135 YT Mayotte
136 MX Mexico
137 FM Micronesië
138 MD Moldavië
139 MC Monaco
140 MN Mongolië
141 MS Monsterrat
142 MZ Mozambique
143 MM Myanmar
144 NA Namibië
145 NR Nauru
146 NL Nederland
147 AN Nederlandse Antillen
148 NP Nepal
149 NI Nicaragua
150 NC Nieuw-Caledonië
151 NZ Nieuw-Zeeland
152 NE Niger
153 NG Nigeria
154 NU Niue
155 KP Noord-Korea
156 MP Noordelijke Mariana-eilanden
157 NO Noorwegen
158 NF Norkfolkeiland
159 UA Oekraïne
160 UZ Oezbekistan
161 OM Oman
163 AT Oostenrijk
164 PK Pakistan
166 PA Panama
167 PG Papoea Nieuw-Guinea
168 PY Paraguay
169 PE Peru
171 PL Polen
172 PT Portugal
173 PR Puerto Rico
174 QA Qatar
175 RE Reunion
176 RO Roemenië
177 RU Rusland
178 RW Rwanda
179 WS Samoa
181 SM San Marino
182 ST Sao Tomé en Principe
183 SA Saudi-Arabië
184 SN Senegal
185 SC Seychellen
186 SL Sierra Leone
187 SG Singapore
188 SI Slovenië
189 SK Slowakije
190 SB Solomoneilanden
191 SO Somalië
192 ES Spanje
193 LK Sri Lanka
194 SH St. Helena
195 KN St. Kitts
196 LC St. Lucia
197 PM St. Pierre
198 VC St. Vincent
199 SD Sudan
200 SR Suriname
202 SZ Swaziland
203 SY Syrië
204 TJ Tadzjikistan
205 TW Taiwan
206 TZ Tanzania
207 TH Thailand
208 TG Togo
210 TO Tonga
211 TT Trinidad en Tobago
212 TD Tsjaad
213 CZ Tsjechië
214 TN Tunesië
215 TR Turkije
216 TM Turkmenistan
218 TV Tuvalu
219 UG Uganda
220 UY Uruguay
222 VA Vaticaanstad
223 VE Venezuela
224 GB Verenigd Koninkrijk
225 AE Verenigde Arabische Emiraten
226 US Verenigde Staten
227 VN Vietnam
229 EH West-Sahara
230 BY Wit-Rusland
231 ZM Zambia
232 ZW Zimbabwe
233 ZA Zuid-Afrika
235 KR Zuid-Korea
236 SE Zweden
237 CH Zwitserland
238 BS De Bahama's
239 CW Curaçao
240 SX Sint Maarten
241 RS Servië
242 ME Montenegro
243 JE Jersey
244 GG Guernsey
`;

export const COUNTRY_LANGS = ['nl', 'en', 'de', 'fr', 'es'] as const;
export type CountryLang = (typeof COUNTRY_LANGS)[number];

export interface Country {
  id: string;
  /** The ISO 3166-1 alpha-2 code the sandbox knows the country by (the truth the tests compare with). */
  code: string;
  names: Record<CountryLang, string>;
}

/** Names ICU does not have: codes withdrawn from ISO 3166. */
const WITHDRAWN: Record<string, Omit<Record<CountryLang, string>, 'nl'>> = {
  YU: { en: 'Yugoslavia', de: 'Jugoslawien', fr: 'Yougoslavie', es: 'Yugoslavia' },
  AN: {
    en: 'Netherlands Antilles',
    de: 'Niederländische Antillen',
    fr: 'Antilles néerlandaises',
    es: 'Antillas Neerlandesas',
  },
};

function build(): Country[] {
  const display = Object.fromEntries(
    COUNTRY_LANGS.map((l) => [l, new Intl.DisplayNames([l], { type: 'region' })]),
  ) as Record<CountryLang, Intl.DisplayNames>;
  return LIST.trim()
    .split('\n')
    .map((line) => {
      const [, id, code, nl] = /^(\d+) ([A-Z]{2}) (.+)$/.exec(line)!;
      const other = WITHDRAWN[code!];
      const names = { nl: nl! } as Record<CountryLang, string>;
      for (const lang of COUNTRY_LANGS.slice(1) as Exclude<CountryLang, 'nl'>[])
        names[lang] = other ? other[lang] : display[lang].of(code!)!;
      return { id: id!, code: code!, names };
    });
}

export const COUNTRIES: readonly Country[] = build();

const byId = new Map(COUNTRIES.map((c) => [c.id, c]));
const byName = new Map<string, string>();
for (const c of [...COUNTRIES].reverse()) {
  byName.set(c.code.toLowerCase(), c.id);
  for (const l of COUNTRY_LANGS) byName.set(c.names[l].toLowerCase(), c.id);
}
byName.set('holland', '146');

export function countryIdOf(code: string): string {
  return COUNTRIES.find((c) => c.code === code)!.id;
}

/** The sandbox's country of an id (undefined for an id not in the list). */
export function countryOf(id: string): Country | undefined {
  return byId.get(String(Number(id)));
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
