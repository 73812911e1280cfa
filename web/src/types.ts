import type { paths } from './generated/api.ts';

// The API's answers as the dashboard reads them: the types openapi-typescript writes from the
// served OpenAPI document (web/src/generated/api.ts, written by `npm run generate` and checked
// by `npm run check`), so a field the API changes is a type error here. Money, rates and
// percentages are decimal strings.

/** The JSON body of a route's answer with `status`. */
type Answer<
  P extends keyof paths,
  M extends 'get' | 'post' = 'get',
  S extends number = 200,
> = paths[P][M] extends { responses: infer R }
  ? S extends keyof R
    ? R[S] extends { content: { 'application/json': infer B } }
      ? B
      : never
    : never
  : never;

/** Its `data`. */
type Data<P extends keyof paths, M extends 'get' | 'post' = 'get', S extends number = 200> =
  Answer<P, M, S> extends { data: infer D } ? D : never;

export type PayoutSummary = Data<'/team-payouts/summary'>;
export type PayoutCurrency = PayoutSummary['currencies'][number];

export type Profitability = Data<'/team-payouts/profitability'>;
export type MetricsRow = Profitability['summary'];
/** A member's row; without projectCount and projects in an answer to projects=none. */
export type MemberRow = Profitability['members'][number];
/** A figure of a row: the ones that can be missing, and the margin made of them. */
export type Metric = MetricsRow['missingMetrics'][number] | 'margin';

export type Bill = Data<'/team-payouts/bills'>[number];
export type UnpaidItem = Data<'/team-payouts/unpaid-time'>[number];
export type Payee = Data<'/team-payouts/payees'>[number];

/** A list answer's paging (`pagination`). */
export type Pagination = Answer<'/team-payouts/bills'>['pagination'];

/** `data` of GET /team-payouts/profitability/series: the figures per month or week. */
export type Series = Data<'/team-payouts/profitability/series'>;

/** A webhook endpoint (GET /webhooks, docs/webhooks.md). `events` null: every type. */
export type WebhookEndpoint = Data<'/webhooks'>[number];
/** The answer of POST /webhooks: the endpoint with its signing secret, shown in it only. */
export type WebhookWithSecret = Data<'/webhooks', 'post', 201>;
/** One delivery attempt (GET /webhooks/{id}/deliveries), newest first. */
export type WebhookAttempt = Data<'/webhooks/{id}/deliveries'>[number];
