/**
 * The project's Schematron compiler (test/support/schematron/schematron-to-xslt.xsl) skips nothing:
 * every assert and report of the three rule sets (CEN's, Peppol's, and UBL.BE's Belgian pattern)
 * is in the compiled XSLT, in the template of its rule's context, in its pattern's mode and in its
 * rule's place, with its id, flag and test; so are the lets (of the schema, the patterns and the
 * rules), the XSLT functions and the namespaces; a phase compiles its active patterns only; what
 * the compiler does not support stops it with a line naming it. On a small schema made here it
 * keeps the standard's semantics (the first matching rule of a pattern, reports, value-of and name
 * in messages, phase lets), and a sample of the published rules fire on documents broken for them.
 *
 * No installable implementation fits instead: node-schematron (npm) evaluates XPath with
 * fontoxpath and runs no XSLT functions, which Peppol's rules define (u:mod97-0208, u:slack, …);
 * SchXslt and the ISO skeleton are on neither npm nor Debian.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import SaxonJS from 'saxon-js';
import { describe, expect, it } from 'vitest';
import { buildUbl } from '../../src/exports/ubl.js';
import {
  checkBelgian,
  checkPeppol,
  checkRules,
  compileSchematron,
  exportSef,
  RULE_SETS,
  type RuleSet,
} from '../support/schematron.js';
import { BELGIAN_SELLER, invoiceOf } from './fixtures.js';

const work = mkdtempSync(join(tmpdir(), 'schematron-compiler-'));
type Node = Record<string, unknown>;
const list = (value: unknown): Node[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]) as Node[];
const norm = (text: unknown) =>
  String(text ?? '')
    .replaceAll(/\s+/g, ' ')
    .trim();

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  trimValues: false,
});
/** The schema element of a Schematron file (elements without prefix) or the stylesheet of an XSLT (xsl: prefix). */
const parse = (file: string) => parser.parse(readFileSync(file, 'utf8')) as Node;

async function compiled(rules: RuleSet, extra: string[] = []): Promise<Node> {
  const out = join(work, `${rules}-${extra.join('-').replaceAll(/\W/g, '_')}.xsl`);
  await compileSchematron(RULE_SETS[rules].file, out, [...RULE_SETS[rules].params, ...extra]);
  return parse(out)['xsl:stylesheet'] as Node;
}

/** What each assert and report of the active patterns should become: mode, place, context, kind, id, flag, test. */
function expectedChecks(schema: Node, active: (pattern: Node) => boolean): string[] {
  const out: string[] = [];
  list(schema.pattern).forEach((pattern, p) => {
    if (!active(pattern)) return;
    list(pattern.rule).forEach((rule, r) => {
      for (const kind of ['assert', 'report'])
        for (const check of list(rule[kind]))
          out.push(
            JSON.stringify([
              `pattern-${p + 1}`,
              1000 - (r + 1),
              norm(rule['@context']),
              kind,
              check['@id'],
              check['@flag'] ?? 'error',
              norm(check['@test']),
            ]),
          );
    });
  });
  return out.sort();
}

/** What the compiled XSLT holds: each xsl:if of a pattern's template, as the same tuple. */
function compiledChecks(stylesheet: Node): string[] {
  const out: string[] = [];
  for (const template of list(stylesheet['xsl:template'])) {
    const mode = template['@mode'];
    if (typeof mode !== 'string' || template['@priority'] === '-1000') continue;
    for (const check of list(template['xsl:if'])) {
      const [flag, id] = list(check['xsl:text']).map((text) => (typeof text === 'object' ? text['#text'] : text));
      const test = norm(check['@test']);
      const negated = test.startsWith('not(') && test.endsWith(')');
      out.push(
        JSON.stringify([
          mode,
          Number(template['@priority']),
          norm(template['@match']),
          negated ? 'assert' : 'report',
          id,
          flag,
          negated ? test.slice(4, -1).trim() : test,
        ]),
      );
    }
  }
  return out.sort();
}

const lets = (node: Node) => list(node.let).map((l) => [l['@name'], norm(l['@value'])]);
const variables = (node: Node) => list(node['xsl:variable']).map((v) => [v['@name'], norm(v['@select'])]);

