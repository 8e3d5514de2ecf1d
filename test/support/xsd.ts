/**
 * XSD validation offline with libxml2 (xmllint compiled to WebAssembly, npm `xmllint-wasm`): the
 * XAF 4.0 schema and the UBL 2.1 Invoice and CreditNote schemas of vendor/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryPages, validateXML } from 'xmllint-wasm';

const VENDOR = join(import.meta.dirname, '..', '..', 'vendor');
export const XAF_XSD = join(VENDOR, 'xaf-4.0.3', 'XmlAuditfileFinancieel4.0.xsd');
const UBL = join(VENDOR, 'ubl-2.1', 'xsdrt');

export interface XmlDocument {
  name: string;
  xml: string;
}

/** libxml2's messages for the documents, empty when every one is valid. */
async function validate(documents: readonly XmlDocument[], schema: XmlDocument, preload: XmlDocument[] = []) {
  if (documents.length === 0) return [];
  const result = await validateXML({
    xml: documents.map(({ name, xml }) => ({ fileName: name, contents: xml })),
    schema: [{ fileName: schema.name, contents: schema.xml }],
    preload: preload.map(({ name, xml }) => ({ fileName: name, contents: xml })),
    // A year of 10,000 invoices is a file of tens of megabytes: room for it and its tree.
    maxMemoryPages: 2 * memoryPages.GiB,
  });
  return result.errors.map((error) => error.rawMessage);
}

export function validateXaf(xml: string): Promise<string[]> {
  return validate([{ name: 'auditfile.xaf', xml }], {
    name: 'XmlAuditfileFinancieel4.0.xsd',
    xml: readFileSync(XAF_XSD, 'utf8'),
  });
}

const ublCommon = (): XmlDocument[] =>
  readdirSync(join(UBL, 'common')).map((file) => ({
    name: `common/${file}`,
    xml: readFileSync(join(UBL, 'common', file), 'utf8'),
  }));

const mainSchema = (root: 'Invoice' | 'CreditNote'): XmlDocument => ({
  name: `maindoc/UBL-${root}-2.1.xsd`,
  xml: readFileSync(join(UBL, 'maindoc', `UBL-${root}-2.1.xsd`), 'utf8'),
});

/** UBL documents against the UBL 2.1 schema of their root element (Invoice or CreditNote), in one pass each. */
export async function validateUbl(documents: readonly XmlDocument[]): Promise<string[]> {
  const common = ublCommon();
  const isCreditNote = (doc: XmlDocument) => /<(\w+:)?CreditNote[\s>]/.test(doc.xml);
  return [
    ...(await validate(
      documents.filter((doc) => !isCreditNote(doc)),
      mainSchema('Invoice'),
      common,
    )),
    ...(await validate(documents.filter(isCreditNote), mainSchema('CreditNote'), common)),
  ];
}
