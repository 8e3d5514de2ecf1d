/**
 * The VAT classification, in one place: `vat_entries` puts each tax entry of each live sent
 * invoice (the service's own `taxes`: rate, VAT `sum`, base `sum_of`) in a treatment (Dutch VAT
 * charged, 0 %, reverse charge at home, intra-EU, export), with its rubric of the Dutch return,
 * its grid of the Belgian one and its Peppol VAT category, or in a problem that keeps it out of
 * every rubric. The returns (`vat_return_nl`, `vat_return_be`), the Opgaaf ICP (`icp_return`)
 * and the list of what cannot be classified (`vat_problems`) only add up `vat_entries`, so every
 * figure of them, and of any export built on them, rests on the same classification.
 *
 * An entry is dated by its invoice's date (`sent`: the service's invoices carry no other date),
 * as the invoice system (factuurstelsel) dates VAT; a credit note (negative amounts) counts in
 * its own period. The buyer's country is the invoice's `country` id, through `countries.iso2`.
 */
import { ACCOUNT_COLUMNS, type Report } from './report-shared.js';
import { EU_VAT_AREA, VAT_PROBLEMS, VAT_RATES } from './vat-rules.js';

const text = (value: string | null): string => (value === null ? 'null' : `'${value.replace(/'/g, "''")}'`);
const day = (value: string | null): string => (value === null ? 'null::date' : `date '${value}'`);

const RATE_ROWS = VAT_RATES.map(
  (r) => `(${text(r.country)}, ${text(r.kind)}, ${r.rate}, ${day(r.from)}, ${day(r.until)})`,
);
const EU_ROWS = EU_VAT_AREA.map((m) => `(${text(m.code)}, ${day(m.from)}, ${day(m.until)}, ${text(m.note ?? null)})`);
const PROBLEM_ROWS = Object.entries(VAT_PROBLEMS).map(([kind, meaning]) => `(${text(kind)}, ${text(meaning)})`);

