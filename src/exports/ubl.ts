/**
 * Writes a sent invoice as a Peppol BIS Billing 3.0 UBL document: an Invoice, or a CreditNote
 * when its total is negative (amounts turned positive, as UBL wants them). VAT per category and
 * rate comes from ubl-totals.ts; the categories (S, Z, E, AE, K, G) are the invoice's own, given by
 * the classification. What Peppol requires and the mirror cannot give is a problem, not a guess.
 */
import { packageVersion } from '../version.js';
import type { InvoiceLine, SalesInvoice, Seller, VatCategory } from './model.js';
import { type Cents, formatCents, mulDivRound, toMilli, vatOf } from './money.js';
import { BELGIAN_REASONS, belgianCategoryCode, belgianReferences } from './ubl-be.js';
import { breakdown, type Breakdown } from './ubl-totals.js';
import { buyerParty, deliveryTo, endpointOfVat, sellerParty, withAttribute } from './ubl-parties.js';
import { text, XML_DECLARATION, type XmlElement, xmlOf } from './xml.js';

export interface UblOptions {
  /** The account is Belgian (accounts.vat_country BE): the Belgian rules (ubl-BE) apply too. */
  belgian?: boolean;
}

export const CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
export const PROFILE_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
const NAMESPACES = {
  Invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  CreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
} as const;

export type UblDocument = { kind: 'Invoice' | 'CreditNote'; xml: string } | { problem: string };

const EXEMPTIONS: Partial<Record<VatCategory, { code?: string; reason: string }>> = {
  E: { reason: 'Vrijgesteld van btw' },
  AE: { code: 'VATEX-EU-AE', reason: 'Btw verlegd' },
  K: { code: 'VATEX-EU-IC', reason: 'Intracommunautaire levering' },
  G: { code: 'VATEX-EU-G', reason: 'Export buiten de EU' },
};

const amount = (cents: Cents) => withAttribute(formatCents(cents), 'currencyID', 'EUR');

/** A VAT category element; `withReason` on the breakdown (BG-23), where an exemption needs its reason. */
function taxCategory(category: VatCategory, rate: string, withReason: boolean, options: UblOptions): XmlElement {
  const exemption = withReason ? EXEMPTIONS[category] : undefined;
  const belgian = options.belgian === true;
  return {
    'cbc:ID': category,
    'cbc:Name': belgian ? belgianCategoryCode(category, rate) : undefined,
    'cbc:Percent': rate,
    'cbc:TaxExemptionReasonCode': belgian ? undefined : exemption?.code,
    'cbc:TaxExemptionReason':
      exemption && belgian ? (BELGIAN_REASONS[category] ?? exemption.reason) : exemption?.reason,
    'cac:TaxScheme': { 'cbc:ID': 'VAT' },
  };
}

/** A decimal's digits and scale: `-1.25` → (-125n, 2). */
function decimal(value: string): { units: bigint; scale: number } {
  const [whole = '0', fraction = ''] = value.trim().replace(/^\+/, '').split('.');
  return { units: BigInt(`${whole}${fraction}`), scale: fraction.length };
}

/** quantity × price, to the cent. */
function grossOf(quantity: string, price: string): Cents {
  const q = decimal(quantity);
  const p = decimal(price);
  return mulDivRound(Number(q.units * p.units), 100, 10 ** (q.scale + p.scale));
}

const negate = (value: string) => (value.trim().startsWith('-') ? value.trim().slice(1) : `-${value.trim()}`);
const unitCode = (unit = '') => (/^(uur|uren)$/i.test(unit) ? 'HUR' : /^(dag|dagen)$/i.test(unit) ? 'DAY' : 'C62');

function allowanceCharge(discount: Cents, reason: string, category?: XmlElement): XmlElement {
  return {
    'cbc:ChargeIndicator': discount < 0 ? 'true' : 'false',
    'cbc:AllowanceChargeReasonCode': discount > 0 ? '95' : undefined,
    'cbc:AllowanceChargeReason': discount > 0 ? `Korting${reason}` : `Toeslag${reason}`,
    'cbc:Amount': amount(Math.abs(discount)),
    'cac:TaxCategory': category,
  };
}

