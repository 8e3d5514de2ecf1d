/** Saved invoices (spec 2.3): invoices saved as drafts, not yet sent; lines in `document_lines`. */
import { defineEntity, field } from './define.js';

export const savedInvoices = defineEntity({
  name: 'saved_invoices',
  label: 'saved invoice',
  endpoint: '/invoices_saved',
  key: 'id',
  singleRead: true,
  documentType: 'saved_invoice',
  fields: {
    id: field.key('saved invoice id'),
    name: field.text('unique name of the invoice (may contain `/`)'),
    reference: field.reference([
      'first reference line printed on the invoice',
      'second reference line',
      'third reference line',
    ]),
    lines: field.lines(),
    profile: field.int('id of the layout profile used (0: none, on old records)'),
    discounttype: field.lower('`amount` or `percentage` (empty on old records)'),
    discount: field.num('discount amount, or percentage when `discounttype` is `percentage`'),
    paymentcondition: field.text('payment condition text (may hold placeholders such as `%PAYMENT_PERIOD%`)'),
    paymentperiod: field.int('term of payment in days'),
    totalintax: field.num('invoice total including tax'),
    clientnr: field.int('client number (0: none, on old records)'),
    contact: field.text("client's contact name, as on the invoice"),
    company: field.text("client's company name, as on the invoice"),
    address: field.text("client's address, as on the invoice"),
    zipcode: field.text("client's postal code, as on the invoice"),
    city: field.text("client's city, as on the invoice"),
    country: field.country("client's country id, as on the invoice"),
    totaldiscount: field.num('total amount of discount'),
    alreadypaid: field.num('amount already marked as paid'),
    alreadypaidmethod: field.text('payment method of the part already paid'),
  },
});
