/** Derived fields kept consistent on every create and update: line totals, document totals, due dates. */
import { addDays } from './clock.js';
import type { SandboxEntity } from './fields.js';
import { documentTotals, linesToWire, money, readLines, round, type Rec } from './wire.js';

export function recompute(entity: SandboxEntity, rec: Rec): void {
  if (entity === 'clients' || entity === 'products') return;
  const lines = readLines(rec.lines, false);
  rec.lines = linesToWire(lines);
  const { totalintax, totaldiscount } = documentTotals(lines, rec.discounttype, rec.discount);
  rec.totalintax = money(totalintax);
  if (entity === 'saved_invoices') rec.totaldiscount = money(totaldiscount);
  if (entity === 'quotations') {
    const date = typeof rec.date === 'string' ? rec.date : '';
    rec.datedue = date ? addDays(date, Number(rec.quotationperiod) || 0) : '';
  }
}

/** "When empty, it is computed from price and taxes." */
export function priceInTax(price: unknown, taxes: unknown): string {
  return String(round((Number(price) || 0) * (1 + (Number(taxes) || 0) / 100), 2));
}
