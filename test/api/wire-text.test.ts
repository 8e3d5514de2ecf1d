/** Values Postgres cannot store, repaired in a record's JSON text; single reads keep the record's own text. */
import { describe, expect, it } from 'vitest';
import { repairJsonText } from '../../src/api/index.js';
import { singleValueText, wireItem } from '../../src/api/json-split.js';

describe('repairJsonText', () => {
  it('replaces NUL escapes and unpaired surrogates, and nothing else', () => {
    expect(repairJsonText('{"a":"x\\u0000y"}')).toBe('{"a":"x\u2400y"}');
    expect(repairJsonText('{"a":"\\ud83c"}')).toBe('{"a":"\ufffd"}');
    expect(repairJsonText('{"a":"\\udf37x"}')).toBe('{"a":"\ufffdx"}');
    // A whole pair, an escaped backslash before "u0000", and plain text are left alone.
    expect(repairJsonText('{"a":"\\ud83c\\udf37"}')).toBeNull();
    expect(repairJsonText('{"a":"\\\\u0000"}')).toBeNull();
    expect(repairJsonText('{"a":"plain"}')).toBeNull();
    expect(repairJsonText('{"a":"\\\\\\u0000"}')).toBe('{"a":"\\\\\u2400"}');
  });

  it('a repaired item says where and what, and parses to the stored form', () => {
    const item = wireItem(JSON.parse('{"id":"4","company":"a\\u0000b","lines":{"line1":{"description":"\\ud800"}}}'));
    expect(item.value).toEqual({ id: '4', company: 'a\u2400b', lines: { line1: { description: '\ufffd' } } });
    expect(item.repaired?.map((r) => [r.path, r.value])).toEqual([
      ['company', '"a\\u0000b"'],
      ['lines.line1.description', '"\\ud800"'],
    ]);
  });
});

describe('singleValueText', () => {
  it('is the exact text of the one value of a wrapper, or null', () => {
    expect(singleValueText('{"client": {"clientnr":"1","a":[1, 2]} }')).toBe('{"clientnr":"1","a":[1, 2]}');
    expect(singleValueText('{"a": {"x":1}, "b": {"y":2}}')).toBeNull();
    expect(singleValueText('[{"x":1}]')).toBeNull();
    expect(singleValueText('{"a": 5}')).toBeNull();
  });
});
