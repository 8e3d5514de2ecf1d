/**
 * A record's key read from its JSON text while the list is split, without parsing it: the same as
 * JSON.parse, or null.
 */
import { describe, expect, it } from 'vitest';
import { splitJsonArray } from '../../src/api/json-split.js';

const MAX = 2 ** 31 - 1;
/** The key of a list of one element. */
const keyOf = (text: string, field = 'id') => {
  const split = splitJsonArray(Buffer.from(`[${text}]`, 'utf8'), { name: field, max: MAX });
  expect(split?.keys).toHaveLength(1);
  return split!.keys[0];
};

describe('the plain key read while splitting', () => {
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

  it('reads the key of each element, whatever its neighbours hold', () => {
    const list = '[{"id":1,"x":{"id":9}}, {"\\u0069d":2}, [3], {"id":"4","id":5}, {"lines":[{"id":6}]}]';
    const split = splitJsonArray(Buffer.from(list, 'utf8'), { name: 'id', max: MAX });
    expect(split?.keys).toEqual([1, null, null, 5, null]);
    expect(split?.bounds).toHaveLength(10);
    expect(JSON.parse(list)).toHaveLength(5);
  });
});
