/**
 * XML text from plain objects, through fast-xml-parser's builder (which escapes text and
 * attributes): an element is a key, its content a string, an object (children in key order,
 * `@_name` attributes, `#text` text) or an array (the element repeated); an undefined value
 * leaves its element out.
 */
import { XMLBuilder } from 'fast-xml-parser';

export type XmlContent = string | XmlElement | XmlElement[] | string[];
export interface XmlElement {
  [name: string]: XmlContent | undefined;
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: true,
  indentBy: '  ',
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
});

// Characters XML 1.0 cannot hold, which the service's free text may still carry.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

/** Text fit for XML, cut to `max` characters (a schema's length), trimmed; undefined when empty (the element is left out). */
export function text(value: string | undefined, max = Number.POSITIVE_INFINITY): string | undefined {
  const clean = [...(value ?? '').replace(NOT_XML, '')].slice(0, max).join('').trim();
  return clean === '' ? undefined : clean;
}

/** The XML text of elements (no declaration). */
export function xmlOf(element: XmlElement): string {
  return builder.build(element);
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
