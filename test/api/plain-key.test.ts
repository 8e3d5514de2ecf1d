/** A record's key read from its JSON text without parsing it: the same as JSON.parse, or null. */
import { describe, expect, it } from 'vitest';
import { plainIntegerField } from '../../src/api/json-split.js';

const MAX = 2 ** 31 - 1;
const keyOf = (text: string, field = 'id') => plainIntegerField(Buffer.from(text, 'utf8'), field, MAX);

describe('plainIntegerField', () => {
  it('reads a bare or quoted integer of the top level, its last occurrence', () => {
    expect(keyOf('{"id": 12, "name": "x"}')).toBe(12);
    expect(keyOf('{"name":"x","id":"12"}')).toBe(12);
    expect(keyOf('{"id":"0"}')).toBe(0);
    expect(keyOf('{"id":1,"lines":{"id":7},"x":[{"id":8}],"id" : 3 }')).toBe(3);
    expect(keyOf('{"note":"\\"id\\": 9, ","id":4}')).toBe(4);
    expect(keyOf('{"naam":"Ærø – “quoted” €","id":"77"}')).toBe(77);
  });

  it('is null where only parsing can tell: other forms, escaped names, nested only, out of range', () => {
    for (const text of [
      '{"id": "05"}',
      '{"id": 5.0}',
      '{"id": -5}',
      '{"id": " 5"}',
      '{"id": 1e3}',
      '{"id": null}',
      '{"\\u0069d": 5}',
      '{"lines": {"id": 5}}',
      '{"id": 5, "id": "x"}',
      '{"id": 2147483648}',
      '[{"id": 5}]',
    ])
      expect(keyOf(text), text).toBeNull();
  });

  it('agrees with JSON.parse wherever it answers', () => {
    for (const text of ['{"clientnr":"31","company":"A, \\"B\\" {c}"}', '{"a":[1,{"clientnr":2}],"clientnr":44}'])
      expect(keyOf(text, 'clientnr')).toBe(Number(JSON.parse(text).clientnr));
  });
});
