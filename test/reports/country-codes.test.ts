/**
 * `country_iso2(name)`, the database's side of src/catalog/country-codes.ts: for every Dutch name
 * i18n-iso-countries knows, the service's own spellings, and those names as a person may type
 * them (another case, extra spaces), it gives what `countryCodeOf` gives in TypeScript, also where
 * the database's locale is C (the embedded server's: `lower('Åland')` is `Åland` there); and it is
 * inlined into the query that calls it (a body PostgreSQL must run per call made the countries'
 * iso2 trigger cost 215 ms for 227 rows); and the mirror's writes set `iso2` with the row, once,
 * reading no other row, however much the table grew since the session first wrote to it.
 */
import isoCountries from 'i18n-iso-countries/index.js';
import dutch from 'i18n-iso-countries/langs/nl.json' with { type: 'json' };
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { countryCodeOf, KEPT_COUNTRY_NAMES } from '../../src/catalog/index.js';
import { definitionOf, toStagedRow, type ReadEntityRecord } from '../../src/sync/entities.js';
import { mergePage } from '../../src/sync/merge.js';
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

describe('the code of a country written', () => {
  it("is written with the row, once, and reads none of the other accounts' rows, however many there are", async () => {
    const { db } = database.current.handle;
    const accounts = await sql<{ id: number }>`
      insert into accounts (name) select 'iso2-write-' || g from generate_series(1, 2) g returning id`.execute(db);
    const [bulk, later] = accounts.rows.map((row) => row.id);
    const definition = definitionOf('countries');
    const page = (names: string[]) =>
      names.map((name, i) => {
        const raw = { id: i + 1, name };
        const read = { record: { ...raw, raw }, rawText: JSON.stringify(raw), issues: [] };
        return toStagedRow(definition, read as ReadEntityRecord);
      });
    const many = Array.from({ length: 20_000 }, (_, i) => (i % 2 ? 'Nederland' : `Land ${i}`));
    // One session throughout, as a daemon's pooled connection: a plan kept for the session, made
    // at its first write while the table was empty, read every stored row at each write after.
    const stats = await db.connection().execute(async (session) => {
      await mergePage(session, bulk!, definition, page(many), null, 'insert');
      return session.transaction().execute(async (trx) => {
        // Differences: since PostgreSQL 15 these counters may still hold earlier transactions' counts.
        const counters = async () => {
          const { rows } = await sql<{ read: string; updated: string }>`
            select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as read, n_tup_upd as updated
              from pg_stat_xact_user_tables where relid = 'countries'::regclass`.execute(trx);
          return { read: Number(rows[0]!.read), updated: Number(rows[0]!.updated) };
        };
        const before = await counters();
        await mergePage(trx, later!, definition, page(['België', 'Åland', 'Nergensland']), null, 'merge');
        await mergePage(trx, later!, definition, page(['België', 'Aland', 'Nergensland']), null, 'merge');
        const after = await counters();
        return { read: after.read - before.read, updated: after.updated - before.updated };
      });
    });
    expect(stats.read, 'rows of countries read by the two writes of three').toBeLessThanOrEqual(10);
    expect(stats.updated, 'one row renamed, written once').toBe(1);
    const { rows: codes } = await sql<{ account_id: number; iso2: string | null; n: number }>`
      select account_id, iso2, count(*)::int as n from countries where account_id in (${bulk!}, ${later!})
       group by 1, 2 order by 1, 2`.execute(db);
    expect(codes).toEqual([
      { account_id: bulk, iso2: 'NL', n: 10_000 },
      { account_id: bulk, iso2: null, n: 10_000 },
      { account_id: later, iso2: 'AX', n: 1 },
      { account_id: later, iso2: 'BE', n: 1 },
      { account_id: later, iso2: null, n: 1 },
    ]);
  });
});
