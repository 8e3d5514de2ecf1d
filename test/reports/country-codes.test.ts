/**
 * `country_iso2(name)`, the database's side of src/catalog/country-codes.ts: for every Dutch name
 * i18n-iso-countries knows, the service's own spellings, and those names as a person may type
 * them (another case, extra spaces), it gives what `countryCodeOf` gives in TypeScript, also where
 * the database's locale is C (the embedded server's: `lower('Åland')` is `Åland` there); and it is
 * inlined into the query that calls it (a body PostgreSQL must run per call made the countries'
 * iso2 trigger cost 215 ms for 227 rows).
 */
import isoCountries from 'i18n-iso-countries/index.js';
import dutch from 'i18n-iso-countries/langs/nl.json' with { type: 'json' };
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { countryCodeOf, KEPT_COUNTRY_NAMES } from '../../src/catalog/index.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();

function spellings(): (string | null)[] {
  isoCountries.registerLocale(dutch);
  const names = [
    ...Object.values(isoCountries.getNames('nl', { select: 'all' })).flat(),
    ...Object.keys(KEPT_COUNTRY_NAMES),
  ];
  return [
    ...names,
    ...names.map((name) => `  ${name.toUpperCase().replaceAll(' ', '   ')} `),
    'Ivoorkust',
    "Cote d'Ivoire",
    'Nergensland',
    '',
    null,
  ];
}

describe('country_iso2 in the database', () => {
  it('gives the code countryCodeOf gives, for every spelling, null where there is none', async () => {
    const names = spellings();
    const { rows } = await sql<{ name: string | null; code: string | null }>`
      select n as name, country_iso2(n) as code from unnest(${names}::text[]) with ordinality as t(n, i) order by i`.execute(
      database.current.handle.db,
    );
    expect(rows).toHaveLength(names.length);
    const wrong = rows.filter((row, i) => row.code !== countryCodeOf(names[i]));
    expect(wrong).toEqual([]);
    expect(rows.filter((row) => row.code !== null).length, 'most names have a code').toBeGreaterThan(names.length / 2);
  });

  it('is inlined into the query that calls it', async () => {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`
      explain (verbose) select country_iso2(name) from countries`.execute(database.current.handle.db);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).toContain('->>');
    expect(plan).not.toContain('country_iso2');
  });
});
