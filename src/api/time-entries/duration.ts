// The `duration` text of a time-entry update (docs/contract.md, "Duration rules"). A pure parser:
// bounds (1 s..24 h) are the caller's, so that "out of range" and "not a duration" stay separate
// messages.
//
// Accepted, with no blanks and lower-case units only (the value is written by a program,
// and one spelling per value keeps it unambiguous):
// - units in the order h, m, s, each at most once: `1h30m`, `1h`, `90m`, `45s`, `1h15s`;
//   after a larger unit, minutes and seconds are below 60 (`1h90m` is refused as `1:90` is);
// - decimal hours on their own: `1.5h`, `0.25h`;
// - a clock: `1:30` (h:mm), `1:30:15` (h:mm:ss), two digits for minutes and seconds.
// Durations are whole seconds and are never rounded: `0.0001h` (0.36 s) is refused, since a
// silently rounded length would be billed as something the caller did not send.

export type DurationParse = { seconds: number } | { problem: string };

const UNITS = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const DECIMAL_HOURS = /^(\d+)\.(\d+)h$/;
const CLOCK = /^(\d+):([0-5]\d)(?::([0-5]\d))?$/;

const FORMAT_PROBLEM =
  'must be a duration such as "1h30m", "90m", "45s", "1:30", "1:30:15" or "1.5h"';

/** Parses a duration text into whole seconds, or says why it is not one. */
export function parseDuration(text: string): DurationParse {
  const clock = CLOCK.exec(text);
  if (clock) return total(clock[1], clock[2], clock[3]);

  const decimal = DECIMAL_HOURS.exec(text);
  if (decimal) {
    const [, whole = '', fraction = ''] = decimal;
    const scale = 10n ** BigInt(fraction.length);
    const scaledSeconds = (BigInt(whole) * scale + BigInt(fraction)) * 3600n;
    if (scaledSeconds % scale !== 0n) return { problem: 'must be a whole number of seconds' };
    return capped(scaledSeconds / scale);
  }

  const units = UNITS.exec(text);
  if (units && text !== '') {
    const [, hours, minutes, seconds] = units;
    if (minutes !== undefined && hours !== undefined && Number(minutes) >= 60)
      return { problem: 'minutes after hours must be below 60' };
    if (seconds !== undefined && (hours ?? minutes) !== undefined && Number(seconds) >= 60)
      return { problem: 'seconds after hours or minutes must be below 60' };
    return total(hours, minutes, seconds);
  }
  return { problem: FORMAT_PROBLEM };
}

function total(hours = '0', minutes = '0', seconds = '0'): DurationParse {
  return capped(BigInt(hours) * 3600n + BigInt(minutes) * 60n + BigInt(seconds));
}

// Digits are summed as BigInt, so a long digit string cannot lose precision and slip into
// range; anything past the safe integers is out of range anyway.
function capped(seconds: bigint): DurationParse {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return { seconds: Number(seconds > max ? max : seconds) };
}

/** A time entry's length: 1 second to 24 hours (docs/contract.md, "Duration rules"). */
export const MIN_ENTRY_SECONDS = 1;
export const MAX_ENTRY_SECONDS = 24 * 3600;

/** Why `seconds` is not a time entry's length, or undefined when it is one. */
export function entryLengthProblem(seconds: number): string | undefined {
  if (seconds < MIN_ENTRY_SECONDS || seconds > MAX_ENTRY_SECONDS)
    return 'must be between 1 second and 24 hours';
  return undefined;
}
