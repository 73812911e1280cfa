// The API's answers as the dashboard reads them (docs/api.md and the served OpenAPI document).
// Money, rates and percentages are decimal strings.

export interface PayoutCurrency {
  currency: string;
  eligibleSeconds: number;
  unbilledFrom: string | null;
  unbilledTo: string | null;
  accrued: string;
  approved: string;
  paid: string;
  outstanding: string;
  overdue: string;
  credit: string;
}

export interface PayoutSummary {
  canManage: boolean;
  currencies: PayoutCurrency[];
  missingRateCount: number;
  eligibleSeconds: number;
  memberCount: number;
  lastPaymentDate: string | null;
  lastPaymentAmount: string | null;
  lastPaymentCurrency: string | null;
}

export type Metric =
  | 'billedNet'
  | 'collectedNet'
  | 'compensationCost'
  | 'approvedCost'
  | 'estimatedCost'
  | 'paid'
  | 'pending'
  | 'margin';

export interface MetricsRow {
  userId: string | null;
  payeeId: string | null;
  name: string | null;
  projectId: string | null;
  projectName: string | null;
  billedNet: string;
  collectedNet: string;
  compensationCost: string;
  approvedCost: string;
  estimatedCost: string;
  paid: string;
  pending: string;
  margin: string;
  marginPercent: string | null;
  clientUnbilledSeconds: number;
  missingFx: boolean;
  missingPayRate: boolean;
  missingMetrics: Metric[];
  nativeAmounts: { currency: string; metric: Metric; amount: string }[];
}

/** A member's row; without projectCount and projects in an answer to projects=none. */
export interface MemberRow extends MetricsRow {
  projectCount?: number;
  projects?: MetricsRow[];
}

export interface Profitability {
  from: string;
  to: string;
  view: string;
  baseCurrency: string;
  page: number;
  perPage: number;
  memberTotal: number;
  missingRateCount: number;
  summary: MetricsRow;
  members: MemberRow[];
  unallocatedRevenue: { currency: string; amount: string }[];
  unreconciledReceipts: { currency: string; amount: string }[];
  missingFx: { fromCurrency: string; toCurrency: string; amount: string; metric: Metric }[];
  fxRates: {
    id: string;
    fromCurrency: string;
    toCurrency: string;
    effectiveFrom: string;
    rate: string;
    used: boolean;
  }[];
}

export interface Bill {
  id: string;
  payeeId: string;
  number: string;
  status: string;
  paymentStatus: string;
  currency: string;
  total: string;
  remaining: string;
  dueDate: string | null;
}

export interface UnpaidItem {
  id: string;
  payeeId: string;
  name: string;
  projectName: string | null;
  taskName: string | null;
  description: string | null;
  currency: string;
  workDate: string;
  durationSeconds: number;
  hourlyRate: string;
  amount: string;
  section: string;
}

export interface Payee {
  id: string;
  name: string;
}

/** A list answer's paging (`pagination`). */
export interface Pagination {
  limit: number;
  nextCursor: string | null;
}

/** `data` of GET /team-payouts/profitability/series: the figures per month or week. */
export interface Series {
  from: string;
  to: string;
  interval: 'month' | 'week';
  baseCurrency: string;
  points: (Omit<
    MetricsRow,
    'userId' | 'payeeId' | 'name' | 'projectId' | 'projectName' | 'nativeAmounts' | 'links'
  > & { from: string; to: string })[];
}

/** A webhook endpoint (GET /webhooks, docs/webhooks.md). `events` null: every type. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[] | null;
  description: string | null;
  enabled: boolean;
  status: 'active' | 'failing' | 'disabled';
  failingSince: string | null;
  disabledReason: string | null;
  previousSecretUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The answer of POST /webhooks: the endpoint with its signing secret, shown in it only. */
export interface WebhookWithSecret extends WebhookEndpoint {
  secret: string;
}

/** One delivery attempt (GET /webhooks/{id}/deliveries), newest first. */
export interface WebhookAttempt {
  eventId: string;
  eventType: string;
  attemptedAt: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}
