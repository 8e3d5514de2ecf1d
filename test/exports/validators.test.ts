/**
 * The offline validators prove themselves on the published examples: the XAF 4.0.3 package's test
 * file and OpenPEPPOL's example invoices pass; copies broken on purpose fail with the rules and
 * schema messages that name what was broken.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPeppol, fatal } from '../support/schematron.js';
import { validateUbl, validateXaf } from '../support/xsd.js';

const VENDOR = join(import.meta.dirname, '..', '..', 'vendor');
const EXAMPLES = join(VENDOR, 'peppol-bis-invoice-3', 'rules', 'examples');
const examples = readdirSync(EXAMPLES).map((name) => ({ name, xml: readFileSync(join(EXAMPLES, name), 'utf8') }));
const baseExample = examples.find((example) => example.name === 'base-example.xml')!.xml;

describe('XAF 4.0 XSD validation', () => {
  const testFile = readFileSync(join(VENDOR, 'xaf-4.0.3', 'XAF_4_0_Test_100425.xaf'), 'utf8');

  it("passes the 4.0.3 package's own test file", async () => {
    expect(await validateXaf(testFile)).toEqual([]);
  });

  it('names the element of a broken copy', async () => {
    const errors = await validateXaf(testFile.replace('<amntTp>C</amntTp>', '<amntTp>X</amntTp>'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/amntTp.*'X' is not an element of the set \{'C', 'D'\}/);
  });
});

describe('Peppol BIS Billing 3.0 (UBL 2.1 XSD and both Schematron rule sets)', { timeout: 240_000 }, () => {
  it('passes every example invoice of the rules repository with no fatal finding', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(9);
    expect(await validateUbl(examples)).toEqual([]);
    for (const { name, xml } of examples)
      expect({ name, fatal: fatal(await checkPeppol(xml)) }).toEqual({ name, fatal: [] });
  });

  const breakages: [string, string, (xml: string) => string][] = [
    [
      'an amount due that does not follow from the totals',
      'BR-CO-16',
      (xml) => xml.replace(/(<cbc:PayableAmount currencyID="EUR">)[\d.]+/, '$11.00'),
    ],
    [
      'a specification identifier that is not Peppol BIS 3.0',
      'PEPPOL-EN16931-R004',
      (xml) => xml.replace(/(<cbc:CustomizationID>)[^<]+/, '$1urn:example:not-peppol'),
    ],
    [
      'a currency ISO 4217 does not have',
      'BR-CL-04',
      (xml) => xml.replace('<cbc:DocumentCurrencyCode>EUR<', '<cbc:DocumentCurrencyCode>EUX<'),
    ],
    ['no invoice number', 'BR-02', (xml) => xml.replace(/<cbc:ID>Snippet1<\/cbc:ID>/, '')],
  ];

  it.each(breakages)('finds %s: %s', async (_what, rule, breakIt) => {
    const broken = breakIt(baseExample);
    expect(broken).not.toBe(baseExample);
    expect(fatal(await checkPeppol(broken)).map((finding) => finding.id)).toContain(rule);
  });

  it('finds elements out of the UBL 2.1 order, which the rules do not check', async () => {
    const swapped = baseExample.replace(
      /(<cbc:IssueDate>[^<]+<\/cbc:IssueDate>)(\s*)(<cbc:DueDate>[^<]+<\/cbc:DueDate>)/,
      '$3$2$1',
    );
    expect(swapped).not.toBe(baseExample);
    const errors = await validateUbl([{ name: 'swapped.xml', xml: swapped }]);
    expect(errors.join('\n')).toMatch(/DueDate.*not expected/);
    expect(fatal(await checkPeppol(swapped))).toEqual([]);
  });
});
