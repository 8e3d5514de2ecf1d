/**
 * The sales journal as bookkeeping: one transaction per sent invoice (debtors against revenue per
 * VAT code and VAT payable, the difference between the invoice's total and the service's VAT per
 * rate booked to discounts and rounding) and one per known payment (bank against debtors). Every
 * transaction balances to the cent by construction; amounts are signed cents, debit positive.
 */
import type { Payment, SalesInvoice, TaxLine, VatCategory } from './model.js';
import { type Cents, toMilli } from './money.js';

export interface LedgerAccount {
  id: string;
  name: string;
  /** B balance sheet, P profit and loss. */
  type: 'B' | 'P';
}

export const ACCOUNTS = {
  bank: { id: '1100', name: 'Bank', type: 'B' },
  debtors: { id: '1300', name: 'Debiteuren', type: 'B' },
  vatPayable: { id: '1500', name: 'Af te dragen btw', type: 'B' },
  discounts: { id: '8900', name: 'Kortingen en afrondingen op facturen', type: 'P' },
} as const satisfies Record<string, LedgerAccount>;

export interface VatCode {
  id: string;
  name: string;
  rate: string;
  category: VatCategory;
  /** The revenue account of the code (unless an invoice's category gives a ledger of its own). */
  revenue: LedgerAccount;
}

const CATEGORY_NAMES: Record<VatCategory, string> = {
  S: 'btw',
  Z: 'nultarief',
  E: 'vrijgesteld van btw',
  AE: 'btw verlegd',
  K: 'intracommunautaire levering',
  G: 'export buiten de EU',
};

/**
 * The VAT code of a rate and category: `S21`, `S9`, `Z0`; `AE`, `K`, `G`, `E` (always 0 %); `U21`,
 * `U0`, … for what the VAT return does not classify (vat_problems), kept apart from the rubrics.
 */
export function vatCodeOf(
  tax: { rate: string; category: VatCategory; unclassified?: boolean },
  revenueId = '8000',
): VatCode {
  const zeroOnly = tax.category !== 'S' && tax.category !== 'Z';
  const id = tax.unclassified
    ? `U${tax.rate}`
    : zeroOnly && toMilli(tax.rate) === 0
      ? tax.category
      : `${tax.category}${tax.rate}`;
  const name = tax.unclassified
    ? `Omzet niet ingedeeld ${tax.rate}% (zie vat_problems)`
    : `Omzet ${CATEGORY_NAMES[tax.category]}${zeroOnly ? '' : ` ${tax.rate}%`}`;
  return { id, name, rate: tax.rate, category: tax.category, revenue: { id: revenueId, name, type: 'P' } };
}

export interface TrLine {
  account: string;
  /** Signed cents: debit positive, credit negative. */
  amount: Cents;
  docRef: string;
  effDate: string;
  desc: string;
  custSupID?: string;
  invRef?: string;
  vat?: { id: string; rate: string; amount: Cents };
}

export interface Transaction {
  journal: 'VK' | 'BNK';
  nr: string;
  desc: string;
  date: string;
  lines: TrLine[];
}

/**
 * The VAT codes the invoices use, in a stable order, keyed by their id, each with a revenue account
 * 8010, 8020, … that no category's ledger already is.
 */
export function vatCodes(invoices: readonly SalesInvoice[]): Map<string, VatCode> {
  const seen = new Map<string, TaxLine>();
  const taken = new Set<string>(Object.values(ACCOUNTS).map((account) => account.id));
  for (const invoice of invoices) {
    for (const tax of invoice.taxes) seen.set(vatCodeOf(tax).id, tax);
    if (invoice.ledger) taken.add(invoice.ledger.id);
  }
  const sorted = [...seen.values()].sort((a, b) => vatCodeOf(a).id.localeCompare(vatCodeOf(b).id));
  let next = 8000;
  const codes = new Map<string, VatCode>();
  for (const tax of sorted) {
    do next += 10;
    while (taken.has(String(next)));
    codes.set(vatCodeOf(tax).id, vatCodeOf(tax, String(next)));
  }
  return codes;
}

export function invoiceTransaction(invoice: SalesInvoice, codes: Map<string, VatCode>): Transaction {
  const base = {
    docRef: invoice.number,
    effDate: invoice.issueDate,
    custSupID: invoice.customer.id,
    invRef: invoice.number,
  };
  const lines: TrLine[] = [
    { ...base, account: ACCOUNTS.debtors.id, amount: invoice.total, desc: invoice.customer.name },
  ];
  for (const tax of invoice.taxes) {
    const code = codes.get(vatCodeOf(tax).id)!;
    const revenue = invoice.ledger?.id ?? code.revenue.id;
    lines.push({
      ...base,
      account: revenue,
      amount: -tax.base,
      desc: code.name,
      vat: { id: code.id, rate: tax.rate, amount: -tax.vat },
    });
    if (tax.vat !== 0)
      lines.push({ ...base, account: ACCOUNTS.vatPayable.id, amount: -tax.vat, desc: `Btw ${code.name}` });
  }
  // What the service's VAT per rate does not explain (an invoice discount, rounding of lines).
  const rest = lines.reduce((sum, line) => sum + line.amount, 0);
  if (rest !== 0) lines.push({ ...base, account: ACCOUNTS.discounts.id, amount: -rest, desc: ACCOUNTS.discounts.name });
  return {
    journal: 'VK',
    nr: String(invoice.id),
    desc: `Factuur ${invoice.number} ${invoice.customer.name}`,
    date: invoice.issueDate,
    lines,
  };
}

const PAID_HOW: Record<Payment['source'], (payment: Payment) => string> = {
  registered: (payment) => payment.method,
  observed: () => 'gezien door de mirror',
  before_mirror: () => 'betaald voordat de mirror de factuur zag',
};

export function paymentTransaction(payment: Payment, index: number): Transaction {
  const base = {
    docRef: payment.invoiceNumber,
    effDate: payment.date,
    custSupID: payment.customerId,
    invRef: payment.invoiceNumber,
  };
  const desc = `Betaling factuur ${payment.invoiceNumber} (${PAID_HOW[payment.source](payment)})`;
  return {
    journal: 'BNK',
    nr: String(index + 1),
    desc,
    date: payment.date,
    lines: [
      { ...base, account: ACCOUNTS.bank.id, amount: payment.amount, desc },
      { ...base, account: ACCOUNTS.debtors.id, amount: -payment.amount, desc },
    ],
  };
}