/** The functions (and the reference view of the EU VAT area) the VAT views use; applied before the views. */
export const VAT_FUNCTIONS: readonly string[] = [
  // The service sends amounts as decimal text or JSON numbers; anything else is not an amount.
  `
    create or replace function vat_amount(value jsonb) returns numeric language sql immutable as $$
      select case jsonb_typeof($1)
               when 'number' then ($1 #>> '{}')::numeric
               when 'string' then case when btrim($1 #>> '{}') ~ '^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)$'
                                       then btrim($1 #>> '{}')::numeric end
             end
    $$`,
  `comment on function vat_amount(jsonb) is 'A JSON number or decimal text as a number; NULL for anything else'`,
  // `taxes` is a keyed object (`tax1`, …), a list, or `[]`; `sumof` is how one client library spells `sum_of`.
  `
    create or replace function vat_tax_entries(taxes jsonb)
      returns table (entry_key text, rate numeric, vat numeric, base numeric, readable boolean)
      language sql immutable as $$
      select t.k, vat_amount(t.e -> 'rate'), vat_amount(t.e -> 'sum'), vat_amount(coalesce(t.e -> 'sum_of', t.e -> 'sumof')),
             coalesce(jsonb_typeof(t.e) = 'object' and vat_amount(t.e -> 'rate') is not null
                      and vat_amount(t.e -> 'sum') is not null
                      and vat_amount(coalesce(t.e -> 'sum_of', t.e -> 'sumof')) is not null, false)
        from (select key as k, value as e
                from jsonb_each(case when jsonb_typeof($1) = 'object' then $1 else '{}'::jsonb end)
              union all
              select (n - 1)::text, value
                from jsonb_array_elements(case when jsonb_typeof($1) = 'array' then $1 else '[]'::jsonb end)
                     with ordinality as a(value, n)) t
    $$`,
  `comment on function vat_tax_entries(jsonb) is 'The entries of a sent invoice''s taxes (rate, VAT sum, base sum_of), whether each could be read'`,
  `
    create or replace function vat_rate_kind(country text, rate numeric, on_date date) returns text
      language sql immutable as $$
      with rates(country, kind, rate, from_date, until_date) as (values ${RATE_ROWS.join(', ')})
      select case
               when $2 is null then null
               when $2 = 0 then 'zero'
               else coalesce(
                 (select r.kind from rates r
                   where r.country = $1 and r.rate = $2 and $3 >= r.from_date and (r.until_date is null or $3 <= r.until_date)),
                 case when exists (select from rates r where r.country = $1 and r.rate = $2) then 'former' else 'unknown' end)
             end
    $$`,
  `comment on function vat_rate_kind(text, numeric, date) is 'What a VAT rate is in a country (NL, BE) on a date: high, low, intermediate, zero, former (a rate of the country that did not apply on that date) or unknown'`,
  `
    create or replace function eu_member(code text, on_date date) returns boolean language sql immutable as $$
      select case when $1 is null or $2 is null then null
                  else exists (select from (values ${EU_ROWS.join(', ')}) as m(code, from_date, until_date, note)
                                where m.code = upper($1) and $2 >= m.from_date and (m.until_date is null or $2 <= m.until_date))
             end
    $$`,
  `comment on function eu_member(text, date) is 'Whether the country (ISO code) was in the EU VAT area on the date (see eu_vat_area); NULL without a code or a date'`,
  // Northern Ireland stayed in the EU VAT area for goods: its buyers have XI VAT numbers.
  `
    create or replace function eu_vat_buyer(code text, vat_number text, on_date date) returns boolean
      language sql immutable as $$
      select eu_member($1, $3) or (upper($1) = 'GB' and $3 >= date '2021-01-01' and coalesce(upper($2) like 'XI%', false))
    $$`,
  `comment on function eu_vat_buyer(text, text, date) is 'Whether a buyer of that country and VAT number counts as in the EU on the date: a member country, or since 2021 a British buyer with an XI (Northern Ireland) VAT number'`,
  `
    create or replace view eu_vat_area as
      select code, member_from, member_until, note from (values ${EU_ROWS.join(', ')}) as m(code, member_from, member_until, note)`,
  `comment on view eu_vat_area is 'The countries of the EU VAT area by ISO code, with the days their membership began and ended (inclusive); what eu_member() reads'`,
  `comment on column eu_vat_area.code is 'ISO 3166-1 alpha-2 code'`,
  `comment on column eu_vat_area.member_from is 'first day in the EU VAT area'`,
  `comment on column eu_vat_area.member_until is 'last day in it; empty while a member'`,
  `comment on column eu_vat_area.note is 'what else to know (Greece: VAT numbers begin with EL; Monaco: French VAT area; …)'`,
  `
    create or replace function vat_problem_text(kind text) returns text language sql immutable as $$
      select v.meaning from (values ${PROBLEM_ROWS.join(', ')}) as v(kind, meaning) where v.kind = $1
    $$`,
  `comment on function vat_problem_text(text) is 'What a kind of VAT problem (vat_problems.problem) means and what to do'`,
];

const PERIOD_COLUMNS = {
  quarter: 'the quarter of the invoice date, e.g. 2026-Q1',
  month: 'the month of the invoice date, e.g. 2026-03',
};

/**
 * The classification, one row per tax entry (see the module comment). The two laterals with
 * OFFSET 0 (the entries of `taxes`; rate kind and EU buyer) are computed once per invoice or entry:
 * flattened into the query, their expressions would be copied, and computed again, into every
 * column built on them (half the time of one account's quarter). A filter on account_id or the
 * date still reaches `invoices`.
 */
