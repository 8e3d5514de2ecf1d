/** A record's key read from its JSON text without parsing it: the same as JSON.parse, or null. */
import { describe, expect, it } from 'vitest';
import { plainIntegerField } from '../../src/api/json-split.js';

const MAX = 2 ** 31 - 1;

describe('plainIntegerField', () => {
  it('reads a bare or quoted integer of the top level, its last occurrence', () => {
    expect(plainIntegerField('{"id": 12, "name": "x"}', 'id', MAX)).toBe(12);
    expect(plainIntegerField('{"name":"x","id":"12"}', 'id', MAX)).toBe(12);
    expect(plainIntegerField('{"id":"0"}', 'id', MAX)).toBe(0);
    expect(plainIntegerField('{"id":1,"lines":{"id":7},"x":[{"id":8}],"id" : 3 }', 'id', MAX)).toBe(3);
    expect(plainIntegerField('{"note":"\\"id\\": 9, ","id":4}', 'id', MAX)).toBe(4);
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
      expect(plainIntegerField(text, 'id', MAX), text).toBeNull();
  });

  it('agrees with JSON.parse wherever it answers', () => {
    for (const text of ['{"clientnr":"31","company":"A, \\"B\\" {c}"}', '{"a":[1,{"clientnr":2}],"clientnr":44}'])
      expect(plainIntegerField(text, 'clientnr', MAX)).toBe(Number(JSON.parse(text).clientnr));
  });
});