function line(kind: 'Invoice' | 'CreditNote', item: InvoiceLine, sign: 1 | -1, options: UblOptions): XmlElement {
  // The price is never negative (BR-27): a negative one turns the quantity round instead.
  const priceNegative = item.unitPrice.trim().startsWith('-');
  const price = priceNegative ? negate(item.unitPrice) : item.unitPrice.trim();
  const quantity = (sign === -1) !== priceNegative ? negate(item.quantity) : item.quantity.trim();
  const net = sign * item.net;
  // The line's own discount (or surcharge): what lies between quantity × price and its amount.
  const discount = grossOf(quantity, price) - net;
  const lineVat = options.belgian ? { 'cbc:TaxAmount': amount(vatOf(net, toMilli(item.rate))) } : undefined;
  return {
    'cbc:ID': String(item.position),
    [kind === 'Invoice' ? 'cbc:InvoicedQuantity' : 'cbc:CreditedQuantity']: withAttribute(
      quantity,
      'unitCode',
      unitCode(item.unit),
    ),
    'cbc:LineExtensionAmount': amount(net),
    // The line's VAT, which the Belgian rules ask for (ubl-BE-14): before the allowance in a credit
    // note's line, after it in an invoice's (UBL 2.1's order).
    ...(kind === 'CreditNote' ? { 'cac:TaxTotal': lineVat } : {}),
    'cac:AllowanceCharge': discount !== 0 ? allowanceCharge(discount, '') : undefined,
    ...(kind === 'Invoice' ? { 'cac:TaxTotal': lineVat } : {}),
    'cac:Item': {
      'cbc:Name': text(item.description) ?? `Regel ${item.position}`,
      'cac:ClassifiedTaxCategory': taxCategory(item.category, item.rate, false, options),
    },
    'cac:Price': { 'cbc:PriceAmount': withAttribute(price, 'currencyID', 'EUR') },
  };
}

// An allowance's category needs no Belgian name (ubl-BE-10 is about the VAT breakdown; CEN warns of names here).
const documentAllowances = (totals: Breakdown): XmlElement[] =>
  totals.subtotals
    .filter((group) => group.allowance !== 0)
    .map((group) =>
      allowanceCharge(group.allowance, ' op de factuur', taxCategory(group.category, group.rate, false, {})),
    );

const taxTotal = (totals: Breakdown, options: UblOptions): XmlElement => ({
  'cbc:TaxAmount': amount(totals.vat),
  'cac:TaxSubtotal': totals.subtotals.map((group) => ({
    'cbc:TaxableAmount': amount(group.taxable),
    'cbc:TaxAmount': amount(group.vat),
    'cac:TaxCategory': taxCategory(group.category, group.rate, true, options),
  })),
});

const monetaryTotal = (totals: Breakdown): XmlElement => ({
  'cbc:LineExtensionAmount': amount(totals.lineTotal),
  'cbc:TaxExclusiveAmount': amount(totals.taxExclusive),
  'cbc:TaxInclusiveAmount': amount(totals.taxInclusive),
  'cbc:AllowanceTotalAmount': totals.allowances ? amount(totals.allowances) : undefined,
  'cbc:ChargeTotalAmount': totals.charges ? amount(totals.charges) : undefined,
  'cbc:PayableRoundingAmount': totals.rounding ? amount(totals.rounding) : undefined,
  'cbc:PayableAmount': amount(totals.payable),
});

/** What keeps every UBL document of the seller from being valid Peppol, or undefined. */
export function ublSellerProblem(seller: Seller): string | undefined {
  if (!seller.endpoint && !endpointOfVat(seller.vatNumber))
    return `the VAT number ${seller.vatNumber} gives no Peppol address: set "endpoint": {"scheme", "id"}`;
  if (seller.country !== 'NL') return undefined;
  const { street, city, postalCode } = seller.address;
  if (!(street && city && postalCode))
    return 'a Dutch seller\'s address must have a street, postal code and city (NL-R-002): set "address"';
  if (!seller.iban) return 'a Dutch seller must say how to pay (NL-R-007): set "iban"';
  return undefined;
}

