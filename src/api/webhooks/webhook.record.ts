import { z } from 'zod';
import type { Selectable } from 'kysely';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/event-types.ts';
import type { WebhookEndpointTable } from '../../store/schema.ts';

/** An endpoint's state: receiving, failing (an event's retries ran out), or disabled. */
export const WEBHOOK_STATUSES = ['active', 'failing', 'disabled'] as const;

/** A webhook endpoint as the API answers it (docs/webhooks.md); its secret only when made. */
export const webhookRecord = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES))
    .nullable()
    .meta({ description: 'The event types sent; null: every type, also those added later.' }),
  description: z.string().nullable(),
  enabled: z.boolean(),
  status: z.enum(WEBHOOK_STATUSES),
  failingSince: z.string().nullable(),
  disabledReason: z.string().nullable(),
  /** Until when the previous secret still signs, beside the current one, after a rotation. */
  previousSecretUntil: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookRecord = z.infer<typeof webhookRecord>;

/** The record with its signing secret: the answer of a create and of a rotation, shown once. */
export const webhookWithSecret = webhookRecord.extend({
  secret: z.string().meta({ description: '`whsec_` + base64; shown only in this answer.' }),
});

export type WebhookEndpointRow = Selectable<WebhookEndpointTable>;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function webhookRowToRecord(row: WebhookEndpointRow, now = new Date()): WebhookRecord {
  const status = !row.enabled ? 'disabled' : row.failing_since !== null ? 'failing' : 'active';
  const previousUntil =
    row.previous_secret_until !== null && row.previous_secret_until > now
      ? row.previous_secret_until
      : null;
  return {
    id: row.id,
    url: row.url,
    events: (row.events as WebhookRecord['events']) ?? null,
    description: row.description,
    enabled: row.enabled,
    status,
    failingSince: iso(row.failing_since),
    disabledReason: row.disabled_reason,
    previousSecretUntil: iso(previousUntil),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** One delivery attempt, as GET /webhooks/{id}/deliveries answers it. */
export const webhookAttemptRecord = z.object({
  eventId: z.string(),
  eventType: z.string(),
  attemptedAt: z.string(),
  statusCode: z.int().nullable(),
  error: z.string().nullable(),
  durationMs: z.int(),
});
