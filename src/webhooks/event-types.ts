/**
 * The webhook event types (docs/webhooks.md, "Events"): per record kind, what a committed
 * change of it is called. An endpoint subscribes to some of them, or to all when it names none.
 */
export const WEBHOOK_EVENT_TYPES = [
  'client.created',
  'client.updated',
  'client.deleted',
  'project.created',
  'project.updated',
  'project.deleted',
  'task.created',
  'task.updated',
  'task.deleted',
  'time_entry.created',
  'time_entry.updated',
  'time_entry.deleted',
  'expense.created',
  'expense.updated',
  'expense.deleted',
  'invoice.created',
  'invoice.updated',
  'invoice.deleted',
  'payee.created',
  'payee.updated',
  'payee.deleted',
  'team_bill.created',
  'team_bill.updated',
  'team_bill.approved',
  'team_bill.voided',
  'team_bill.deleted',
  'team_payment.recorded',
  'team_payment.reversed',
  'team_payment.updated',
  'team_payment.deleted',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

export function isWebhookEventType(name: string): name is WebhookEventType {
  return KNOWN.has(name);
}
