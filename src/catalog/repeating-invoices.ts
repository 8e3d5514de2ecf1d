/** Repeating invoices (spec 2.4): invoices the service sends on a schedule; lines in `document_lines`. */
import { defineEntity, field } from './define.js';
import { discountAndCondition, partyOn, profile } from './shared.js';

/** How often a repeating invoice is sent (service-notes.md; compared case-insensitively). */
export const FREQUENCIES = [
  'weekly',
  'biweekly',
  'fourweekly',
  'monthly',
  'bimonthly',
  'quarterly',
  'halfyearly',
  'yearly',
] as const;

export const repeatingInvoices = defineEntity({
  name: 'repeating_invoices',
  label: 'repeating invoice',
  endpoint: '/invoices_repeated',
  key: 'id',
  singleRead: true,
  documentType: 'repeating_invoice',
  fields: {
    id: field.key('repeating invoice id', 'Repeating invoice ID'),
    name: field.text('name of the repeating invoice', 'Name'),
    reference: field.reference('the invoices'),
    lines: field.lines(),
    profile,
    ...discountAndCondition,
    paymentperiod: field.int('term of payment in days', 'Payment term (days)'),
    totalintax: field.money('total including tax of each invoice sent', 'Total incl. tax'),
    ...partyOn('invoice'),
    datesaved: field.date('date the repeating invoice was saved', 'Saved on'),
    initialdate: field.date('date the first invoice is (or was) sent', 'First send'),
    nextsenddate: field.date('date the next invoice is sent', 'Next send'),
    finalsenddate: field.date(
      'date the last invoice is sent (after it the repeating invoice is deleted); empty: no end',
      'Last send',
    ),
    frequency: field.lower(FREQUENCIES.map((frequency) => `\`${frequency}\``).join(', '), 'Frequency'),
    repeattype: field.lower('`auto`: the service sends each invoice; `manual`: someone sends it', 'Sending'),
    email: field.text('address the invoices are e-mailed to', 'E-mail'),
  },
});
