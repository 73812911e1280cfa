// The ranges the profitability view offers. They are whole months counted from the workspace's
// current month as the API reports it (its default range is the current month in the
// workspace's time zone), so the browser's clock and time zone never shift them.

export type Preset =
  'this-month' | 'last-month' | 'this-quarter' | 'year-to-date' | 'last-12-months';

export const PRESETS: { value: Preset; label: string }[] = [
  { value: 'this-month', label: 'This month' },
  { value: 'last-month', label: 'Last month' },
  { value: 'this-quarter', label: 'This quarter' },
  { value: 'year-to-date', label: 'Year to date' },
  { value: 'last-12-months', label: 'Last 12 months' },
];

export interface Range {
  from: string;
  to: string;
}

/** The first day of a month `offset` months from (year, month 1-12). */
function monthStart(year: number, month: number, offset = 0): string {
  const d = new Date(Date.UTC(year, month - 1 + offset, 1));
  return d.toISOString().slice(0, 10);
}

/** The last day of a month `offset` months from (year, month 1-12). */
function monthEnd(year: number, month: number, offset = 0): string {
  const d = new Date(Date.UTC(year, month + offset, 0));
  return d.toISOString().slice(0, 10);
}

/** A preset's range, given the first day of the workspace's current month (YYYY-MM-01). */
export function presetRange(preset: Preset, currentMonth: string): Range {
  const year = Number(currentMonth.slice(0, 4));
  const month = Number(currentMonth.slice(5, 7));
  switch (preset) {
    case 'this-month':
      return { from: monthStart(year, month), to: monthEnd(year, month) };
    case 'last-month':
      return { from: monthStart(year, month, -1), to: monthEnd(year, month, -1) };
    case 'this-quarter': {
      const first = month - ((month - 1) % 3);
      return { from: monthStart(year, first), to: monthEnd(year, first, 2) };
    }
    case 'year-to-date':
      return { from: monthStart(year, 1), to: monthEnd(year, month) };
    case 'last-12-months':
      return { from: monthStart(year, month, -11), to: monthEnd(year, month) };
  }
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether a text is a real calendar date (YYYY-MM-DD). */
export function isDate(text: string): boolean {
  if (!ISO_DATE.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}