const VAT_ENTRIES: Report = {
  name: 'vat_entries',
  title: 'VAT entries',
  description: 'every tax entry of every sent invoice, classified for the VAT return (or a problem)',
  orderBy: 'account_name, invoice_date nulls first, invoice_id, entry_key',
  comment:
    'One row per VAT entry (rate, VAT, base) of every live sent invoice, as the service computed it (taxes), classified: treatment, rubric of the Dutch return, grid of the Belgian one, Peppol VAT category; or the problem that keeps it out of every rubric. Dated by the invoice date (sent). An invoice with a total but no entries is one row with problem no_taxes.',
  select: `
    with invoice_entries as (
      select i.account_id, a.name as account_name, a.vat_country as account_country,
             i.id as invoice_id, i.invoicenr as invoice_number, i.sent as invoice_date,
             i.clientnr as client_number, client_display_name(i.company, i.contact) as client_name,
             i.country as country_id, c.name as country_name, c.iso2 as country_iso2, c.id is not null as country_listed,
             nullif(upper(regexp_replace(coalesce(i.taxnumber, ''), '[^A-Za-z0-9]', '', 'g')), '') as vat_number,
             coalesce(i.tax_shifted, false) as tax_shifted,
             e.entry_key, e.rate, e.base, e.vat, e.readable
        from invoices i
        join accounts a on a.id = i.account_id
        left join countries c on c.account_id = i.account_id and c.id = i.country and c.deleted_at is null
        left join lateral (select * from vat_tax_entries(i.taxes) offset 0) e on true
       where i.deleted_at is null
         and (e.entry_key is not null or coalesce(i.totalintax, 0) <> 0)
    ),
    judged as (
      select x.*, k.rate_kind, x.country_iso2 = x.account_country as domestic, k.eu_buyer,
             x.tax_shifted or x.rate = 0 as untaxed
        from invoice_entries x
       cross join lateral (select vat_rate_kind(x.account_country, x.rate, x.invoice_date) as rate_kind,
                                  eu_vat_buyer(x.country_iso2, x.vat_number, x.invoice_date) as eu_buyer
                           offset 0) k
    ),
    classified as (
      select j.*,
             case
               when j.entry_key is null then 'no_taxes'
               when not j.readable then 'unreadable_taxes'
               when j.invoice_date is null then 'no_date'
               when j.base = 0 and j.vat <> 0 then 'vat_without_base'
               when j.rate_kind = 'former' then 'former_rate'
               when j.rate_kind = 'unknown' then 'unknown_rate'
               when j.rate_kind = 'zero' and j.vat <> 0 then 'vat_at_zero_rate'
               when j.tax_shifted and j.vat <> 0 then 'vat_on_shifted'
               when j.tax_shifted and j.vat_number is null then 'shifted_without_vat_number'
               when j.untaxed and (coalesce(j.country_id, 0) = 0 or not j.country_listed) then 'no_country'
               when j.untaxed and j.country_iso2 is null then 'unmapped_country'
               when j.untaxed and not j.domestic and j.eu_buyer and j.vat_number is null then 'eu_without_vat_number'
             end as problem
        from judged j
    ),
    treated as (
      select c.*,
             case
               when c.problem is not null then null
               when c.untaxed then case when c.domestic then case when c.tax_shifted then 'reverse_charge' else 'zero_rated' end
                                        when c.eu_buyer then 'intra_eu' else 'export' end
               else 'domestic_vat'
             end as treatment
        from classified c
    )
    select t.invoice_id, t.invoice_number, t.invoice_date,
           to_char(t.invoice_date, 'YYYY-"Q"Q') as quarter, to_char(t.invoice_date, 'YYYY-MM') as month,
           t.client_number, t.client_name, t.country_id, t.country_name, t.country_iso2,
           t.eu_buyer, t.vat_number, t.tax_shifted, t.entry_key, t.rate, t.base, t.vat,
           t.treatment,
           case t.treatment when 'domestic_vat' then 'S' when 'zero_rated' then 'Z' when 'reverse_charge' then 'AE'
                            when 'intra_eu' then 'K' when 'export' then 'G' end as peppol_category,
           case when t.account_country = 'NL' then
             case t.treatment
               when 'domestic_vat' then case t.rate_kind when 'high' then '1a' when 'low' then '1b' else '1c' end
               when 'zero_rated' then '1e' when 'reverse_charge' then '1e' when 'intra_eu' then '3b' when 'export' then '3a'
             end
           end as nl_rubric,
           case when t.account_country = 'BE' then
             case
               when t.treatment is null then null
               when t.base < 0 then case when t.treatment = 'intra_eu' then '48' else '49' end
               when t.treatment = 'domestic_vat' then case t.rate_kind when 'high' then '03' when 'intermediate' then '02' else '01' end
               else case t.treatment when 'zero_rated' then '00' when 'reverse_charge' then '45' when 'intra_eu' then '46' else '47' end
             end
           end as be_grid,
           case when t.account_country = 'BE' and t.treatment = 'domestic_vat' then case when t.base < 0 then '64' else '54' end
           end as be_vat_grid,
           t.problem,
           t.account_country,
           t.account_id,
           t.account_name
      from treated t`,
  columns: {
    invoice_id: 'id of the sent invoice',
    invoice_number: 'its invoice number',
    invoice_date: 'its date (sent): the date that places it in a period; empty on some old records',
    ...PERIOD_COLUMNS,
    client_number: 'client number on the invoice (0: none)',
    client_name: 'client name as printed on the invoice (company, or contact when there is no company)',
    country_id: "the invoice's country id (countries.id); empty or 0 when missing",
    country_name: 'that country as the service names it (in Dutch)',
    country_iso2: 'its ISO 3166-1 alpha-2 code (countries.iso2); empty when the name maps to none',
    eu_buyer:
      'whether the buyer counts as in the EU VAT area on the invoice date (eu_vat_buyer: a member country, or a British buyer with an XI VAT number since 2021)',
    vat_number: "the buyer's VAT number on the invoice, upper case, without spaces and punctuation; empty: none",
    tax_shifted: 'whether the VAT is shifted to the buyer (reverse charge); false on records that predate the field',
    entry_key: 'the key of the entry in taxes (tax1, …); empty on a row of problem no_taxes',
    rate: 'the VAT rate in percent, as the service gave it',
    base: 'the amount the VAT is over (sum_of), as the service computed it; negative on a credit note',
    vat: 'the VAT (sum), as the service computed it',
    treatment:
      'domestic_vat (VAT of the account country charged), zero_rated (0 % at home), reverse_charge (shifted to a buyer at home), intra_eu (0 % or shifted to a buyer in another EU country), export (0 % or shifted to a buyer outside the EU); empty when a problem keeps it out',
    peppol_category:
      'the Peppol BIS / EN 16931 VAT category of the treatment: S, Z, AE, K (intra-EU), G (export); empty with a problem',
    nl_rubric: 'rubric of the Dutch return (1a, 1b, 1c, 1e, 3a, 3b) for an account whose vat_country is NL',
    be_grid:
      'grid of the Belgian return for an account whose vat_country is BE: 00, 01, 02, 03, 45, 46, 47, and for credit notes 48 (of 46) or 49',
    be_vat_grid: 'grid of its VAT in the Belgian return: 54 (VAT due), 64 (VAT on credit notes issued)',
    problem: 'why it cannot be classified (see vat_problems); empty when classified',
    account_country: "the account's VAT country (accounts.vat_country)",
    ...ACCOUNT_COLUMNS,
  },
};

