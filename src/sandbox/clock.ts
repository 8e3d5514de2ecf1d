/** The sandbox's own calendar: fixed unless a test advances or sets it, so dates are reproducible. */

export interface SandboxClock {
  now(): Date;
  today(): string;
  advanceDays(days: number): void;
  set(date: Date | string): void;
}

export function toDate(value: Date | string): Date {
  const d =
    value instanceof Date
      ? new Date(value.getTime())
      : new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(d.getTime())) throw new Error(`invalid date: ${String(value)}`);
  return d;
}

const pad = (n: number): string => (n < 10 ? `0${n}` : String(n));

export function isoDay(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** YYYY-MM-DD as UTC milliseconds (the data generator does a lot of date arithmetic). */
export function dayMs(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
}

/** YYYY-MM-DD plus a number of days (UTC, so no daylight-saving surprises). */
export function addDays(day: string, days: number): string {
  return isoDay(new Date(dayMs(day) + days * 86_400_000));
}

export function addMonths(day: string, months: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  const dom = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(dom, last));
  return isoDay(d);
}

export function createClock(initial: Date | string, onChange: () => void): SandboxClock {
  let current = toDate(initial);
  return {
    now: () => new Date(current.getTime()),
    today: () => isoDay(current),
    advanceDays(days: number) {
      if (!Number.isFinite(days)) throw new Error('advanceDays: days must be a finite number');
      current = new Date(current.getTime() + days * 86_400_000);
      onChange();
    },
    set(date: Date | string) {
      current = toDate(date);
      onChange();
    },
  };
}
