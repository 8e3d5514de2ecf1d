/**
 * The writable fields of clients, products and quotations (spec section 2), as zod schemas, for
 * the payloads of create and update jobs. Strict: an unknown or read-only field is refused with
 * its name, so a typo never reaches the service as a silently ignored field. Values are taken in
 * the forms the service accepts (booleans as true/"true"/1, numbers as numbers or digit strings).
 */
import * as z from 'zod';
import {
  COLLECT_TYPES,
  DISCOUNT_TYPES,
  DOCUMENT_LANGUAGES,
  either,
  FREQUENCIES,
  PAYMENT_METHODS,
  REPEAT_TYPES,
  SEND_METHODS,
  TAX_TYPES,
} from '../catalog/index.js';

const text = (max?: number) => (max === undefined ? z.string() : z.string().max(max, `at most ${max} characters`));
const intLike = z.union([z.int(), z.string().regex(/^-?\d+$/, 'must be a whole number')], 'must be a whole number');
const numberLike = z.union(
  [z.number(), z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a number (with a dot as decimal separator)')],
  'must be a number',
);
const flag = z.union(
  [z.boolean(), z.literal(0), z.literal(1), z.enum(['true', 'false', '0', '1'])],
  'must be true or false',
);
const date = z.union([z.iso.date('must be a date YYYY-MM-DD'), z.literal('')], 'must be a date YYYY-MM-DD');
const country = z.union([z.int().positive(), z.string().min(1)], 'must be a country id or name');

/** Prices: at most 3 decimals (spec section 8). */
const price = numberLike.refine((value) => !/\.\d{4,}$/.test(String(value)), 'at most 3 decimals');

export const reference = z.strictObject({
  line1: text().optional(),
  line2: text().optional(),
  line3: text().optional(),
});

export const line = z.strictObject({
  amount: numberLike.optional(),
  amount_desc: text().optional(),
  description: text().optional(),
  tax_rate: numberLike.optional(),
  price: numberLike.optional(),
  discount_pct: numberLike.optional(),
  tax_country: flag.optional(),
});

export const clientFields = z.strictObject({
  clientnr: z.int().positive().optional(),
  contact: text(50).optional(),
  showcontact: flag.optional(),
  company: text(50).optional(),
  address: text(50).optional(),
  address_addon: text(50).optional(),
  zipcode: text(7).optional(),
  city: text(50).optional(),
  country: country.optional(),
  phone: text(13).optional(),
  mobile: text(13).optional(),
  email: text(255).optional(),
  addon: text(255).optional(),
  bankcode: text(32).optional(),
  biccode: text(32).optional(),
  taxnumber: text(18).optional(),
  tax_shifted: flag.optional(),
  sendmethod: z.enum(SEND_METHODS).optional(),
  paymentmethod: z.enum(PAYMENT_METHODS).optional(),
  top: intLike.optional(),
  stddiscount: numberLike.optional(),
  mailintro: text(128).optional(),
  reference: reference.optional(),
  notes: text().optional(),
  notes_on_invoice: flag.optional(),
  active: flag.optional(),
  default_doclang: z.enum(DOCUMENT_LANGUAGES).optional(),
  default_category: intLike.optional(),
  email_reminder: text(255).optional(),
  currency: text(3).optional(),
  mandate_id: text().optional(),
  mandate_date: date.optional(),
  collecttype: z.enum(COLLECT_TYPES).optional(),
  tax_type: z.enum(TAX_TYPES).optional(),
});

/** A client's number never changes: updates take every field but `clientnr`. */
export const clientChanges = clientFields.omit({ clientnr: true });

export const productFields = z.strictObject({
  code: text(20).optional(),
  name: text().optional(),
  price: price.optional(),
  taxes: intLike.optional(),
  priceintax: price.optional(),
  notes: text().optional(),
  stock: z.union([z.number(), z.literal(false)], 'must be a number, or false when stock is not used').optional(),
  stock_use: flag.optional(),
});

export const quotationFields = z.strictObject({
  action: z.enum(['save', 'send'], 'must be save or send'),
  sendmethod: z.enum(SEND_METHODS).optional(),
  clientnr: z.int().positive(),
  savename: text(40).optional(),
  overwrite_if_exist: flag.optional(),
  quotationreference: text(40).optional(),
  reference: reference.optional(),
  lines: z.array(line).optional(),
  profile: intLike.optional(),
  category: intLike.optional(),
  discounttype: z.enum(DISCOUNT_TYPES).optional(),
  discount: numberLike.optional(),
  paymentcondition: text().optional(),
  quotationperiod: intLike.optional(),
  showtotals: flag.optional(),
  date: date.optional(),
  notes: text().optional(),
  convert_prices_to_euro: flag.optional(),
});

/**
 * A new invoice (`POST /invoices`, service-notes.md): `send` sends it at once (with `sendmethod`),
 * `save` makes a saved invoice (with `savename`), `repeat` a repeating invoice (with its schedule).
 */
export const invoiceFields = z
  .strictObject({
    action: z.enum(['send', 'save', 'repeat'], 'must be send, save or repeat'),
    clientnr: z.int().positive(),
    sendmethod: z.enum(SEND_METHODS).optional(),
    savename: text(20).optional(),
    overwrite_if_exist: flag.optional(),
    reference: reference.optional(),
    lines: z.array(line).optional(),
    profile: intLike.optional(),
    discounttype: z.enum(DISCOUNT_TYPES).optional(),
    discount: numberLike.optional(),
    paymentcondition: text().optional(),
    paymentperiod: intLike.optional(),
    alreadypaid: z.union([numberLike, z.literal('full')], 'must be a number or "full"').optional(),
    alreadypaidmethod: text(32).optional(),
    initialdate: date.optional(),
    finalsenddate: date.optional(),
    frequency: z.enum(FREQUENCIES, `must be one of ${FREQUENCIES.join(', ')}`).optional(),
    repeattype: z.enum(REPEAT_TYPES, `must be ${either(REPEAT_TYPES)}`).optional(),
  })
  .superRefine((invoice, ctx) => {
    const need = (field: keyof typeof invoice, when: string) => {
      if (invoice[field] === undefined || invoice[field] === '')
        ctx.addIssue({ code: 'custom', path: [field], message: `is required when action is ${when}` });
    };
    if (invoice.action === 'save') need('savename', 'save');
    if (invoice.action === 'repeat') {
      need('initialdate', 'repeat');
      need('frequency', 'repeat');
    }
    for (const field of ['initialdate', 'finalsenddate', 'frequency', 'repeattype'] as const)
      if (invoice.action !== 'repeat' && invoice[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: 'is only for action repeat' });
  });

/** At least one field: an empty change would be a call that does nothing. */
export function nonEmpty<T extends z.ZodObject>(schema: T) {
  return schema.refine((value) => Object.keys(value).length > 0, 'name at least one field to change');
}
