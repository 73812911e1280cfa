/**
 * The calendar month of `today` (YYYY-MM-DD): its first and last day. The profitability report's
 * default range is the current month in the workspace's time zone (decisions 8), so `today` is
 * the workspace's date (todayIn), not the server's.
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