const VAT_PROBLEMS_REPORT: Report = {
  name: 'vat_problems',
  title: 'VAT problems',
  description: 'tax entries of sent invoices that the VAT return cannot classify, with what to do',
  orderBy: 'account_name, invoice_date nulls first, invoice_id, entry_key',
  comment:
    'The VAT entries of sent invoices that no rubric holds (see vat_entries), each with the kind of problem and what to do: the VAT returns count them per period (row unclassified), and nothing is left out silently.',
  select: `
    select invoice_id, invoice_number, invoice_date, quarter as period, month, client_number, client_name,
           country_id, country_name, country_iso2, vat_number, tax_shifted, entry_key, rate, base, vat,
           problem, vat_problem_text(problem) as what_to_do, account_id, account_name
      from vat_entries
     where problem is not null`,
  columns: {
    invoice_id: 'id of the sent invoice',
    invoice_number: 'its invoice number',
    invoice_date: 'its date (sent); empty on records without one',
    period: 'the quarter of the invoice date, e.g. 2026-Q1; empty without a date',
    month: 'the month of the invoice date, e.g. 2026-03',
    client_number: 'client number on the invoice (0: none)',
    client_name: 'client name as printed on the invoice',
    country_id: "the invoice's country id; empty or 0 when missing",
    country_name: 'that country as the service names it',
    country_iso2: 'its ISO code; empty when the name maps to none',
    vat_number: "the buyer's VAT number on the invoice; empty: none",
    tax_shifted: 'whether the VAT is shifted to the buyer',
    entry_key: 'the key of the entry in taxes; empty when the invoice has none',
    rate: 'the VAT rate in percent',
    base: 'the amount the VAT is over (sum_of)',
    vat: 'the VAT (sum)',
    problem: `the kind: ${Object.keys(VAT_PROBLEMS).join(', ')}`,
    what_to_do: 'what the kind means and what to do about it',
    ...ACCOUNT_COLUMNS,
  },
};

/** A rubric (or grid) of a return: what the row is, and how the mirror fills it. */
interface ReturnRow {
  code: string;
  nameNl: string;
  nameEn: string;
  /** yes: the mirror's figure; partly: the mirror's part of it; no: not covered (empty, never 0); problems: the unclassified entries. */
  coverage: 'yes' | 'partly' | 'no' | 'problems';
  base: boolean;
  vat: boolean;
  note: string;
}

const NOT_PURCHASES = 'purchases: the mirror holds only sales';

