/** Table output laid out by display width: wide and combining characters, emoji sequences. */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { formatRows, grouped, plural, readableRows, timeText, truncate, twoDecimals } from '../../src/format.js';

describe('table output', () => {
  it('aligns columns by what a terminal shows, not by UTF-16 code units', async () => {
    const out = await formatRows(
      [
        { name: 'Koffie ☕', city: '東京', n: 1 },
        { name: 'Café', city: 'Zoë', n: 22 },
        { name: 'Familie 👨‍👩‍👧', city: 'e\u0301e', n: 333 },
      ],
      'table',
    );
    const lines = out.trimEnd().split('\n').slice(0, -1); // without the "(3 rows)" line
    const widths = lines.map((line) => stringWidth(line.trimEnd()));
    // Every data line ends its last (numeric, right-aligned) column at the same display column.
    expect(new Set(widths.slice(2)).size).toBe(1);
    expect(widths[0]).toBe(widths[2]);
    // Each cell of a column starts at the same display column.
    const cities = ['東京', 'Zoë', 'e\u0301e'];
    const cityStarts = lines.slice(2).map((line, i) => stringWidth(line.slice(0, line.lastIndexOf(cities[i]!))));
    expect(new Set(cityStarts).size).toBe(1);
  });

  it('lays out a few hundred thousand rows (no argument spread over the rows)', async () => {
    const rows = Array.from({ length: 300_000 }, (_, i) => ({ n: i }));
    const text = await formatRows(rows, 'table');
    expect(text.split('\n').slice(0, 3)).toEqual(['     n', '------', '     0']);
    expect(text.endsWith('(300000 rows)\n')).toBe(true);
  });

  it('cuts long cells between characters, by display width', async () => {
    const coffee = '☕'.repeat(40);
    const cut = await truncate(coffee, 9);
    expect(cut).toBe(`${'☕'.repeat(4)}…`);
    expect(stringWidth(cut)).toBeLessThanOrEqual(9);
    const family = `ab${'👨‍👩‍👧'.repeat(5)}`;
    const cutFamily = await truncate(family, 6);
    expect(cutFamily).toBe('ab👨‍👩‍👧…');
    expect(await truncate('plain text', 60)).toBe('plain text');
    expect(await truncate('x'.repeat(70), 10)).toBe(`${'x'.repeat(9)}…`); // plain ASCII: cut by length
    // Never half a surrogate pair.
    expect(/[\ud800-\udbff]$/.test((await truncate('x🌷🌷🌷', 4)).replace(/…$/, ''))).toBe(false);
  });

  it('groups thousands as English does, without loading the locale data', () => {
    for (const n of [0, 7, 999, 1000, 12_345, -1234, 1_000_000, 2 ** 53 - 1])
      expect(grouped(n)).toBe(n.toLocaleString('en'));
    expect(plural(1, 'request')).toBe('1 request');
    expect(plural(12_500, 'record')).toBe('12,500 records');
  });
});

describe('values for people', () => {
  it('money has two decimals, rounded on its decimal digits (not in binary)', () => {
    const cases: [string | number, string][] = [
      ['46864.9', '46864.90'],
      ['0', '0.00'],
      [0, '0.00'],
      ['867.406', '867.41'],
      ['1.005', '1.01'],
      ['-2.345', '-2.35'],
      ['-0.001', '0.00'],
      ['12345678901234567890.125', '12345678901234567890.13'],
      ['not a number', 'not a number'],
    ];
    for (const [value, shown] of cases) expect(twoDecimals(value), String(value)).toBe(shown);
  });

  it('a table for people: money, months and times; other columns as they are', () => {
    const at = new Date('2026-11-03T14:05:09.123Z');
    const rows = readableRows(
      [{ month: '2026-11-01', total: '46864.9', count: 3, day: '2026-11-03', seen: at, note: '0.5' }],
      ['month', 'total', 'count', 'day', 'seen', 'note'],
      { money: (column) => column === 'total', month: (column) => column === 'month' },
    );
    expect(rows).toEqual([
      {
        month: '2026-11',
        total: '46864.90',
        count: 3,
        day: '2026-11-03',
        seen: '2026-11-03 14:05:09 UTC',
        note: '0.5',
      },
    ]);
    expect(timeText(at)).toBe('2026-11-03 14:05:09 UTC');
  });
});
