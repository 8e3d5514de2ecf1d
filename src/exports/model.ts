/**
 * What the exports are made of, as plain values: the seller (the administration), its customers,
 * its sent invoices with lines and VAT per rate, and the payments known. The XAF and UBL writers
 * take only these; src/exports/mirror.ts makes them from the mirror's tables.
 */
import type { Cents } from './money.js';

/**
 * The VAT category of a tax rate on an invoice (UNCL 5305 as EN 16931 uses it): S standard or
 * reduced rate, Z zero rate, E exempt, AE reverse charge (tax shifted to the buyer), K intra-EU
 * supply, G export outside the EU.
 */
export const VAT_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G'] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

export interface Address {
  street?: string;
  postalCode?: string;
  city?: string;
  /** ISO 3166-1 alpha-2. */
  country?: string;
}

/** The administration whose books are exported: what the service does not hold about it. */
export interface Seller {
  name: string;
  /** VAT number with its country prefix, e.g. `NL001234567B01`. */
  vatNumber: string;
  /** ISO 3166-1 alpha-2 of the country of VAT registration. */
  country: string;
  /** Chamber of commerce number (KvK), when there is one. */
  kvk?: string;
  address: Address;
  /** Account number customers pay to. */
  iban?: string;
  email?: string;
  /** Peppol electronic address (`scheme` an EAS code such as 0106 or 9944); derived from the VAT number when absent. */
  endpoint?: { scheme: string; id: string };
}

export interface Customer {
  /** The client number. */
  id: string;
  name: string;
  address: Address;
  vatNumber?: string;
  email?: string;
}

export interface InvoiceLine {
  position: number;
  description: string;
  /** Quantity and unit price as decimal text, as the service computed the line from them. */
  quantity: string;
  unit?: string;
  unitPrice: string;
  /** The line's amount without VAT, after its own discount. */
  net: Cents;
  /** Percentage as decimal text, e.g. `21`, `9`, `0`. */
  rate: string;
  category: VatCategory;
}

/** The service's own VAT of one rate on an invoice (its `taxes`), with the category of that rate. */
export interface TaxLine {
  rate: string;
  base: Cents;
  vat: Cents;
  /** The category the VAT return gives it; for an unclassified one, S when VAT was charged, else Z. */
  category: VatCategory;
  /** In no rubric of the VAT return (vat_problems lists it): booked under a VAT code of its own. */
  unclassified?: boolean;
}

export interface SalesInvoice {
  /** The service's invoice id. */
  id: number;
  /** The invoice number as printed. */
  number: string;
  issueDate: string;
  dueDate?: string;
  customer: Customer;
  lines: InvoiceLine[];
  /** Text lines of the invoice (no amount). */
  notes: string[];
  taxes: TaxLine[];
  /** The invoice total including VAT; negative for a credit note. */
  total: Cents;
  currency: string;
  /** The reference the customer gave (e.g. an order number), when any. */
  buyerReference?: string;
  /** The invoice a credit note corrects, when known. */
  correctsInvoice?: string;
  /** The ledger account of the invoice's category (revenue is booked there), when the service gives one. */
  ledger?: { id: string; name: string };
}

export interface Payment {
  invoiceId: number;
  invoiceNumber: string;
  customerId: string;
  date: string;
  amount: Cents;
  /** How it was paid (bank, cash, …); `unknown` when the mirror did not register it itself. */
  method: string;
  /**
   * registered (by the mirror's register_payment job), observed (a drop of the open amount between
   * two reads), before_mirror (paid before the mirror first saw the invoice).
   */
  source: 'registered' | 'observed' | 'before_mirror';
}
