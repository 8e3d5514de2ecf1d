/** Fields several documents share, described once. Spread them where they stand in the wire's order. */
import { field } from './define.js';

/** The client's details copied onto a document (spec 2.3, 2.7), read-only there. */
export const partyOn = (document: string) => ({
  clientnr: field.int('client number (0: none, on old records)', 'Client no.'),
  contact: field.text(`client's contact name, as on the ${document}`, 'Contact'),
  company: field.text(`client's company name, as on the ${document}`, 'Company'),
  address: field.text(`client's address, as on the ${document}`, 'Address'),
  zipcode: field.text(`client's postal code, as on the ${document}`, 'Postcode'),
  city: field.text(`client's city, as on the ${document}`, 'City'),
  country: field.country(`client's country id, as on the ${document}`, 'Country'),
});

/** A document's discount and payment condition. */
export const discountAndCondition = {
  discounttype: field.lower('`amount` or `percentage` (empty on old records)', 'Discount type'),
  discount: field.num('discount amount, or percentage when `discounttype` is `percentage`', 'Discount'),
  paymentcondition: field.text(
    'payment condition text (may hold placeholders such as `%PAYMENT_PERIOD%`)',
    'Payment condition',
  ),
};

export const profile = field.int('id of the layout profile used (0: none, on old records)', 'Layout profile');
