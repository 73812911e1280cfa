/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week), evaluated in UTC:
 * `*`, numbers, ranges `a-b`, steps `*\/n` and `a-b/n`, lists `a,b`, and three-letter month and
 * day names. As in Vixie cron, when both day fields are restricted a day matches either.
 */
export interface Cron {
  source: string;
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  daysRestricted: boolean;
  weekdaysRestricted: boolean;
}

export class CronError extends Error {}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
  /** The first name's number (months count from 1). */
  nameBase?: number;
}

const FIELDS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, nameBase: 1 },
  // 7 is Sunday too.
  { name: 'day of week', min: 0, max: 7, names: WEEKDAYS, nameBase: 0 },
];

function parseValue(text: string, spec: FieldSpec): number {
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index >= 0) return index + (spec.nameBase ?? 0);
  if (!/^\d+$/.test(text)) throw new CronError(`${spec.name}: ${text} is not a number`);
  const value = Number(text);
  if (value < spec.min || value > spec.max)
    throw new CronError(`${spec.name}: ${value} is outside ${spec.min}-${spec.max}`);
  return value;
}

function parseField(text: string, spec: FieldSpec): { values: Set<number>; restricted: boolean } {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const [range = '', stepText, extra] = item.split('/');
    if (extra !== undefined || range === '') throw new CronError(`${spec.name}: bad item ${item}`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0)
        throw new CronError(`${spec.name}: bad step ${stepText}`);
      step = Number(stepText);
    }
    let low: number;
    let high: number;
    if (range === '*') {
      [low, high] = [spec.min, spec.max];
    } else if (range.includes('-')) {
      const [a = '', b = ''] = range.split('-');
      [low, high] = [parseValue(a, spec), parseValue(b, spec)];
      if (low > high) throw new CronError(`${spec.name}: range ${range} runs backwards`);
    } else {
      low = parseValue(range, spec);
      high = stepText === undefined ? low : spec.max;
    }
    for (let v = low; v <= high; v += step) values.add(v);
  }
  if (spec.name === 'day of week' && values.delete(7)) values.add(0);
  return { values, restricted: text !== '*' };
}

/** Parses a five-field expression; a CronError names the field that is wrong. */
export function parseCron(source: string): Cron {
  const parts = source.trim().split(/\s+/);
  if (parts.length !== 5)
    throw new CronError(
      `needs five fields (minute hour day-of-month month day-of-week), got ${parts.length}`,
    );
  const [minutes, hours, days, months, weekdays] = parts.map((p, i) => parseField(p, FIELDS[i]!));
  return {
    source,
    minutes: minutes!.values,
    hours: hours!.values,
    days: days!.values,
    months: months!.values,
    weekdays: weekdays!.values,
    daysRestricted: days!.restricted,
    weekdaysRestricted: weekdays!.restricted,
  };
}

function dayMatches(cron: Cron, t: Date): boolean {
  const day = cron.days.has(t.getUTCDate());
  const weekday = cron.weekdays.has(t.getUTCDay());
  if (cron.daysRestricted && cron.weekdaysRestricted) return day || weekday;
  return day && weekday;
}

/** Four years of minutes: every valid expression has an occurrence within them. */
const MAX_STEPS = 4 * 366 * 24 * 60;

/** The first time the expression names strictly after `after` (whole minutes, UTC). */
export function nextAfter(cron: Cron, after: Date): Date {
  const t = new Date(after.getTime());
  t.setUTCSeconds(0, 0);
  t.setUTCMinutes(t.getUTCMinutes() + 1);
  for (let step = 0; step < MAX_STEPS; step++) {
    if (!cron.months.has(t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0, 0, 0);
    } else if (!dayMatches(cron, t)) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0, 0, 0);
    } else if (!cron.hours.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
    } else if (!cron.minutes.has(t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
    } else {
      return t;
    }
  }
  throw new CronError(`${cron.source} names no time (a day that never comes?)`);
}

/** The latest time the expression names in (after, at], or undefined when there is none. */
export function latestBetween(cron: Cron, after: Date, at: Date): Date | undefined {
  let latest: Date | undefined;
  for (let t = nextAfter(cron, after); t <= at; t = nextAfter(cron, t)) latest = t;
  return latest;
}
