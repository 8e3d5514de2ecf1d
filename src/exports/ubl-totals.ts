/**
 * The VAT breakdown of an invoice as EN 16931 computes it (BR-CO-10 … BR-CO-16, BR-S-08 and kin):
 * per VAT category and rate, the lines' net amounts less any invoice discount, and the VAT on
 * that. The invoice's own total is what is due; what the breakdown cannot explain of it is an
 * invoice discount (or charge) spread over the rates by their share of the gross, and the cents
 * left are the payable rounding amount.
 */
import type { SalesInvoice, VatCategory } from './model.js';
import { type Cents, mulDivRound, toMilli, vatOf } from './money.js';

export interface Subtotal {
  category: VatCategory;
  rate: string;
  /** Sum of the lines' net amounts. */
  lines: Cents;
  /** Invoice-level allowance (positive) or charge (negative) on this category. */
  allowance: Cents;
  taxable: Cents;
  vat: Cents;
}

export interface Breakdown {
  subtotals: Subtotal[];
  lineTotal: Cents;
  allowances: Cents;
  charges: Cents;
  taxExclusive: Cents;
  vat: Cents;
  taxInclusive: Cents;
  rounding: Cents;
  payable: Cents;
}

const key = (category: VatCategory, rate: string) => `${category}:${toMilli(rate)}`;

/** Per category and rate, the lines' sum; `sign` -1 turns a credit note's negative amounts round. */
function groups(invoice: SalesInvoice, sign: 1 | -1): Subtotal[] {
  const byKey = new Map<string, Subtotal>();
  for (const line of invoice.lines) {
    const k = key(line.category, line.rate);
    const group = byKey.get(k) ?? {
      category: line.category,
      rate: line.rate,
      lines: 0,
      allowance: 0,
      taxable: 0,
      vat: 0,
    };
    group.lines += sign * line.net;
    byKey.set(k, group);
  }
  return [...byKey.values()];
}

/** Spreads `amount` over the groups in proportion to `weights` (cents exact: the last takes the rest). */
function spread(amount: Cents, weights: readonly Cents[]): Cents[] {
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0) return weights.map((_, i) => (i === 0 ? amount : 0));
  let left = amount;
  return weights.map((weight, i) => {
    if (i === weights.length - 1) return left;
    const share = mulDivRound(amount, weight, total);
    left -= share;
    return share;
  });
}

export function breakdown(invoice: SalesInvoice, sign: 1 | -1): Breakdown {
  const subtotals = groups(invoice, sign);
  const payable = sign * invoice.total;
  const gross = subtotals.map((group) => group.lines + vatOf(group.lines, toMilli(group.rate)));
  const difference = gross.reduce((a, b) => a + b, 0) - payable;
  // More than a cent per rate apart: an invoice discount (or charge), taken off each rate's net
  // amount in proportion to its gross (the VAT on the rest is computed again below).
  if (Math.abs(difference) > subtotals.length) {
    spread(difference, gross).forEach((part, i) => {
      const group = subtotals[i]!;
      group.allowance = mulDivRound(part, 100_000, 100_000 + toMilli(group.rate));
    });
  }
  for (const group of subtotals) {
    group.taxable = group.lines - group.allowance;
    group.vat = vatOf(group.taxable, toMilli(group.rate));
  }
  const sum = (pick: (group: Subtotal) => number) => subtotals.reduce((total, group) => total + pick(group), 0);
  const lineTotal = sum((group) => group.lines);
  const allowances = sum((group) => Math.max(group.allowance, 0));
  const charges = sum((group) => Math.max(-group.allowance, 0));
  const taxExclusive = lineTotal - allowances + charges;
  const vat = sum((group) => group.vat);
  const taxInclusive = taxExclusive + vat;
  return {
    subtotals,
    lineTotal,
    allowances,
    charges,
    taxExclusive,
    vat,
    taxInclusive,
    rounding: payable - taxInclusive,
    payable,
  };
}
