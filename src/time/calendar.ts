/** The calendar date (YYYY-MM-DD) at `instant` in an IANA time zone: "today" in a workspace's payout calendar. */
export function todayIn(timeZone: string, instant: Date = new Date()): string {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant);
}
