/** Money as whole cents, read from decimal text without binary floating point. */
import { describe, expect, it } from 'vitest';
import { formatCents, formatMilli, mulDivRound, toCents, toMilli, vatOf } from '../../src/exports/money.js';

describe('money', () => {
  it('reads every amount of three decimals as cents, half away from zero', () => {
    for (let milli = -25_005; milli <= 25_005; milli += 7) {
      const abs = Math.abs(milli);
      const text = `${milli < 0 ? '-' : ''}${Math.floor(abs / 1000)}.${String(abs % 1000).padStart(3, '0')}`;
      const expected = Math.floor((abs + 5) / 10);
      expect(toCents(text)).toBe(milli < 0 && expected !== 0 ? -expected : expected);
    }
  });

  it('writes cents back as the text they came from', () => {
    for (const cents of [0, 1, -1, 99, 100, -1050, 123456789, -987654321012])
      expect(toCents(formatCents(cents))).toBe(cents);
    expect(formatCents(-1050)).toBe('-10.50');
    expect([toCents('52'), toCents('.5'), toCents('+3.1'), toCents(''), toCents(null)]).toEqual([5200, 50, 310, 0, 0]);
    expect(() => toCents('1,50')).toThrow("not a decimal amount: '1,50'");
  });

  it('reads rates as thousandths and writes them shortest', () => {
    expect([toMilli('21'), toMilli('9'), toMilli('5.5'), toMilli('0')]).toEqual([21000, 9000, 5500, 0]);
    expect([formatMilli(21000), formatMilli(5500), formatMilli(-1250)]).toEqual(['21', '5.5', '-1.25']);
  });

  it('computes VAT to the cent, rounding half away from zero', () => {
    // The service's own example: 21 % of 52.00 is 10.92.
    expect(vatOf(5200, 21000)).toBe(1092);
    expect([vatOf(50, 9000), vatOf(-50, 9000), vatOf(-5, 9000)]).toEqual([5, -5, 0]);
    expect(mulDivRound(7, 1, 2)).toBe(4);
    expect(mulDivRound(-7, 1, 2)).toBe(-4);
  });
});
