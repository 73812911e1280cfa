/**
 * Every error code the API answers, with its status: the one list the error answers take both
 * from (ApiError, the error handler, the answers written before routing), and the one
 * docs/api.md's table of errors is checked against (test/api/error-docs.test.ts). A code has one
 * status; a new failure either reuses a code or adds it here, and to that table.
 */
export const ERROR_STATUSES = {
  malformed_request: 400,
  malformed_json: 400,
  idempotency_key_required: 400,
  unauthenticated: 401,
  forbidden_plan: 402,
  forbidden_scope: 403,
  not_found: 404,
  not_acceptable: 406,
  request_timeout: 408,
  idempotency_in_progress: 409,
  entry_locked: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  invalid_cursor: 422,
  invalid_query: 422,
  idempotency_key_reused: 422,
  duration_conflict: 422,
  rate_limited: 429,
  header_too_large: 431,
  internal_error: 500,
  read_model_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUSES;

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  fields?: Record<string, string>;
  requiredPlan?: string;
  feature?: string;
}

/**
 * An error the API answers with on purpose: a machine code (its status comes with it, from
 * ERROR_STATUSES) and one sentence for a person.
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Omit<ErrorBody, 'code' | 'message'> = {},
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.status = ERROR_STATUSES[code];
  }
}

export const unauthenticated = () =>
  new ApiError('unauthenticated', 'A valid bearer token is required.');
export const forbiddenScope = () =>
  new ApiError('forbidden_scope', 'Your token does not allow this action.');
export const notFound = () => new ApiError('not_found', 'The requested resource does not exist.');
export const forbiddenPlan = (requiredPlan: 'studio' | 'agency', feature: string) =>
  new ApiError('forbidden_plan', `This feature needs the ${requiredPlan} plan.`, {
    requiredPlan,
    feature,
  });
export const validationFailed = (fields: Record<string, string>) =>
  new ApiError('validation_failed', 'Some values are invalid.', { fields });
export const invalidQuery = (fields: Record<string, string>) =>
  new ApiError('invalid_query', 'The query has unknown or repeated parameters.', { fields });
/**
 * A time entry's duration sent beside a `startTime`+`endTime` pair it differs from
 * (docs/contract.md, "Duration rules").
 */
export const durationConflict = (fields: Record<string, string>) =>
  new ApiError(
    'duration_conflict',
    'The duration sent differs from the time between startTime and endTime.',
    { fields },
  );
/**
 * A time entry on a SENT/PAID invoice or an APPROVED team bill (docs/contract.md, "Time entries");
 * `fields` names what it tried to change.
 */
export const entryLocked = (fields: Record<string, string>) =>
  new ApiError(
    'entry_locked',
    'This time entry is on a sent or paid invoice or an approved team bill, so its duration, date, project and user cannot change.',
    { fields },
  );
export const idempotencyKeyRequired = () =>
  new ApiError('idempotency_key_required', 'This request needs an Idempotency-Key header.');
export const idempotencyKeyReused = () =>
  new ApiError(
    'idempotency_key_reused',
    'This Idempotency-Key was already used for a different request.',
  );
export const idempotencyInProgress = () =>
  new ApiError(
    'idempotency_in_progress',
    'A request with this Idempotency-Key is still being processed; retry shortly.',
  );
/** The Accept header admits none of the media types the route answers (docs/decisions.md). */
export const notAcceptable = (offered: readonly string[]) =>
  new ApiError(
    'not_acceptable',
    `This endpoint answers ${offered.join(' or ')}; the Accept header admits none of them.`,
  );
/**
 * A stored value that its record cannot carry (src/api/entity-record.ts): a list holding NULL,
 * which the store refuses since sql/postgres/0009_array_elements.sql, or any value its field's
 * reader refuses. The field is named for the caller; what the reader found is the cause, which
 * the log keeps.
 */
export const unanswerableValue = (field: string, cause: unknown) =>
  new ApiError(
    'internal_error',
    `The stored ${field} of this record cannot be answered; the request was not completed.`,
    {},
    cause,
  );
export const rateLimited = () =>
  new ApiError(
    'rate_limited',
    'This token has sent too many requests; retry after the time in Retry-After.',
  );
export const readModelUnavailable = () =>
  new ApiError(
    'read_model_unavailable',
    'Reports are not available yet; the first sync is still running.',
  );
/**
 * A read waited for a data position (its token's last write, or its X-Data-Position) that the
 * read model did not reach within the wait (docs/api.md, "Data positions").
 */
export const positionNotReached = (waitMs: number) =>
  new ApiError(
    'read_model_unavailable',
    `The read model has not reached the data position this read waits for (the token's last write, or X-Data-Position) within ${waitMs / 1000} s. The write is saved: read again later.`,
  );
