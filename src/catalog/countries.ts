/** The service's country list (spec section 1, `countrylist`): the ids the `country` fields use. Read as a list only. */
import { defineEntity, field, type Column } from './define.js';

export const countries = defineEntity({
  name: 'countries',
  label: 'country',
  endpoint: '/countrylist',
  key: 'id',
  singleRead: false,
  fields: {
    id: field.key('country id, as used in the `country` columns', 'Country ID'),
    name: field.text('country name'),
  },
});

/** Computed by the database from `name` (see country-codes.ts) as each row is written, not sent by the service. */
export const COUNTRY_DERIVED_COLUMNS: readonly Column[] = [
  {
    name: 'iso2',
    type: 'text',
    computed: 'country_iso2(name)',
    label: 'ISO code',
    doc: 'ISO 3166-1 alpha-2 code of the country, derived by the mirror from the Dutch name (country_iso2); empty when the name maps to none',
  },
];