/** The Dutch return (aangifte omzetbelasting), rubric by rubric. */
export const NL_RUBRICS: readonly ReturnRow[] = [
  {
    code: '1a',
    nameNl: 'Leveringen/diensten belast met hoog tarief',
    nameEn: 'Supplies/services taxed at the standard rate (21 %)',
    coverage: 'yes',
    base: true,
    vat: true,
    note: 'Dutch VAT charged at the high rate of the invoice date, to any buyer',
  },
  {
    code: '1b',
    nameNl: 'Leveringen/diensten belast met laag tarief',
    nameEn: 'Supplies/services taxed at the reduced rate (9 %)',
    coverage: 'yes',
    base: true,
    vat: true,
    note: 'Dutch VAT charged at the low rate of the invoice date',
  },
  {
    code: '1c',
    nameNl: 'Leveringen/diensten belast met overige tarieven, behalve 0%',
    nameEn: 'Supplies/services taxed at other rates, except 0 %',
    coverage: 'yes',
    base: true,
    vat: true,
    note: 'none of the invoices: a former rate (19 %, 6 %) is listed in vat_problems, to be put here by hand when the supply predates the change',
  },
  {
    code: '1d',
    nameNl: 'Privégebruik',
    nameEn: 'Private use',
    coverage: 'no',
    base: true,
    vat: true,
    note: 'not covered: private use is not invoiced',
  },
  {
    code: '1e',
    nameNl: 'Leveringen/diensten belast met 0% of niet bij u belast',
    nameEn: 'Supplies/services taxed at 0 % or not taxed at you',
    coverage: 'yes',
    base: true,
    vat: false,
    note: '0 % to a buyer in the Netherlands, and VAT shifted to a Dutch buyer (verlegd); base only',
  },
  {
    code: '2a',
    nameNl: 'Leveringen/diensten waarbij de heffing van omzetbelasting naar u is verlegd',
    nameEn: 'Supplies/services with the VAT shifted to you',
    coverage: 'no',
    base: true,
    vat: true,
    note: `not covered: ${NOT_PURCHASES}`,
  },
  {
    code: '3a',
    nameNl: 'Leveringen naar landen buiten de EU (uitvoer)',
    nameEn: 'Supplies to countries outside the EU (export)',
    coverage: 'yes',
    base: true,
    vat: false,
    note: 'every 0 % or shifted amount to a buyer outside the EU, read as goods: services to buyers outside the EU belong in no rubric, so leave those out',
  },
  {
    code: '3b',
    nameNl: 'Leveringen naar of diensten in landen binnen de EU',
    nameEn: 'Supplies to or services in EU countries',
    coverage: 'yes',
    base: true,
    vat: false,
    note: '0 % or shifted to a buyer with a VAT number in another EU country, goods and services; equals the Opgaaf ICP (icp_return)',
  },
  {
    code: '3c',
    nameNl: 'Installatie/afstandsverkopen binnen de EU',
    nameEn: 'Installation/distance sales within the EU',
    coverage: 'no',
    base: true,
    vat: false,
    note: 'not covered: the invoices do not say which supplies are installations or distance sales',
  },
  {
    code: '4a',
    nameNl: 'Leveringen/diensten uit landen buiten de EU',
    nameEn: 'Supplies/services from countries outside the EU',
    coverage: 'no',
    base: true,
    vat: true,
    note: `not covered: ${NOT_PURCHASES}`,
  },
  {
    code: '4b',
    nameNl: 'Leveringen/diensten uit landen binnen de EU',
    nameEn: 'Supplies/services from EU countries',
    coverage: 'no',
    base: true,
    vat: true,
    note: `not covered: ${NOT_PURCHASES}`,
  },
  {
    code: '5a',
    nameNl: 'Verschuldigde omzetbelasting (rubrieken 1a t/m 4b)',
    nameEn: 'VAT due (rubrics 1a to 4b)',
    coverage: 'partly',
    base: false,
    vat: true,
    note: 'the VAT of 1a, 1b, 1c and 1e only: add 1d, 2a, 4a and 4b',
  },
  {
    code: '5b',
    nameNl: 'Voorbelasting',
    nameEn: 'Input VAT',
    coverage: 'no',
    base: false,
    vat: true,
    note: `not covered: ${NOT_PURCHASES}`,
  },
  {
    code: 'unclassified',
    nameNl: 'Niet ingedeeld (zie vat_problems)',
    nameEn: 'Not classified (see vat_problems)',
    coverage: 'problems',
    base: true,
    vat: true,
    note: 'entries of the period that no rubric holds: see vat_problems, and add them by hand',
  },
];

