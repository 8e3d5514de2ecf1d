/** Repeating invoices (spec 2.4): invoices the service sends on a schedule; lines in `document_lines`. */
import { defineEntity, field } from './define.js';

export const repeatingInvoices = defineEntity({
  name: 'repeating_invoices',
  label: 'repeating invoice',
  endpoint: '/invoices_repeated',
  key: 'id',
  singleRead: true,
  documentType: 'repeating_invoice',
  fields: {
    id: field.key('repeating invoice id'),
    name: field.text('name of the repeating invoice'),
    reference: field.reference([
      'first reference line printed on the invoices',
      'second reference line',
      'third reference line',
    ]),
    lines: field.lines(),
    profile: field.int('id of the layout profile used (0: none, on old records)'),
    discounttype: field.lower('`amount` or `percentage` (empty on old records)'),
    discount: field.num('discount amount, or percentage when `discounttype` is `percentage`'),
    paymentcondition: field.text('payment condition text (may hold placeholders such as `%PAYMENT_PERIOD%`)'),
    paymentperiod: field.int('term of payment in days'),
    totalintax: field.num('total including tax of each invoice sent'),
    clientnr: field.int('client number (0: none, on old records)'),
    contact: field.text("client's contact name, as on the invoice"),
    company: field.text("client's company name, as on the invoice"),
    address: field.text("client's address, as on the invoice"),
    zipcode: field.text("client's postal code, as on the invoice"),
    city: field.text("client's city, as on the invoice"),
    country: field.country("client's country id, as on the invoice"),
    datesaved: field.date('date the repeating invoice was saved'),
    initialdate: field.date('date the first invoice is (or was) sent'),
    nextsenddate: field.date('date the next invoice is sent'),
    finalsenddate: field.date(
      'date the last invoice is sent (after it the repeating invoice is deleted); empty: no end',
    ),
    frequency: field.lower(
      '`weekly`, `biweekly`, `fourweekly`, `monthly`, `bimonthly`, `quarterly`, `halfyearly`, `yearly`',
    ),
    repeattype: field.lower('`auto`: the service sends each invoice; `manual`: someone sends it'),
    email: field.text('address the invoices are e-mailed to'),
  },
});
