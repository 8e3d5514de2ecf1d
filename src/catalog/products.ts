/** Products (spec 2.6). */
import { defineEntity, field } from './define.js';

export const products = defineEntity({
  name: 'products',
  label: 'product',
  endpoint: '/products',
  key: 'id',
  singleRead: true,
  fields: {
    id: field.key('product id', 'Product ID'),
    code: field.text('your own product code (not printed on invoices)', 'Code'),
    name: field.text('name shown on the invoice', 'Name'),
    price: field.money('unit price excluding tax', 'Price excl. tax'),
    taxes: field.num('tax percentage', 'Tax (%)'), // a percentage; kept numeric so a 5.5 % rate does not reject the product
    priceintax: field.money('unit price including tax', 'Price incl. tax'),
    notes: field.text('internal notes', 'Notes'),
    stock: field.stock('units in stock; empty when stock is not tracked (may be negative)', 'Stock'),
    stock_use: field.bool('whether stock is tracked for the product', 'Stock tracked'),
  },
});