/** The Belgian periodic return (grids of frames II, IV and V that sales fill). */
export const BE_GRIDS: readonly ReturnRow[] = [
  [
    '00',
    'Handelingen onderworpen aan een bijzondere regeling',
    'Operations under a special regime (and at 0 %)',
    'yes',
    true,
    false,
    '0 % to a buyer in Belgium',
  ],
  [
    '01',
    'Handelingen waarvoor de btw verschuldigd is door de aangever: 6 %',
    'Operations at 6 %',
    'yes',
    true,
    false,
    'base of the 6 % invoices',
  ],
  [
    '02',
    'Handelingen waarvoor de btw verschuldigd is door de aangever: 12 %',
    'Operations at 12 %',
    'yes',
    true,
    false,
    'base of the 12 % invoices',
  ],
  [
    '03',
    'Handelingen waarvoor de btw verschuldigd is door de aangever: 21 %',
    'Operations at 21 %',
    'yes',
    true,
    false,
    'base of the 21 % invoices',
  ],
  [
    '44',
    'Diensten waarvoor de buitenlandse btw verschuldigd is door de medecontractant',
    'Services to EU businesses (VAT due by the customer)',
    'no',
    true,
    false,
    'not told apart from goods: every intra-EU amount is in 46; move services here by hand',
  ],
  [
    '45',
    'Handelingen waarvoor de btw verschuldigd is door de medecontractant',
    'Operations where the customer owes the VAT (domestic reverse charge)',
    'yes',
    true,
    false,
    'VAT shifted to a buyer in Belgium',
  ],
  [
    '46',
    'Vrijgestelde intracommunautaire leveringen',
    'Exempt intra-Community supplies',
    'yes',
    true,
    false,
    '0 % or shifted to a buyer with a VAT number in another EU country',
  ],
  [
    '47',
    'Andere vrijgestelde handelingen en handelingen verricht in het buitenland',
    'Other exempt operations and operations abroad',
    'yes',
    true,
    false,
    '0 % or shifted to a buyer outside the EU',
  ],
  [
    '48',
    "Creditnota's met betrekking tot de handelingen in 44 en 46",
    'Credit notes relating to 44 and 46',
    'yes',
    true,
    false,
    'intra-EU credit notes, as a positive amount',
  ],
  [
    '49',
    "Creditnota's met betrekking tot de andere handelingen van kader II",
    'Credit notes relating to the other operations',
    'yes',
    true,
    false,
    'the other credit notes, as a positive amount',
  ],
  [
    '54',
    'Btw op de handelingen aangegeven in 01, 02 en 03',
    'VAT on the operations in 01, 02 and 03',
    'yes',
    false,
    true,
    'VAT of the invoices at 6, 12 and 21 %',
  ],
  [
    '64',
    "Btw op de uitgereikte creditnota's",
    'VAT on credit notes issued',
    'yes',
    false,
    true,
    'VAT of the credit notes at 6, 12 and 21 %, as a positive amount',
  ],
  ['59', 'Aftrekbare btw', 'Deductible VAT', 'no', false, true, `not covered: ${NOT_PURCHASES}`],
  ['81-88', 'Inkomende handelingen', 'Incoming operations', 'no', true, false, `not covered: ${NOT_PURCHASES}`],
  [
    'unclassified',
    'Niet ingedeeld (zie vat_problems)',
    'Not classified (see vat_problems)',
    'problems',
    true,
    true,
    'entries of the period that no grid holds: see vat_problems',
  ],
].map(([code, nameNl, nameEn, coverage, base, vat, note]) => ({
  code: code as string,
  nameNl: nameNl as string,
  nameEn: nameEn as string,
  coverage: coverage as ReturnRow['coverage'],
  base: base as boolean,
  vat: vat as boolean,
  note: note as string,
}));

const rowsSql = (rows: readonly ReturnRow[]): string =>
  rows
    .map(
      (r, i) =>
        `(${i + 1}, ${text(r.code)}, ${text(r.nameNl)}, ${text(r.nameEn)}, ${text(r.coverage)}, ${r.base}, ${r.vat}, ${text(r.note)})`,
    )
    .join(',\n             ');