describe('the Schematron compiler', { timeout: 240_000 }, () => {
  it.each([
    ['cen', () => true],
    ['peppol', () => true],
    ['ubl-be', (pattern: Node) => pattern['@id'] === 'ubl-model-BE'],
  ] as const)('compiles every assert and report, let, function and namespace of %s', async (rules, active) => {
    const schema = parse(RULE_SETS[rules].file).schema as Node;
    const stylesheet = await compiled(rules);
    const expected = expectedChecks(schema, active);
    expect(expected.length).toBeGreaterThan(10);
    expect(compiledChecks(stylesheet)).toEqual(expected);
    // Lets of the schema and the active patterns are global variables; a rule's are its template's.
    const patterns = list(schema.pattern).filter(active);
    const sorted = (pairs: unknown[][]) => pairs.map((pair) => JSON.stringify(pair)).sort();
    expect(sorted(variables(stylesheet))).toEqual(sorted([...lets(schema), ...patterns.flatMap(lets)]));
    const ruleLets = patterns.flatMap((pattern) => list(pattern.rule).flatMap(lets));
    const templateVariables = list(stylesheet['xsl:template']).flatMap(variables);
    expect(sorted(templateVariables)).toEqual(sorted(ruleLets));
    // Functions, as written, and every namespace prefix.
    const functions = (node: Node) => list(node.function ?? node['xsl:function']).map((f) => f['@name']);
    expect(functions(stylesheet)).toEqual(functions(schema));
    for (const ns of list(schema.ns)) expect(stylesheet[`@xmlns:${ns['@prefix']}`]).toBe(ns['@uri']);
  });

  it('compiles only the active patterns of a phase', async () => {
    const schema = parse(RULE_SETS.cen.file).schema as Node;
    expect(list(schema.phase).map((phase) => phase['@id'])).toEqual(['EN16931model_phase', 'codelist_phase']);
    for (const phase of list(schema.phase)) {
      const names = list(phase.active).map((a) => a['@pattern']);
      const stylesheet = await compiled('cen', [`phase=${phase['@id']}`]);
      expect(compiledChecks(stylesheet)).toEqual(expectedChecks(schema, (pattern) => names.includes(pattern['@id'])));
    }
  });

  it('keeps the standard’s semantics on a schema made for it', async () => {
    const file = join(work, 'made.sch');
    writeFileSync(
      file,
      `<schema xmlns="http://purl.oclc.org/dsdl/schematron" queryBinding="xslt2" defaultPhase="both">
        <ns prefix="x" uri="urn:x"/>
        <let name="limit" value="3"/>
        <phase id="both"><let name="word" value="'big'"/><active pattern="first"/><active pattern="second"/></phase>
        <phase id="second-only"><active pattern="second"/></phase>
        <pattern id="first">
          <rule context="x:item[@special]"><assert id="special" test="false()">special <value-of select="@n"/></assert></rule>
          <rule context="x:item"><let name="n" value="number(@n)"/>
            <report id="big" test="$n &gt; $limit"><name/> <value-of select="$n"/> is <value-of select="$word"/></report></rule>
        </pattern>
        <pattern id="second"><rule context="x:item"><assert id="seen-twice" flag="warning" test="false()">second pattern</assert></rule></pattern>
      </schema>`,
    );
    const document = '<list xmlns="urn:x"><item n="1"/><item n="5"/><item n="9" special="yes"/></list>';
    const run = async (params: string[]) => {
      const out = join(work, `made-${params.join('').replaceAll(/\W/g, '_')}`);
      await compileSchematron(file, `${out}.xsl`, params);
      await exportSef(`${out}.xsl`, `${out}.sef.json`);
      const result = await SaxonJS.transform(
        { stylesheetFileName: `${out}.sef.json`, sourceText: document, destination: 'serialized' },
        'async',
      );
      return String(result.principalResult ?? '')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t'))
        .map(([flag, id, , message]) => [flag, id, message]);
    };
    // The first matching rule of a pattern only (the special item is not reported as big); every pattern on its own.
    expect(await run([])).toEqual([
      ['error', 'big', 'item 5 is big'],
      ['error', 'special', 'special 9'],
      ['warning', 'seen-twice', 'second pattern'],
      ['warning', 'seen-twice', 'second pattern'],
      ['warning', 'seen-twice', 'second pattern'],
    ]);
    expect((await run(['phase=second-only'])).map(([, id]) => id)).toEqual(['seen-twice', 'seen-twice', 'seen-twice']);
    expect((await run(['patterns=first'])).map(([, id]) => id)).toEqual(['big', 'special']);
  });

  it.each([
    [
      'an abstract pattern',
      '<pattern abstract="true" id="a"><rule context="*"><assert test="true()"/></rule></pattern>',
      /pattern/,
    ],
    ['an include', '<include href="other.sch"/>', /include/],
    ['diagnostics', '<diagnostics><diagnostic id="d">x</diagnostic></diagnostics>', /diagnostics/],
    ['a let without a value', '<let name="v"/>', /let/],
  ])('stops with a line naming %s, which it does not support', async (_what, element, named) => {
    const file = join(work, `unsupported-${_what.replaceAll(' ', '-')}.sch`);
    writeFileSync(
      file,
      `<schema xmlns="http://purl.oclc.org/dsdl/schematron" queryBinding="xslt2">${element}</schema>`,
    );
    const failure = await compileSchematron(file, join(work, 'never.xsl')).then(
      () => 'compiled',
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/schematron-to-xslt: not supported here/);
    expect(failure).toMatch(named);
  });
});

