/**
 * Every entity, in pull order: what documents refer to (countries, tax rates, categories, clients,
 * products) comes first. Its own file so that the reports (reports.ts, which index.ts imports) can
 * name the mirror tables from the same list.
 */
import { categories } from './categories.js';
import { clients } from './clients.js';
import { countries } from './countries.js';
import { invoices } from './invoices.js';
import { products } from './products.js';
import { quotations } from './quotations.js';
import { repeatingInvoices } from './repeating-invoices.js';
import { savedInvoices } from './saved-invoices.js';
import { taxes } from './taxes.js';

export const ENTITIES = [
  countries,
  taxes,
  categories,
  clients,
  products,
  quotations,
  savedInvoices,
  repeatingInvoices,
  invoices,
] as const;