/**
 * A return's view: one row per period (quarter and month) and rubric of every period with an
 * entry. `codes` gives each entry's rows (code, base, vat; a lateral list over `e`, an entry of
 * vat_entries with its period), which are added up per period and code, and then per period into
 * one row (the codes' sums as a jsonb object, the unclassified entries, `partly`: the VAT of the
 * row that is the sum of others), crossed with the form's rows.
 *
 * Written so that a filter on account_id and period reaches the invoices: no CTE referenced twice
 * (it would be computed for every account first), only grouping on the filtered columns, one pass
 * over the entries. One account's quarter reads that account's invoices only.
 */
function returnSelect(country: 'NL' | 'BE', rows: readonly ReturnRow[], codes: string, partly: string): string {
  const entries = (kind: 'quarter' | 'month') => `
             select account_id, account_name, '${kind}' as period_kind, ${kind} as period,
                    date_trunc('${kind}', invoice_date)::date as period_start, nl_rubric, be_grid, be_vat_grid, base, vat
               from vat_entries where account_country = '${country}' and invoice_date is not null`;
  return `
    with form_rows(position, code, name_nl, name_en, coverage, with_base, with_vat, note) as (
           values ${rowsSql(rows)}
         )
    select p.period, p.period_kind, p.period_start,
           (p.period_start + case p.period_kind when 'quarter' then interval '3 months' else interval '1 month' end
              - interval '1 day')::date as period_end,
           r.code as ${country === 'NL' ? 'rubric' : 'grid'}, r.name_nl, r.name_en, r.coverage,
           case when r.with_base and r.coverage <> 'no' then coalesce((p.sums -> r.code ->> 'base')::numeric, 0.00) end as base,
           case when r.with_vat and r.coverage <> 'no' then
                  case when r.coverage = 'partly' then p.partly_vat
                       else coalesce((p.sums -> r.code ->> 'vat')::numeric, 0.00) end end as vat,
           case when r.coverage in ('yes', 'problems') then coalesce((p.sums -> r.code ->> 'entries')::integer, 0) end
             as entries,
           p.unclassified_entries, r.note, r.position, p.account_id, p.account_name
      from (select s.account_id, s.account_name, s.period_kind, s.period, s.period_start,
                   jsonb_object_agg(s.code, jsonb_build_object('base', s.base, 'vat', s.vat, 'entries', s.entries)) as sums,
                   coalesce(sum(s.entries) filter (where s.code = 'unclassified'), 0)::integer as unclassified_entries,
                   ${partly} as partly_vat
              from (select e.account_id, e.account_name, e.period_kind, e.period, e.period_start, c.code,
                           sum(c.base) as base, sum(c.vat) as vat, count(*) as entries
                      from (${entries('quarter')}
                            union all${entries('month')}) e
                     cross join lateral (${codes}) as c(code, base, vat)
                     where c.code is not null
                     group by e.account_id, e.account_name, e.period_kind, e.period, e.period_start, c.code) s
             group by s.account_id, s.account_name, s.period_kind, s.period, s.period_start) p
     cross join form_rows r`;
}

const RETURN_COLUMNS = (what: string) => ({
  period: 'the period: a quarter (2026-Q1) or a month (2026-03)',
  period_kind: 'quarter or month (every period appears as both)',
  period_start: 'first day of the period',
  period_end: 'last day of the period',
  [what]: `the ${what} of the return; unclassified: the entries no ${what} holds (see vat_problems)`,
  name_nl: `the ${what}'s name on the form, in Dutch`,
  name_en: `the ${what}'s name in English`,
  coverage:
    'yes: the figure from the invoices; partly: the part the invoices give (see note); no: not covered, left empty (never 0); problems: the entries of row unclassified',
  base: `the amount (base) of the ${what}, in euros to the cent (the form takes whole euros); empty when it has none or is not covered`,
  vat: `the VAT of the ${what}, in euros to the cent; empty when it has none or is not covered`,
  entries: 'how many VAT entries of sent invoices it adds up; empty when not covered',
  unclassified_entries: 'entries of the period no row classifies (vat_problems), the same on every row of the period',
  note: 'what the row holds, or why the mirror cannot fill it',
  position: 'its place on the form',
  ...ACCOUNT_COLUMNS,
});

