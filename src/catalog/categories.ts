/**
 * The account's categories (`GET /categories`; service-notes.md): `[{id, name, ledger}]`, where
 * `ledger` is the bookkeeping ledger account of the category, an integer or `false`. Records carry
 * `category` (an id, 0 for none) and clients `default_category`. Read as a list only.
 */
import { defineEntity, field } from './define.js';

export const categories = defineEntity({
  name: 'categories',
  label: 'category',
  endpoint: '/categories',
  key: 'id',
  singleRead: false,
  fields: {
    id: field.key('category id, as used in `category` and `default_category`', 'Category ID'),
    name: field.text('category name'),
    ledger: field.intOrFalse(
      'the ledger account of the category in the bookkeeping; empty when none (`false`)',
      'Ledger account',
    ),
  },
});
