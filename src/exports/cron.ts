import { Cron as Croner, type CronOptions } from 'croner';

/**
 * A five-field cron expression (minute hour day-of-month month day-of-week), evaluated in UTC
 * by croner: `*`, numbers, ranges `a-b`, steps `*\/n`, `a-b/n` and `a/n`, lists `a,b`, and
 * three-letter month and day names. As in Vixie cron, when both day fields are restricted a
 * day matches either.
 */
export interface Cron {
  source: string;
  schedule: Croner;
}

export class CronError extends Error {}

const OPTIONS: CronOptions = {
  mode: '5-part',
  utcOffset: 0,
  // Vixie cron's "either day" when both day fields are restricted.
  domAndDow: false,
  // `a/n` (from a, every n) as cron reads it.
  sloppyRanges: true,
};

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  // 7 is Sunday too.
  { name: 'day of week', min: 0, max: 7 },
] as const;

/**
 * Parses a five-field expression; a CronError names the field that is wrong. The numbers'
 * ranges are checked here, because croner reports a day or month out of range by its own
 * zero-based index ("day: -1" for a day of 0).
 */
export function parseCron(source: string): Cron {
  const parts = source.trim().split(/\s+/);
  if (parts.length !== 5)
    throw new CronError(
      `needs five fields (minute hour day-of-month month day-of-week), got ${parts.length}`,
    );
  parts.forEach((part, i) => checkNumbers(part, FIELDS[i]!));
  try {
    return { source, schedule: new Croner(source, OPTIONS) };
  } catch (error) {
    throw new CronError(wrongField(parts, error));
  }
}

function checkNumbers(part: string, field: (typeof FIELDS)[number]): void {
  for (const item of part.split(',')) {
    const range = item.split('/')[0] ?? '';
    for (const value of range.split('-')) {
      if (/^\d+$/.test(value) && (Number(value) < field.min || Number(value) > field.max))
        throw new CronError(`${field.name}: ${value} is outside ${field.min}-${field.max}`);
    }
  }
}

/** croner's message, led by the field that fails on its own (croner numbers fields from 0 with seconds). */
function wrongField(parts: string[], error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error))
    .replace(/^CronPattern: (Syntax error, )?/, '')
    .replace(/^configuration entry \S+ \((.*)\)/, "'$1'");
  const index = parts.findIndex((part, i) => {
    const alone = FIELDS.map((_, j) => (j === i ? part : '*')).join(' ');
    try {
      new Croner(alone, OPTIONS);
      return false;
    } catch {
      return true;
    }
  });
  return index < 0 ? message : `${FIELDS[index]!.name}: ${message}`;
}

/** The first time the expression names strictly after `after` (whole minutes, UTC). */
export function nextAfter(cron: Cron, after: Date): Date {
  const next = cron.schedule.nextRun(after);
  if (next === null) throw new CronError(`${cron.source} names no time (a day that never comes?)`);
  return next;
}

/** The latest time the expression names in (after, at], or undefined when there is none. */
export function latestBetween(cron: Cron, after: Date, at: Date): Date | undefined {
  // croner's previous runs are strictly before the reference: 1 ms later includes `at`.
  const [latest] = cron.schedule.previousRuns(1, new Date(at.getTime() + 1));
  return latest !== undefined && latest > after ? latest : undefined;
}
