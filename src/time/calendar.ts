// Making an Intl.DateTimeFormat costs about 0.1 ms (using one, 0.003 ms), which a request
// would pay for every date it formats: one per time zone is kept.
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * The calendar date (YYYY-MM-DD) at `instant` in an IANA time zone: "today" in a workspace's
 * payout calendar. A zone the runtime does not know counts as UTC: the importer takes only
 * zones it knows, but the store holds whatever text another tool writes (docs/decisions.md,
 * "Values the stores can hold").
 */
export function todayIn(timeZone: string, instant: Date = new Date()): string {
  let format = dateFormats.get(timeZone);
  if (!format) {
    // en-CA formats dates as YYYY-MM-DD.
    const options = { year: 'numeric', month: '2-digit', day: '2-digit' } as const;
    try {
      format = new Intl.DateTimeFormat('en-CA', { ...options, timeZone });
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      format = new Intl.DateTimeFormat('en-CA', { ...options, timeZone: 'UTC' });
    }
    dateFormats.set(timeZone, format);
  }
  return format.format(instant);
}
