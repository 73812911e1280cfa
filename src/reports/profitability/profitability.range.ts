/**
 * The calendar month of `today` (YYYY-MM-DD): its first and last day. The profitability report's
 * default range is the current month in the workspace's time zone
 * (docs/contract.md, "Range and entries"), so `today` is the workspace's date (todayIn), not the
 * server's.
 */
export function monthOf(today: string): { from: string; to: string } {
  const [year, month] = today.split('-').map(Number);
  if (year === undefined || month === undefined || !Number.isInteger(year + month))
    throw new Error(`not a date: ${today}`);
  // Day 0 of the next month is the last day of this one (UTC, so no daylight-saving shifts).
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const prefix = today.slice(0, 8);
  return { from: `${prefix}01`, to: `${prefix}${String(lastDay).padStart(2, '0')}` };
}

/**
 * The whole calendar months inside from..to (YYYY-MM-DD, from <= to): from the first day of
 * the first month it covers whole to the last day of the last, or null when it covers none.
 * The profitability report reads these from the month rollup and the other days from the facts.
 */
export function wholeMonthsOf(from: string, to: string): { from: string; to: string } | null {
  const first = monthOf(from).from === from ? from : nextMonthStart(from);
  const last = monthOf(to).to === to ? to : previousMonthEnd(to);
  return first <= last ? { from: first, to: last } : null;
}

function nextMonthStart(date: string): string {
  const [year, month] = date.split('-').map(Number) as [number, number];
  const next = new Date(Date.UTC(year, month, 1));
  return next.toISOString().slice(0, 10);
}

function previousMonthEnd(date: string): string {
  const [year, month] = date.split('-').map(Number) as [number, number];
  // Day 0 of this month is the last day of the previous one (UTC: no daylight-saving shifts).
  return new Date(Date.UTC(year, month - 1, 0)).toISOString().slice(0, 10);
}

/** The first day of the month `months` months before the month of `date` (YYYY-MM-DD). */
export function monthsBefore(date: string, months: number): string {
  const [year, month] = date.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month - 1 - months, 1)).toISOString().slice(0, 10);
}
