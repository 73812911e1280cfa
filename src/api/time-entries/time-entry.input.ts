import { z } from 'zod';
import { durationConflict, validationFailed } from '../errors.ts';
import { integerInput, optionalText, parseBody } from '../write-body.ts';
import { isoDate, isoTimestamp, uuid } from '../../value-schemas.ts';
import { entryLengthProblem, parseDuration } from './duration.ts';

// Ids are compared with the stored ones, which PostgreSQL answers in lower case.
const id = uuid.transform((v) => v.toLowerCase());

/**
 * An instant of `startTime`/`endTime`. A JS Date holds milliseconds, so a finer digit that is
 * not zero would be dropped without a word: refused instead.
 */
const instant = isoTimestamp
  .refine((v) => !/\.\d{3}\d*[1-9]/.test(v), 'must not be more precise than milliseconds')
  .transform((v) => new Date(v));

const duration = z
  .string({ error: 'must be a duration such as "1h30m"' })
  .transform((text, ctx) => {
    const parsed = parseDuration(text);
    if ('problem' in parsed) {
      ctx.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    }
    return parsed.seconds;
  });

/**
 * The body of PATCH /time-entries/{id} (docs/contract.md, "Time entry"), also for the OpenAPI
 * document; unknown fields are ignored.
 */
export const timeEntryUpdateInput = z.object({
  projectId: id.optional(),
  entryDate: isoDate.optional(),
  userId: id.optional(),
  taskId: id.nullable().optional(),
  durationSeconds: integerInput.optional(),
  duration: duration.optional(),
  startTime: instant.optional(),
  endTime: instant.optional(),
  note: optionalText(10_000).optional(),
  billable: z.boolean({ error: 'must be true or false' }).optional(),
});
type TimeEntryBody = z.output<typeof timeEntryUpdateInput>;

/** The request fields that can give an entry its length. */
export type LengthField = 'durationSeconds' | 'duration' | 'startTime' | 'endTime';

/**
 * A new length for the entry, from the one source that decides it
 * (docs/contract.md, "Duration rules").
 */
export interface EntryLength {
  seconds: number;
  /** Set when the length came from the `startTime`+`endTime` pair. */
  span?: { startedAt: Date; stoppedAt: Date };
  /** Every length field the request sent, to name in an error about the length. */
  sent: LengthField[];
}

export interface TimeEntryInput {
  projectId?: string;
  entryDate?: string;
  userId?: string;
  taskId?: string | null;
  note?: string | null;
  billable?: boolean;
  length?: EntryLength;
}

/**
 * Parses an update body: 422 `validation_failed` naming each bad field, then the length rules
 * (422 `duration_conflict` for a duration that differs from the time pair).
 */
export function parseTimeEntryInput(body: unknown): TimeEntryInput {
  const { durationSeconds, duration, startTime, endTime, ...rest } = parseBody(
    timeEntryUpdateInput,
    body,
  );
  const length = entryLength({ durationSeconds, duration, startTime, endTime });
  return length ? { ...rest, length } : rest;
}

type LengthInput = Pick<TimeEntryBody, 'durationSeconds' | 'duration' | 'startTime' | 'endTime'>;

/**
 * The length rules (docs/contract.md, "Duration rules"): one source decides; `durationSeconds` wins
 * over `duration`; the `startTime`+`endTime` pair decides when sent, and a duration sent beside it
 * must equal end - start. The result is 1 s..24 h.
 */
function entryLength(input: LengthInput): EntryLength | undefined {
  const sent = (Object.keys(input) as LengthField[]).filter((k) => input[k] !== undefined);
  const { durationSeconds, duration, startTime, endTime } = input;

  if (startTime === undefined && endTime !== undefined)
    throw validationFailed({ startTime: 'is required with endTime' });
  if (startTime !== undefined && endTime === undefined)
    throw validationFailed({ endTime: 'is required with startTime' });

  if (startTime !== undefined && endTime !== undefined) {
    const milliseconds = endTime.getTime() - startTime.getTime();
    if (milliseconds <= 0) throw validationFailed({ endTime: 'must be after startTime' });
    // Durations are whole seconds; rounding the pair would store a length nobody sent.
    if (milliseconds % 1000 !== 0)
      throw validationFailed({ endTime: 'must be a whole number of seconds after startTime' });
    const seconds = milliseconds / 1000;
    const problem = entryLengthProblem(seconds);
    if (problem) throw validationFailed({ endTime: `${problem} after startTime` });
    const conflicts: Record<string, string> = {};
    const differs = `differs from endTime - startTime (${seconds} seconds)`;
    if (durationSeconds !== undefined && durationSeconds !== seconds)
      conflicts.durationSeconds = differs;
    if (duration !== undefined && duration !== seconds) conflicts.duration = differs;
    if (Object.keys(conflicts).length > 0) throw durationConflict(conflicts);
    return { seconds, span: { startedAt: startTime, stoppedAt: endTime }, sent };
  }

  // durationSeconds wins over duration; a duration sent beside it was still checked for form.
  const [field, seconds] =
    durationSeconds !== undefined
      ? (['durationSeconds', durationSeconds] as const)
      : duration !== undefined
        ? (['duration', duration] as const)
        : [];
  if (field === undefined) return undefined;
  const problem = entryLengthProblem(seconds);
  if (problem) throw validationFailed({ [field]: problem });
  return { seconds, sent };
}

/** Whether a body (parsed or not) names a field, whatever its value. */
export function bodyNames(body: unknown, field: string): boolean {
  return typeof body === 'object' && body !== null && Object.hasOwn(body, field);
}
