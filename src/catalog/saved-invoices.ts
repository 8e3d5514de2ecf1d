/** Saved invoices (spec 2.3): invoices saved as drafts, not yet sent; lines in `document_lines`. */
import { defineEntity, field } from './define.js';
import { discountAndCondition, partyOn, profile } from './shared.js';

export const savedInvoices = defineEntity({
  name: 'saved_invoices',
  label: 'saved invoice',
  endpoint: '/invoices_saved',
  key: 'id',
  singleRead: true,
  documentType: 'saved_invoice',
  fields: {
    id: field.key('saved invoice id', 'Saved invoice ID'),
    name: field.text('unique name of the invoice (may contain `/`)', 'Name'),
    reference: field.reference('the invoice'),
    lines: field.lines(),
    profile,
    ...discountAndCondition,
    paymentperiod: field.int('term of payment in days', 'Payment term (days)'),
    totalintax: field.money('invoice total including tax', 'Total incl. tax'),
    ...partyOn('invoice'),
    totaldiscount: field.money('total amount of discount', 'Discount total'),
    alreadypaid: field.money('amount already marked as paid', 'Already paid'),
    alreadypaidmethod: field.text('payment method of the part already paid', 'Paid by'),
  },
});
