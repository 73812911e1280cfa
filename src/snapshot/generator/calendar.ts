/**
 * Calendar arithmetic for the generator on day numbers (days since 1970-01-01, UTC). Every
 * date of a generated workspace derives from the `today` option, never from the clock.
 */

const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));

/** One calendar month of the generated range, clipped at `today`. */
export interface Month {
  /** 0 for the oldest month of the range. */
  index: number;
  /** Whole months before today's month: 0 for the current month. */
  age: number;
  firstDay: number;
  /** The month's real last day (invoices and bills of a past month are dated by it). */
  endDay: number;
  /** The last day with work: endDay, or today for the current month. */
  lastDay: number;
  workingDays: number[];
  weekendDays: number[];
}

/** Parses `YYYY-MM-DD` into a day number; throws on anything that is not a calendar date. */
export function parseDay(text: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) throw new Error(`not a date YYYY-MM-DD: ${text}`);
  const [, y = '', m = '', d = ''] = match;
  const day = dayOf(Number(y), Number(m), Number(d));
  if (isoDate(day) !== text) throw new Error(`not a calendar date: ${text}`);
  return day;
}

export function dayOf(year: number, month: number, dayOfMonth: number): number {
  return Math.floor(Date.UTC(year, month - 1, dayOfMonth) / DAY_MS);
}

const isoCache = new Map<number, string>();

/** `YYYY-MM-DD` of a day number (cached: the generator prints few distinct dates many times). */
export function isoDate(day: number): string {
  let text = isoCache.get(day);
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    isoCache.set(day, text);
  }
  return text;
}

/** ISO timestamp `YYYY-MM-DDTHH:MM:SS.000Z` of a day and a second of that day (< 86400). */
export function isoTimestamp(day: number, secondOfDay: number): string {
  const h = Math.floor(secondOfDay / 3600);
  const m = Math.floor((secondOfDay % 3600) / 60);
  const s = secondOfDay % 60;
  return `${isoDate(day)}T${TWO_DIGITS[h]}:${TWO_DIGITS[m]}:${TWO_DIGITS[s]}.000Z`;
}

/** Saturday and Sunday (1970-01-01 was a Thursday). */
export function isWeekend(day: number): boolean {
  const weekday = (((day + 4) % 7) + 7) % 7;
  return weekday === 0 || weekday === 6;
}

/** First day of the month `delta` months after the month of `day` (delta may be negative). */
export function addMonths(day: number, delta: number): number {
  const date = new Date(day * DAY_MS);
  return dayOf(date.getUTCFullYear(), date.getUTCMonth() + 1 + delta, 1);
}

export function dayOfMonth(day: number): number {
  return new Date(day * DAY_MS).getUTCDate();
}

/** The `count` calendar months ending with today's month, oldest first. */
export function monthsUpTo(today: number, count: number): Month[] {
  const months: Month[] = [];
  for (let index = 0; index < count; index++) {
    const age = count - 1 - index;
    const firstDay = addMonths(today, -age);
    const endDay = addMonths(today, -age + 1) - 1;
    const lastDay = Math.min(endDay, today);
    const workingDays: number[] = [];
    const weekendDays: number[] = [];
    for (let day = firstDay; day <= lastDay; day++) {
      (isWeekend(day) ? weekendDays : workingDays).push(day);
    }
    months.push({ index, age, firstDay, endDay, lastDay, workingDays, weekendDays });
  }
  return months;
}
