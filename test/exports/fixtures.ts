/** Model values for the export tests: a Dutch seller and invoices of every VAT category. */
import type { InvoiceLine, SalesInvoice, Seller, VatCategory } from '../../src/exports/model.js';
import { toCents } from '../../src/exports/money.js';

export const SELLER: Seller = {
  name: 'Bakkerij & Zonen <Test> B.V.',
  vatNumber: 'NL001234567B01',
  country: 'NL',
  kvk: '12345678',
  address: { street: 'Weena 100', postalCode: '3012 CM', city: 'Rotterdam', country: 'NL' },
  iban: 'NL91ABNA0417164300',
  email: 'boekhouding@example.nl',
};

/** A Belgian seller (an account whose vat_country is BE): its enterprise number passes the check digits. */
export const BELGIAN_SELLER: Seller = {
  name: 'Bakkerij Peeters BV',
  vatNumber: 'BE0123456749',
  country: 'BE',
  address: { street: 'Meir 1', postalCode: '2000', city: 'Antwerpen', country: 'BE' },
  iban: 'BE68539007547034',
  email: 'boekhouding@example.be',
};

const CUSTOMERS = {
  NL: { country: 'NL', vatNumber: 'NL009876543B01' },
  BE: { country: 'BE', vatNumber: 'BE0123456749' },
  DE: { country: 'DE', vatNumber: 'DE123456789' },
  US: { country: 'US', vatNumber: 'NL005555555B01' },
} as const;

/** One invoice of lines at a rate and category; `scale` -1 makes a credit note. */
export function invoiceOf(
  id: number,
  category: VatCategory,
  rate: string,
  where: keyof typeof CUSTOMERS,
  options: { scale?: 1 | -1; discount?: string } = {},
): SalesInvoice {
  const scale = options.scale ?? 1;
  const lines: InvoiceLine[] = [
    {
      position: 1,
      description: 'Appels & peren "vers"',
      quantity: String(4 * scale),
      unit: 'stuk',
      unitPrice: '13',
      net: 52 * 100 * scale,
      rate,
      category,
    },
    {
      position: 2,
      description: 'Advies',
      quantity: '2.5',
      unit: 'uur',
      unitPrice: '80',
      net: 17000 * scale,
      rate,
      category,
    },
  ];
  const base = lines.reduce((sum, line) => sum + line.net, 0);
  const vat = Math.round((base * Number(rate)) / 100);
  const customer = CUSTOMERS[where];
  return {
    id,
    number: `F2026-${String(id).padStart(4, '0')}`,
    issueDate: '2026-07-15',
    dueDate: '2026-07-29',
    customer: {
      id: String(100 + id),
      name: `Klant ${where} ${id}`,
      address: { street: 'Hoofdstraat 1', postalCode: '1000 AA', city: 'Plaats', country: customer.country },
      vatNumber: customer.vatNumber,
      email: `klant${id}@example.com`,
    },
    lines,
    notes: [],
    taxes: [{ rate, base, vat, category }],
    total: base + vat - toCents(options.discount ?? '0'),
    currency: 'EUR',
    correctsInvoice: scale === -1 ? 'F2026-0001' : undefined,
  };
}
