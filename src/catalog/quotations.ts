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
    id: field.key('quotation id'),
    sendmethod: field.lower('how it was sent: `mail`, `email`, `printcenter`; empty for a draft'),
    savename: field.text('name the quotation was saved under (your own reference)'),
    quotationreference: field.text('public reference printed on the quotation'),
    reference: field.reference([
      'first reference line printed on the quotation',
      'second reference line',
      'third reference line',
    ]),
    lines: field.lines(),
    profile,
    profile_name: field.text('name of the profile'),
    category: field.int('category id'),
    category_name: field.text('name of the category'),
    ...discountAndCondition,
    quotationperiod: field.int('days the quotation is valid'),
    showtotals: field.bool('print the totals including tax on the quotation'),
    date: field.date('date the quotation was sent or saved'),
    datedue: field.date('date plus the quotation period: last day it is valid'),
    notes: field.text('internal note'),
    totalintax: field.num('total including tax'),
    convert_prices_to_euro: field.bool('prices are converted to euro at the quotation date'),
    sent: field.bool('false: draft, not sent to the client; true: sent'),
    customstatus: field.lower('status set by hand: `progress`, `completed`, `billable`, `declined`; empty when none'),
    approved: field.approval("the client's approval `{name, date, ip, comments}`; empty when not approved"),
    ...partyOn('quotation'),
    phone: field.text("client's phone number"),
    mobile: field.text("client's mobile number"),
    email: field.text("client's e-mail address"),
    sign_url: field.text('where the client can sign the quotation'),
  },
});
