/**
 * A list split with the fingerprints of the texts a consumer holds: an element that is, byte for
 * byte, the text held for the key its first field names is taken without being scanned. The
 * bounds and keys are always the ones a plain scan finds; only such elements get a fingerprint.
 */
import { describe, expect, it } from 'vitest';
import { textFingerprint } from '../../src/api/fingerprint.js';
import { splitJsonArray } from '../../src/api/json-split.js';

const KEY = { name: 'id', max: 2 ** 31 - 1 };
const page = (...elements: string[]) => Buffer.from(`[ ${elements.join(' ,\n')} ]`, 'utf8');
/** Holds each text under its key (what a consumer stores: the key a text shows, its fingerprint). */
const holding = (texts: Record<number, string>) => (key: number) =>
  texts[key] === undefined ? undefined : textFingerprint(texts[key]!);

/** The split with `held`, after checking its bounds and keys are the plain scan's. */
function splitHeld(bytes: Buffer, held: (key: number) => string | undefined) {
  const plain = splitJsonArray(bytes, KEY);
  const split = splitJsonArray(bytes, KEY, held);
  expect(split?.bounds).toEqual(plain?.bounds);
  expect(split?.keys).toEqual(plain?.keys);
  return split!;
}
/** Each element's fingerprint, undefined where the split scanned it. */
const fingerprintsOf = (split: { keys: unknown[]; fingerprints: (string | undefined)[] }) =>
  split.keys.map((_, i) => split.fingerprints[i]);

describe('the split takes the texts held as they are', () => {
  const one = '{"id":"1","name":"Café – “één”","lines":{"line1":{"id":9}}}';
  const two = '{"id":2,"note":"} ] , {\\"id\\":3}"}';
  const three = '{"id":"3","name":"x"}';

  it('takes an element held byte for byte, with its fingerprint; scans the others', () => {
    const split = splitHeld(page(one, two, three), holding({ 1: one, 2: two }));
    expect(fingerprintsOf(split)).toEqual([textFingerprint(one), textFingerprint(two), undefined]);
  });

  it('scans an element that changed, even by one byte of the same length', () => {
    const changed = one.replace('Café', 'Cafe');
    expect(Buffer.byteLength(changed)).not.toBe(Buffer.byteLength(one));
    const sameLength = one.replace('"x"', '"y"').replace('name', 'neam');
    const split = splitHeld(page(changed, sameLength, three), holding({ 1: one, 3: three.replace('x', 'z') }));
    expect(fingerprintsOf(split)).toEqual([undefined, undefined, undefined]);
  });

  it('scans where the held text cannot be this element: its key not first, a longer text, an older hash, an odd one', () => {
    const keyLast = '{"name":"x","id":"4"}';
    const duplicateKey = '{"id":5,"n":1,"id":6}'; // its key is 6 (the last, as JSON.parse has it), held under 6
    const split = splitHeld(page(keyLast, duplicateKey, one, three), (key) =>
      key === 4
        ? textFingerprint(keyLast)
        : key === 6
          ? textFingerprint(duplicateKey)
          : key === 1
            ? `${Buffer.byteLength(one) + 40}:${textFingerprint(one).split(':')[1]}` // runs past the page
            : key === 3
              ? 'nKkE8BZJ0d5Y0m5y3m9t1g==' // md5, as raw_hash was
              : undefined,
    );
    expect(split.keys).toEqual([4, 6, 1, 3]);
    expect(fingerprintsOf(split)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('scans an element whose held length ends inside the next element or short of its own end', () => {
    const first = '{"id":7,"a":{"b":1}}';
    const second = '{"id":8}';
    const bytes = page(first, second);
    const digest = textFingerprint(first).split(':')[1];
    // Lengths that land on a closing brace: the inner object's, and the second element's.
    const short = first.indexOf('}') + 1;
    const long = bytes.indexOf('}', bytes.indexOf('{"id":8')) + 1 - bytes.indexOf('{');
    for (const length of [short, long]) {
      const split = splitHeld(bytes, (key) => (key === 7 ? `${length}:${digest}` : undefined));
      expect(fingerprintsOf(split)).toEqual([undefined, undefined]);
    }
  });

  it('agrees with the plain scan on pages of many records, some held, some changed', () => {
    const texts = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify({ id: String(i + 1), naam: `Klant ${i} ${'é'.repeat(i % 7)}`, lines: { line1: { id: i } } }),
    );
    const held: Record<number, string> = {};
    texts.forEach((text, i) => {
      if (i % 3 !== 0) held[i + 1] = i % 5 === 0 ? text.replace('Klant', 'Klamt') : text;
    });
    const split = splitHeld(page(...texts), holding(held));
    const taken = fingerprintsOf(split).filter((f) => f !== undefined).length;
    expect(taken).toBe(texts.filter((text, i) => held[i + 1] === text).length);
    expect(taken).toBeGreaterThan(150);
  });
});
