/**
 * What a Belgian account's Peppol documents carry beyond Peppol BIS Billing 3.0, for the Belgian
 * rules (ubl-BE-01 … ubl-BE-15 of UBL.BE's GLOBALUBL.BE 1.31, vendor/ubl-be-1.31): two additional
 * document references (one with ID `UBL.BE`, one describing the document as a `CommercialInvoice`
 * or `CreditNote`), the Belgian tax category code (BTCC, the grid of the Belgian return) as the
 * name of every VAT category, the exemption reason as the Belgian list words it, and the VAT of
 * every line. Each is allowed by Peppol (the CEN rules warn of the names and the line VAT, never
 * fail on them); Belgian exemption reason codes (BETE-…) are not written, as EN 16931 takes only
 * VATEX codes there (BR-CL-22), and the reason text is enough for both (BR-AE-10 and kin).
 */
import type { VatCategory } from './model.js';
import { toMilli } from './money.js';
import type { XmlElement } from './xml.js';

/** The Belgian tax category code of a category and rate, or undefined when the list has none for it. */
export function belgianCategoryCode(category: VatCategory, rate: string): string | undefined {
  switch (category) {
    case 'S':
      return { 21000: '03', 12000: '02', 6000: '01' }[toMilli(rate)];
    case 'Z':
      return '00';
    case 'AE':
      return '45';
    // The invoices do not tell goods from services: intra-EU amounts are goods, as grid 46 of the return has them.
    case 'K':
      return '46/GO';
    case 'G':
      return '47/EX';
    case 'E':
      return undefined;
  }
}

/** The exemption reason of a category as the Belgian list (BVERCText) words it. */
export const BELGIAN_REASONS: Partial<Record<VatCategory, string>> = {
  AE: 'Reverse charge - Contractor',
  K: 'Intra-community supply - Goods',
  G: 'Export non E.U.',
};

/** The two document references ubl-BE-01 … 04 ask for. */
export function belgianReferences(number: string, kind: 'Invoice' | 'CreditNote', software: string): XmlElement[] {
  return [
    { 'cbc:ID': 'UBL.BE', 'cbc:DocumentDescription': software },
    { 'cbc:ID': number, 'cbc:DocumentDescription': kind === 'Invoice' ? 'CommercialInvoice' : 'CreditNote' },
  ];
}