const VAT_RETURN_NL: Report = {
  name: 'vat_return_nl',
  title: 'Dutch VAT return',
  description: 'the Dutch VAT return (aangifte omzetbelasting) per quarter and month, rubric by rubric',
  orderBy: 'account_name, period_kind desc, period_start, position',
  comment:
    'The sales side of the Dutch VAT return (aangifte omzetbelasting) of each account whose vat_country is NL, per quarter and per month of the invoice date (factuurstelsel), one row per rubric: 1a, 1b, 1c, 1e, 3a, 3b with base and VAT from vat_entries, 5a as the VAT of 1a to 1e; 1d, 2a, 3c, 4a, 4b and 5b are named as not covered (empty); row unclassified adds up what vat_problems lists. Amounts to the cent; the form takes whole euros.',
  select: returnSelect(
    'NL',
    NL_RUBRICS,
    `values (coalesce(e.nl_rubric, 'unclassified'), e.base, e.vat)`,
    `coalesce(sum(s.vat) filter (where s.code in ('1a', '1b', '1c', '1e')), 0.00)`,
  ),
  columns: RETURN_COLUMNS('rubric'),
};

const VAT_RETURN_BE: Report = {
  name: 'vat_return_be',
  title: 'Belgian VAT return',
  description: 'the Belgian periodic VAT return per quarter and month, grid by grid (sales side)',
  orderBy: 'account_name, period_kind desc, period_start, position',
  comment:
    'The sales side of the Belgian periodic VAT return of each account whose vat_country is BE, per quarter and month of the invoice date, one row per grid: 00, 01, 02, 03, 45, 46, 47, 48, 49 (bases), 54 and 64 (VAT) from vat_entries; 44 (services, not told from goods), 59 and 81-88 (purchases) are named as not covered; row unclassified adds up what vat_problems lists.',
  select: returnSelect(
    'BE',
    BE_GRIDS,
    // An entry's base in its grid (credit notes, 48 and 49, as positive amounts), and the VAT of
    // one charged at home in 54 (or 64 for a credit note, positive).
    `values (coalesce(e.be_grid, 'unclassified'), case when e.be_grid in ('48', '49') then -e.base else e.base end, e.vat),
            (e.be_vat_grid, null::numeric, case when e.be_vat_grid = '64' then -e.vat else e.vat end)`,
    'null::numeric',
  ),
  columns: RETURN_COLUMNS('grid'),
};

const ICP_RETURN: Report = {
  name: 'icp_return',
  title: 'Opgaaf ICP',
  description: 'intra-EU supplies per buyer VAT number and country, per quarter and month',
  orderBy: 'account_name, period_kind desc, period, country_iso2, vat_number',
  comment:
    'The Opgaaf intracommunautaire prestaties (the Belgian listing likewise): per account, period (quarter and month of the invoice date), buyer country and VAT number, the base of the entries vat_entries treats as intra_eu, goods and services together (the invoices do not tell them apart). Its total per period equals rubric 3b of vat_return_nl.',
  select: `
    select e.quarter as period, 'quarter' as period_kind, e.country_iso2,
           case when e.vat_number ~ '^[A-Z]{2}' then left(e.vat_number, 2) end as vat_prefix,
           e.vat_number, sum(e.base) as base, count(*)::integer as entries,
           count(distinct e.invoice_id)::integer as invoices, e.account_id, e.account_name
      from vat_entries e where e.treatment = 'intra_eu'
     group by e.account_id, e.account_name, e.quarter, e.country_iso2, e.vat_number
    union all
    select e.month as period, 'month' as period_kind, e.country_iso2,
           case when e.vat_number ~ '^[A-Z]{2}' then left(e.vat_number, 2) end as vat_prefix,
           e.vat_number, sum(e.base) as base, count(*)::integer as entries,
           count(distinct e.invoice_id)::integer as invoices, e.account_id, e.account_name
      from vat_entries e where e.treatment = 'intra_eu'
     group by e.account_id, e.account_name, e.month, e.country_iso2, e.vat_number`,
  columns: {
    period: 'the period: a quarter (2026-Q1) or a month (2026-03) of the invoice date',
    period_kind: 'quarter or month',
    country_iso2: "the buyer's country (ISO code)",
    vat_prefix: "the country prefix of the buyer's VAT number (EL for Greece, XI for Northern Ireland)",
    vat_number: "the buyer's VAT number, as on the invoices (upper case, no spaces)",
    base: 'the amount supplied to the buyer in the period, goods and services together; negative after credit notes',
    entries: 'how many VAT entries it adds up',
    invoices: 'how many invoices',
    ...ACCOUNT_COLUMNS,
  },
};

export const VAT_REPORTS: readonly Report[] = [
  VAT_ENTRIES,
  VAT_PROBLEMS_REPORT,
  VAT_RETURN_NL,
  VAT_RETURN_BE,
  ICP_RETURN,
];