const VENDOR = join(import.meta.dirname, '..', '..', 'vendor');
const base = readFileSync(join(VENDOR, 'peppol-bis-invoice-3', 'rules', 'examples', 'base-example.xml'), 'utf8');
const belgian = (() => {
  const document = buildUbl(invoiceOf(41, 'S', '21', 'BE'), BELGIAN_SELLER, { belgian: true });
  if ('problem' in document) throw new Error(document.problem);
  return document.xml;
})();

/** Rules of each set, with a document broken for each: a pattern of each file, lets, functions, a warning. */
const BREAKAGES: [RuleSet, string, string, string, (xml: string) => string][] = [
  [
    'cen',
    'BR-CO-10',
    'fatal',
    base,
    (x) => x.replace(/(<cac:LegalMonetaryTotal>\s*<cbc:LineExtensionAmount currencyID="EUR">)[\d.]+/, '$1999.99'),
  ],
  [
    'cen',
    'BR-CL-14',
    'fatal',
    base,
    (x) =>
      x.replace(
        '<cbc:IdentificationCode>SE</cbc:IdentificationCode>',
        '<cbc:IdentificationCode>XQ</cbc:IdentificationCode>',
      ),
  ],
  [
    'cen',
    'UBL-SR-43',
    'fatal',
    base,
    (x) =>
      x.replace(
        '<cbc:BuyerReference>0150abc</cbc:BuyerReference>',
        // A scheme identifier on a supporting document that is no invoiced object.
        '<cbc:BuyerReference>0150abc</cbc:BuyerReference><cac:AdditionalDocumentReference><cbc:ID schemeID="ABT">a</cbc:ID></cac:AdditionalDocumentReference>',
      ),
  ],
  [
    'peppol',
    'PEPPOL-EN16931-R003',
    'fatal',
    base,
    (x) => x.replace('<cbc:BuyerReference>0150abc</cbc:BuyerReference>', ''),
  ],
  [
    'peppol',
    'PEPPOL-COMMON-R043',
    'fatal',
    base,
    (x) =>
      x.replace(
        '<cbc:EndpointID schemeID="0002">FR23342</cbc:EndpointID>',
        '<cbc:EndpointID schemeID="0208">0123456700</cbc:EndpointID>',
      ),
  ],
  [
    'peppol',
    'NL-R-002',
    'fatal',
    base,
    (x) =>
      x
        .replace('<cbc:CompanyID>GB1232434</cbc:CompanyID>', '<cbc:CompanyID>NL001234567B01</cbc:CompanyID>')
        .replace(
          '<cbc:IdentificationCode>GB</cbc:IdentificationCode>',
          '<cbc:IdentificationCode>NL</cbc:IdentificationCode>',
        )
        .replace('<cbc:StreetName>Main street 1</cbc:StreetName>', ''),
  ],
  [
    'ubl-be',
    'ubl-BE-07',
    'fatal',
    belgian,
    (x) =>
      x.replace(
        '<cac:TaxTotal>',
        '<cac:PaymentTerms><cbc:SettlementDiscountPercent>150</cbc:SettlementDiscountPercent><cbc:Amount currencyID="EUR">1.00</cbc:Amount></cac:PaymentTerms><cac:TaxTotal>',
      ),
  ],
  ['ubl-be', 'ubl-BE-10', 'fatal', belgian, (x) => x.replace(/(<cac:TaxSubtotal>[\s\S]*?<cbc:Name>)03</, '$199<')],
  [
    'ubl-be',
    'ubl-BE-14',
    'fatal',
    belgian,
    (x) => x.replace(/(<cac:InvoiceLine>[\s\S]*?)<cac:TaxTotal>[\s\S]*?<\/cac:TaxTotal>/, '$1'),
  ],
  ['cen', 'UBL-CR-561', 'warning', belgian, (x) => x],
];

describe('the compiled rules fire on documents broken for them', { timeout: 240_000 }, () => {
  it('lets the unbroken documents pass', async () => {
    expect((await checkPeppol(base)).filter((f) => f.flag === 'fatal')).toEqual([]);
    expect((await checkBelgian(belgian)).filter((f) => f.flag === 'fatal')).toEqual([]);
  });

  it.each(BREAKAGES)('%s finds %s (%s)', async (rules, id, flag, document, breakIt) => {
    const broken = breakIt(document);
    if (flag === 'fatal') expect(broken).not.toBe(document);
    const findings = await checkRules(broken, [rules]);
    expect(findings.filter((finding) => finding.id === id).map((finding) => finding.flag)[0]).toBe(flag);
  });
});
