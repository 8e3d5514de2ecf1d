/**
 * UBL documents of model values of every VAT category the writer produces (S at two rates, Z, E,
 * AE, K, G), a credit note and an invoice with a discount on its total: each passes the UBL 2.1
 * XSD and both Peppol BIS 3.0 rule sets with no fatal finding, states the categories it was given,
 * and asks the total it was given.
 */
import { describe, expect, it } from 'vitest';
import { buildUbl } from '../../src/exports/ubl.js';
import { checkBelgian, checkPeppol, fatal } from '../support/schematron.js';
import { validateUbl } from '../support/xsd.js';
import { BELGIAN_SELLER, SELLER, invoiceOf } from './fixtures.js';

const CASES = [
  invoiceOf(1, 'S', '21', 'NL'),
  invoiceOf(2, 'S', '9', 'NL'),
  invoiceOf(3, 'Z', '0', 'NL'),
  invoiceOf(4, 'E', '0', 'NL'),
  invoiceOf(5, 'AE', '0', 'NL'),
  invoiceOf(6, 'K', '0', 'DE'),
  invoiceOf(7, 'G', '0', 'US'),
  invoiceOf(8, 'S', '21', 'NL', { scale: -1 }),
  invoiceOf(9, 'S', '21', 'BE', { discount: '10.00' }),
];

describe('export ubl of every category', { timeout: 120_000 }, () => {
  const documents = CASES.map((invoice) => ({ invoice, document: buildUbl(invoice, SELLER) }));

  it('passes the XSD and the rules with no fatal finding', async () => {
    const built = documents.map(({ invoice, document }) => {
      if ('problem' in document) throw new Error(`${invoice.number}: ${document.problem}`);
      return { name: `${invoice.number}.xml`, xml: document.xml };
    });
    expect(await validateUbl(built)).toEqual([]);
    for (const { name, xml } of built)
      expect({ name, fatal: fatal(await checkPeppol(xml)) }).toEqual({ name, fatal: [] });
  });

  it('states the given categories, and a credit note for a negative total, asking the given total', () => {
    for (const { invoice, document } of documents) {
      if ('problem' in document) throw new Error(document.problem);
      expect(document.kind).toBe(invoice.total < 0 ? 'CreditNote' : 'Invoice');
      const categories = [...document.xml.matchAll(/<cac:TaxCategory>\s*<cbc:ID>(\w+)</g)].map((m) => m[1]);
      expect(new Set(categories)).toEqual(new Set(invoice.lines.map((line) => line.category)));
      const payable = /<cbc:PayableAmount currencyID="EUR">([\d.]+)</.exec(document.xml)![1];
      expect(Math.round(Number(payable) * 100)).toBe(Math.abs(invoice.total));
    }
  });

  it('refuses a Dutch credit note that does not name the invoice it corrects (NL-R-001)', () => {
    const document = buildUbl({ ...invoiceOf(10, 'S', '21', 'NL', { scale: -1 }), correctsInvoice: undefined }, SELLER);
    expect(document).toEqual({ problem: expect.stringContaining('NL-R-001') });
  });
});

// A Belgian account's documents: Peppol's rules and the Belgian ones (ubl-BE) of UBL.BE.
const BELGIAN_CASES = [
  invoiceOf(21, 'S', '21', 'BE'),
  invoiceOf(22, 'S', '6', 'BE'),
  invoiceOf(23, 'S', '12', 'BE'),
  invoiceOf(24, 'Z', '0', 'BE'),
  invoiceOf(25, 'AE', '0', 'BE'),
  invoiceOf(26, 'K', '0', 'NL'),
  invoiceOf(27, 'G', '0', 'US'),
  { ...invoiceOf(28, 'S', '21', 'BE', { scale: -1 }), correctsInvoice: undefined },
  invoiceOf(29, 'S', '21', 'BE', { discount: '10.00' }),
];

describe('export ubl of a Belgian account', { timeout: 180_000 }, () => {
  const built = BELGIAN_CASES.map((invoice) => {
    const document = buildUbl(invoice, BELGIAN_SELLER, { belgian: true });
    if ('problem' in document) throw new Error(`${invoice.number}: ${document.problem}`);
    return { invoice, name: `${invoice.number}.xml`, xml: document.xml };
  });

  it('passes the XSD, the Peppol rules and the Belgian rules with no fatal finding, a credit note naming no invoice too', async () => {
    expect(await validateUbl(built)).toEqual([]);
    for (const { name, xml } of built) {
      const findings = await checkBelgian(xml);
      expect({ name, fatal: fatal(findings) }).toEqual({ name, fatal: [] });
      expect(findings.some((finding) => finding.rules === 'ubl-be')).toBe(false);
    }
  });

  it('names each VAT category by the Belgian code of its grid, and gives every line its VAT', () => {
    const codes: Record<string, string> = {
      S21: '03',
      S6: '01',
      S12: '02',
      Z0: '00',
      AE0: '45',
      K0: '46/GO',
      G0: '47/EX',
    };
    for (const { invoice, xml } of built) {
      const { category, rate } = invoice.lines[0]!;
      const named = new RegExp(
        `<cbc:ID>${category}</cbc:ID>\\s*<cbc:Name>${codes[`${category}${rate}`]}</cbc:Name>`,
        'g',
      );
      // Every line's ClassifiedTaxCategory and the subtotal's TaxCategory.
      expect(xml.match(named)?.length).toBe(invoice.lines.length + 1);
      expect(xml.match(/<cac:TaxTotal>\s*<cbc:TaxAmount/g)?.length).toBe(invoice.lines.length + 1);
      expect(xml).not.toContain('TaxExemptionReasonCode');
    }
  });

  it('is refused by the Belgian rules without what they ask, and not by Peppol’s', async () => {
    const xml = built[0]!.xml.replace(
      /<cac:AdditionalDocumentReference>\s*<cbc:ID>UBL.BE<\/cbc:ID>[\s\S]*?<\/cac:AdditionalDocumentReference>/,
      '',
    );
    expect(xml).not.toBe(built[0]!.xml);
    expect(fatal(await checkPeppol(xml))).toEqual([]);
    expect(fatal(await checkBelgian(xml)).map((finding) => finding.id)).toEqual(
      expect.arrayContaining(['ubl-BE-01', 'ubl-BE-03']),
    );
  });
});
