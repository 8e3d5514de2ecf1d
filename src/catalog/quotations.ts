/** Quotations (spec 2.7), sent or draft; their lines go to `document_lines`. */
import { defineEntity, field } from './define.js';
import { discountAndCondition, partyOn, profile } from './shared.js';

export const quotations = defineEntity({
  name: 'quotations',
  label: 'quotation',
  endpoint: '/quotations',
  key: 'id',
  singleRead: true,
  documentType: 'quotation',
  fields: {
    id: field.key('quotation id', 'Quotation ID'),
    sendmethod: field.lower('how it was sent: `mail`, `email`, `printcenter`; empty for a draft', 'Send method'),
    savename: field.text('name the quotation was saved under (your own reference)', 'Saved as'),
    quotationreference: field.text('public reference printed on the quotation', 'Reference'),
    reference: field.reference('the quotation'),
    lines: field.lines(),
    profile,
    profile_name: field.text('name of the profile', 'Profile'),
    category: field.int('category id', 'Category'),
    category_name: field.text('name of the category', 'Category name'),
    ...discountAndCondition,
    quotationperiod: field.int('days the quotation is valid', 'Valid for (days)'),
    showtotals: field.bool('print the totals including tax on the quotation', 'Shows totals'),
    date: field.date('date the quotation was sent or saved', 'Date'),
    datedue: field.date('date plus the quotation period: last day it is valid', 'Valid until'),
    notes: field.text('internal note', 'Internal note'),
    totalintax: field.money('total including tax', 'Total incl. tax'),
    convert_prices_to_euro: field.bool('prices are converted to euro at the quotation date', 'Prices in euro'),
    sent: field.bool('false: draft, not sent to the client; true: sent', 'Sent'),
    customstatus: field.lower(
      'status set by hand: `progress`, `completed`, `billable`, `declined`; empty when none',
      'Status',
    ),
    approved: field.approval("the client's approval `{name, date, ip, comments}`; empty when not approved", 'Approval'),
    ...partyOn('quotation'),
    phone: field.text("client's phone number", 'Phone'),
    mobile: field.text("client's mobile number", 'Mobile'),
    email: field.text("client's e-mail address", 'E-mail'),
    sign_url: field.text('where the client can sign the quotation', 'Signing link'),
  },
});
