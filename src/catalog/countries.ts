/** The service's country list (spec section 1, `countrylist`): the ids the `country` fields use. Read as a list only. */
import { defineEntity, field } from './define.js';

export const countries = defineEntity({
  name: 'countries',
  label: 'country',
  endpoint: '/countrylist',
  key: 'id',
  singleRead: false,
  fields: {
    id: field.key('country id, as used in the `country` columns'),
    name: field.text('country name'),
  },
});