/** What keeps the invoice from being a valid Peppol document, or undefined. */
function problemOf(
  invoice: SalesInvoice,
  seller: Seller,
  kind: 'Invoice' | 'CreditNote',
  totals: Breakdown,
  options: UblOptions,
) {
  const { customer } = invoice;
  const sellerProblem = ublSellerProblem(seller);
  if (sellerProblem) return sellerProblem;
  if (!endpointOfVat(customer.vatNumber))
    return `client ${customer.id} has no Peppol address (no VAT number of a country with a scheme here)`;
  if (!customer.address.country) return `the country of client ${customer.id} maps to no ISO code`;
  if (invoice.lines.length === 0) return 'the invoice has no lines with an amount';
  if (Math.abs(totals.rounding) > 100)
    return `its lines (${formatCents(totals.taxInclusive)} with VAT) do not add up to its total (${formatCents(totals.payable)})`;
  const unnamed = options.belgian && invoice.lines.find((item) => !belgianCategoryCode(item.category, item.rate));
  if (unnamed)
    return `the Belgian rules (ubl-BE-10) have no tax category code for VAT category ${unnamed.category} at ${unnamed.rate} %`;
  if (seller.country === 'NL') {
    if (kind === 'CreditNote' && !invoice.correctsInvoice)
      return 'a credit note of a Dutch seller must name the invoice it corrects (NL-R-001), which the mirror does not know';
    const a = customer.address;
    if (a.country === 'NL' && !(a.street && a.city && a.postalCode))
      return "the client's address lacks a street, postal code or city (NL-R-004)";
  }
  return undefined;
}

function paymentMeans(invoice: SalesInvoice, seller: Seller, kind: 'Invoice' | 'CreditNote') {
  if (kind !== 'Invoice' || !seller.iban) return undefined;
  return {
    'cbc:PaymentMeansCode': '58',
    'cbc:PaymentID': invoice.number,
    'cac:PayeeFinancialAccount': { 'cbc:ID': seller.iban.replaceAll(/\s/g, '') },
  };
}

export function buildUbl(invoice: SalesInvoice, seller: Seller, options: UblOptions = {}): UblDocument {
  const kind = invoice.total < 0 ? 'CreditNote' : 'Invoice';
  const sign = kind === 'CreditNote' ? -1 : 1;
  const totals = breakdown(invoice, sign);
  const problem = problemOf(invoice, seller, kind, totals, options);
  if (problem) return { problem };
  const document: XmlElement = {
    '@_xmlns': NAMESPACES[kind],
    '@_xmlns:cac': 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
    '@_xmlns:cbc': 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
    'cbc:CustomizationID': CUSTOMIZATION_ID,
    'cbc:ProfileID': PROFILE_ID,
    'cbc:ID': invoice.number,
    'cbc:IssueDate': invoice.issueDate,
    'cbc:DueDate': kind === 'Invoice' ? invoice.dueDate : undefined,
    [kind === 'Invoice' ? 'cbc:InvoiceTypeCode' : 'cbc:CreditNoteTypeCode']: kind === 'Invoice' ? '380' : '381',
    'cbc:Note': text(invoice.notes.join('\n')),
    'cbc:DocumentCurrencyCode': invoice.currency,
    'cbc:BuyerReference': text(invoice.buyerReference) ?? invoice.customer.id,
    'cac:BillingReference': invoice.correctsInvoice
      ? { 'cac:InvoiceDocumentReference': { 'cbc:ID': invoice.correctsInvoice } }
      : undefined,
    'cac:AdditionalDocumentReference': options.belgian
      ? belgianReferences(invoice.number, kind, `invoice-mirror ${packageVersion()}`)
      : undefined,
    'cac:AccountingSupplierParty': sellerParty(seller),
    'cac:AccountingCustomerParty': buyerParty(invoice.customer, endpointOfVat(invoice.customer.vatNumber)!),
    'cac:Delivery': invoice.lines.some((item) => item.category === 'K')
      ? deliveryTo(invoice.issueDate, invoice.customer.address)
      : undefined,
    'cac:PaymentMeans': paymentMeans(invoice, seller, kind),
    'cac:AllowanceCharge': documentAllowances(totals),
    'cac:TaxTotal': taxTotal(totals, options),
    'cac:LegalMonetaryTotal': monetaryTotal(totals),
    [`cac:${kind}Line`]: invoice.lines.map((item) => line(kind, item, sign, options)),
  };
  return { kind, xml: XML_DECLARATION + xmlOf({ [kind]: document }) };
}
