import { randomBytes } from 'node:crypto';

/** A new signing secret as the Standard Webhooks spec gives it: `whsec_` + base64 of 32 bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** How long the previous secret still signs after a rotation, beside the new one. */
export const ROTATED_SECRET_MS = 24 * 60 * 60 * 1000;
