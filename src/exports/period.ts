/** The periods the export commands take: a year (`2026`), a quarter (`2026-Q3`) or a month (`2026-07`). */
import { UsageError } from '../errors.js';

export interface Period {
  label: string;
  from: string;
  to: string;
}

const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
const day = (year: number, month: number, d: number) =>
  `${year}-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

export function yearPeriod(option: string, value: string): Period {
  if (!/^\d{4}$/.test(value) || Number(value) < 1990 || Number(value) > 2100)
    throw new UsageError(`${option}: a year such as 2026, got '${value}'`);
  const year = Number(value);
  return { label: value, from: day(year, 1, 1), to: day(year, 12, 31) };
}

export function parsePeriod(option: string, value: string): Period {
  const quarter = /^(\d{4})-Q([1-4])$/i.exec(value);
  const month = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(value);
  if (quarter) {
    const year = Number(quarter[1]);
    const first = (Number(quarter[2]) - 1) * 3 + 1;
    return {
      label: value.toUpperCase(),
      from: day(year, first, 1),
      to: day(year, first + 2, lastDay(year, first + 2)),
    };
  }
  if (month) {
    const [year, m] = [Number(month[1]), Number(month[2])];
    return { label: value, from: day(year, m, 1), to: day(year, m, lastDay(year, m)) };
  }
  if (/^\d{4}$/.test(value)) return yearPeriod(option, value);
  throw new UsageError(`${option}: a quarter (2026-Q3), a month (2026-07) or a year (2026), got '${value}'`);
}
