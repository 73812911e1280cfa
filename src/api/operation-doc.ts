import type { z } from 'zod';

/** One operation of the API, described by the zod schemas its route validates with. */
export interface OperationDoc {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  summary: string;
  /** Who may call (api-v1 "Endpoints"). */
  access: string;
  query?: z.ZodObject | z.ZodType;
  pathId?: boolean;
  /** Other path parameters (`{name}` in `path`), with their JSON schema. */
  pathParameters?: Record<string, object>;
  body?: z.ZodType;
  idempotencyKey?: 'required' | 'optional';
  /** `content`: media types other than JSON, with their JSON schema (a file download). */
  success: { status: 200 | 201; schema: z.ZodType; content?: Record<string, object> };
  /** Error statuses and their codes beyond the ones every operation has. */
  errors: Record<number, string[]>;
}
