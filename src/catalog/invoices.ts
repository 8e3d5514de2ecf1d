/**
 * Sent invoices (`GET /invoices`; service-notes.md, "Sent invoices, payments, reminders, PDFs"):
 * changed after sending only by payments, reminders and the service itself. Lines in
 * `document_lines`. `id` and `invoicenr` are different things; single reads accept either.
 */
import { defineEntity, field } from './define.js';
import { invoiceOpenSql } from './invoice-open.js';
import { discountAndCondition, profile } from './shared.js';

export const invoices = defineEntity({
  name: 'invoices',
  label: 'invoice',
  endpoint: '/invoices',
  key: 'id',
  singleRead: true,
  documentType: 'invoice',
  incremental: {
    sinceParameter: 'since',
    sinceColumn: 'sent',
    changingFilter: { filter: 'open' },
    // Open and not written off: what payments and reminders still change. An invoice paid too
    // much, or written off, changes rarely; the reconciling pull catches it.
    changingInMirror: invoiceOpenSql('open', 'uncollectible'),
  },
  fields: {
    id: field.key('invoice id (not the invoice number)', 'Invoice ID'),
    invoicenr_full: field.text('invoice number as printed, with any prefix', 'Invoice no.'),
    invoicenr: field.text('invoice number (unique; may contain `/`)', 'Number'),
    reference: field.reference('the invoice'),
    lines: field.lines(),
    profile,
    category: field.int('category id', 'Category'),
    ...discountAndCondition,
    paymentperiod: field.int('term of payment in days', 'Payment term (days)'),
    collection: field.bool('paid by direct debit (collected from the client)', 'Direct debit'),
    tax: field.money('total tax', 'Tax'),
    totalintax: field.money('invoice total including tax', 'Total incl. tax'),
    clientnr: field.int('client number (0: none, on old records)', 'Client no.'),
    company: field.text("client's company name, as on the invoice", 'Company'),
    contact: field.text("client's contact name, as on the invoice", 'Contact'),
    address: field.text("client's address, as on the invoice", 'Address'),
    zipcode: field.text("client's postal code, as on the invoice", 'Postcode'),
    city: field.text("client's city, as on the invoice", 'City'),
    country: field.country("client's country id, as on the invoice", 'Country'),
    phone: field.text("client's phone number", 'Phone'),
    mobile: field.text("client's mobile number", 'Mobile'),
    email: field.text("client's e-mail address", 'E-mail'),
    taxnumber: field.text("client's VAT number", 'VAT number'),
    invoicenote: field.text('note printed on the invoice', 'Invoice note'),
    sent: field.date('date the invoice was sent; empty on some old records', 'Sent on'),
    // Only ever seen empty: kept as sent, so a date, a flag or a word all survive. [unknown]
    uncollectible: field.text(
      'set (as the service sends it: a date or a flag) when marked uncollectible; empty otherwise',
      'Uncollectible',
    ),
    lastreminder: field.date('date the last payment reminder was sent', 'Last reminder'),
    open: field.money('amount still to be paid (0 when paid; negative when paid too much)', 'Open'),
    paiddate: field.date('date the invoice was paid in full', 'Paid on'),
    taxes: field.json('tax per rate: `{"tax1": {"rate", "sum", "sum_of"}, …}` (`[]` when none)', 'Tax per rate'),
    tax_type: field.lower('`intax`: prices include tax; `extax`: prices exclude tax', 'Prices incl. tax'),
    language: field.text('language of the invoice, e.g. `nl`', 'Language'),
    tax_shifted: field.bool('tax shifted to the receiver (reverse charge)', 'Reverse charge'),
    payment_url: field.text('where the client can pay online', 'Payment link'),
    duedate: field.date('date payment is due (sent date plus the term of payment)', 'Due date'),
    history: field.json(
      'what happened to the invoice: `{"item1": {"date", "time", "description"}, …}` (`[]` when none)',
      'History',
    ),
  },
});
