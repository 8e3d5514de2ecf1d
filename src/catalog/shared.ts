/** Fields several documents share, described once. Spread them where they stand in the wire's order. */
import { field } from './define.js';

/** The client's details copied onto a document (spec 2.3, 2.7), read-only there. */
export const partyOn = (document: string) => ({
  clientnr: field.int('client number (0: none, on old records)'),
  contact: field.text(`client's contact name, as on the ${document}`),
  company: field.text(`client's company name, as on the ${document}`),
  address: field.text(`client's address, as on the ${document}`),
  zipcode: field.text(`client's postal code, as on the ${document}`),
  city: field.text(`client's city, as on the ${document}`),
  country: field.country(`client's country id, as on the ${document}`),
});

/** A document's discount and payment condition. */
export const discountAndCondition = {
  discounttype: field.lower('`amount` or `percentage` (empty on old records)'),
  discount: field.num('discount amount, or percentage when `discounttype` is `percentage`'),
  paymentcondition: field.text('payment condition text (may hold placeholders such as `%PAYMENT_PERIOD%`)'),
};

export const profile = field.int('id of the layout profile used (0: none, on old records)');
