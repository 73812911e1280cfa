import { z } from 'zod';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from '../../webhooks/event-types.ts';
import { targetFormProblem } from '../../webhooks/target.ts';
import { optionalText } from '../write-body.ts';

const url = z.string({ error: 'is required, as text' }).superRefine((value, ctx) => {
  const problem = targetFormProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

const events = z
  .array(z.string())
  .min(1, 'must name at least one event type (leave it out for all of them)')
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .superRefine((names, ctx) => {
    const unknown = names.filter((n) => !isWebhookEventType(n));
    if (unknown.length > 0)
      ctx.addIssue({
        code: 'custom',
        message: `names unknown event types: ${unknown.join(', ')} (known: ${WEBHOOK_EVENT_TYPES.join(', ')})`,
      });
  })
  .transform((names) => [...new Set(names)].sort());

const description = optionalText(500);

/** POST /webhooks. */
export const webhookCreateInput = z
  .object({ url, events: events.optional(), description: description.optional() })
  .strict();
export type WebhookCreateInput = z.infer<typeof webhookCreateInput>;

/** PATCH /webhooks/{id}: any of the fields; `events: null` subscribes to every type again. */
export const webhookUpdateInput = z
  .object({
    url: url.optional(),
    events: events.nullable().optional(),
    description: description.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type WebhookUpdateInput = z.infer<typeof webhookUpdateInput>;

/** POST /webhooks/{id}/replay: every event since `since` is queued again for the endpoint. */
export const webhookReplayInput = z.object({ since: z.iso.datetime({ offset: true }) }).strict();
