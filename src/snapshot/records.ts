import { z } from 'zod';
import { currencyScale } from '../money/currencies.ts';
import { decimalTextProblem, decimalTextSign, parseDecimal, RATE_SCALE } from '../money/money.ts';
import { NUL_MESSAGE, nulPaths } from '../stored-values.ts';
import {
  snapshotCurrency as currencyCode,
  snapshotDate as isoDate,
  snapshotDecimal as decimalText,
  snapshotTimestamp as timestamp,
  snapshotUuid as uuid,
} from '../value-schemas.ts';
import {
  BILL_LINE_KINDS,
  BILL_STATUSES,
  EXPENSE_CATEGORIES,
  INVOICE_LINE_KINDS,
  INVOICE_PAYMENT_STATUSES,
  INVOICE_STATUSES,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  PROJECT_STATUSES,
  RATE_TYPES,
  SETTLEMENT_MODES,
  TASK_PRIORITIES,
  TASK_STATUSES,
} from '../value-sets.ts';

/**
 * The workspace snapshot format (shared/spec/workspace-snapshot.md), one zod schema per
 * record type. These schemas check each record on its own; what needs other records
 * (references, duplicate ids, amounts in another record's currency) is checked by the
 * importer over the whole file.
 */

const nonNegative = (maxScale = RATE_SCALE) =>
  decimalText(maxScale).refine((t) => decimalTextSign(t) >= 0, 'must not be negative');

const text = z.string().max(10_000);
const optionalText = text.nullish().transform((v) => (v === '' || v === undefined ? null : v));
const nullable = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? null);
const audit = {
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
  deletedAt: nullable(timestamp),
};

export const planSchema = z.enum(['free', 'solo', 'studio', 'agency']);
export const roleSchema = z.enum(['MEMBER', 'MANAGER', 'ADMIN', 'OWNER']);
export const scopeSchema = z.enum(['read', 'write']);

/**
 * A record type whose text holds no U+0000 anywhere (names, notes, tags, jsonb snapshots and
 * their keys): PostgreSQL cannot store it. Each such field is an issue of its own path.
 */
function withoutNul<T extends z.ZodType>(schema: T): T {
  return schema.superRefine((record, ctx) => {
    for (const path of nulPaths(record))
      ctx.addIssue({ code: 'custom', path, message: NUL_MESSAGE });
  });
}

export const workspaceRecord = withoutNul(
  z.object({
    id: uuid,
    name: z.string().trim().min(1).max(200),
    plan: planSchema,
    baseCurrency: currencyCode,
    timezone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin'),
    createdAt: timestamp.optional(),
    updatedAt: timestamp.optional(),
  }),
);

export const userRecord = z.object({
  id: uuid,
  name: z.string().trim().min(1).max(200),
  email: optionalText,
  ...audit,
});

export const memberRecord = z.object({
  userId: uuid,
  role: roleSchema,
  createdAt: timestamp.optional(),
  updatedAt: timestamp.optional(),
});

const tokenCommon = {
  userId: uuid,
  scopes: z.array(scopeSchema).min(1).default(['read', 'write']),
  createdAt: timestamp.optional(),
  lastUsedAt: nullable(timestamp),
  revokedAt: nullable(timestamp),
};
/**
 * A token is given either whole (fixtures, demo) or, as export writes it, by its public
 * prefix and the SHA-256 of its secret: the secret itself is never stored, so it cannot be
 * exported.
 */
export const tokenRecord = z.union([
  z.object({ token: z.string(), ...tokenCommon }).strict(),
  z
    .object({
      prefix: z.string().regex(/^[0-9A-Za-z]{12}$/, 'must be 12 base62 characters'),
      env: z.enum(['live', 'test']),
      secretSha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits'),
      ...tokenCommon,
    })
    .strict(),
]);

export const clientRecord = z.object({
  id: uuid,
  name: z.string().trim().min(1).max(200),
  contactName: optionalText,
  email: optionalText,
  phone: optionalText,
  website: optionalText,
  notes: optionalText,
  taxNumber: optionalText,
  billingEmail: optionalText,
  currency: nullable(currencyCode),
  billingAddress: optionalText,
  billingLine1: optionalText,
  billingLine2: optionalText,
  billingCity: optionalText,
  billingRegion: optionalText,
  billingPostalCode: optionalText,
  billingCountry: optionalText,
  defaultRate: nullable(nonNegative()),
  defaultTaxRate: nullable(nonNegative()),
  defaultPaymentTerms: optionalText,
  requirePoNumber: z.boolean().default(false),
  ...audit,
});

export const projectRecord = z.object({
  id: uuid,
  clientId: nullable(uuid),
  name: z.string().trim().min(1).max(200),
  description: optionalText,
  color: optionalText,
  status: z.enum(PROJECT_STATUSES).default('ACTIVE'),
  rateType: z.enum(RATE_TYPES).default('HOURLY'),
  hourlyRate: nullable(nonNegative()),
  fixedFeeAmount: nullable(nonNegative()),
  fixedFeePriorInvoicedAmount: nullable(nonNegative()),
  fixedFeeBillingInitializedAt: nullable(timestamp),
  budgetAmount: nullable(nonNegative()),
  budgetHours: nullable(nonNegative()),
  startDate: nullable(isoDate),
  dueDate: nullable(isoDate),
  memberIds: z.array(uuid).default([]),
  ...audit,
});

export const taskRecord = z.object({
  id: uuid,
  projectId: uuid,
  name: z.string().trim().min(1).max(200),
  description: optionalText,
  status: z.enum(TASK_STATUSES).default('TODO'),
  priority: z.enum(TASK_PRIORITIES).default('LOW'),
  billable: z.boolean().default(true),
  estimatedHours: nullable(nonNegative()),
  assigneeIds: z.array(uuid).default([]),
  tags: z.array(z.string().max(100)).default([]),
  startDate: nullable(isoDate),
  dueDate: nullable(isoDate),
  endDate: nullable(isoDate),
  ...audit,
});

export const timeEntryRecord = z
  .object({
    id: uuid,
    userId: uuid,
    projectId: uuid,
    taskId: nullable(uuid),
    invoiceId: nullable(uuid),
    entryDate: isoDate,
    durationSeconds: z.number().int().min(0).max(2_147_483_647),
    billable: z.boolean().default(true),
    isRunning: z.boolean().default(false),
    startedAt: nullable(timestamp),
    stoppedAt: nullable(timestamp),
    note: optionalText,
    ...audit,
  })
  .superRefine((e, ctx) => {
    if (e.startedAt && e.stoppedAt && e.stoppedAt < e.startedAt) {
      ctx.addIssue({
        code: 'custom',
        path: ['stoppedAt'],
        message: 'must not be before startedAt',
      });
    }
  });

export const expenseRecord = z
  .object({
    id: uuid,
    clientId: uuid,
    projectId: nullable(uuid),
    invoiceId: nullable(uuid),
    category: z.enum(EXPENSE_CATEGORIES).default('OTHER'),
    customCategory: optionalText,
    description: z.string().min(1).max(10_000),
    amount: decimalText(),
    currency: currencyCode,
    billable: z.boolean().default(true),
    expenseDate: isoDate,
    ...audit,
  })
  .superRefine((e, ctx) => {
    amountIn(ctx, e.amount, e.currency, ['amount'], { positive: true });
    if (e.customCategory !== null && e.category !== 'OTHER') {
      ctx.addIssue({
        code: 'custom',
        path: ['customCategory'],
        message: 'is only allowed with category OTHER',
      });
    }
  });

export const invoiceLineRecord = z.object({
  id: uuid,
  kind: z.enum(INVOICE_LINE_KINDS),
  timeEntryId: nullable(uuid),
  expenseId: nullable(uuid),
  projectId: nullable(uuid),
  description: optionalText,
  subtitle: optionalText,
  detail: optionalText,
  groupLabel: optionalText,
  quantity: nullable(decimalText()),
  unitPrice: nullable(decimalText()),
  amount: decimalText(),
});

export const invoiceRecord = z
  .object({
    id: uuid,
    clientId: uuid,
    number: z.string().min(1).max(100),
    status: z.enum(INVOICE_STATUSES),
    paymentStatus: z.enum(INVOICE_PAYMENT_STATUSES),
    currency: currencyCode,
    issueDate: nullable(isoDate),
    dueDate: nullable(isoDate),
    subtotal: decimalText(),
    discountAmount: decimalText().default('0'),
    taxRate: nullable(nonNegative()),
    total: decimalText(),
    amountPaid: decimalText().default('0'),
    poNumber: optionalText,
    recurring: z.boolean().default(false),
    viewed: z.boolean().default(false),
    billToName: optionalText,
    notes: optionalText,
    sentAt: nullable(timestamp),
    paidAt: nullable(timestamp),
    lines: z.array(invoiceLineRecord).default([]),
    ...audit,
  })
  .superRefine((inv, ctx) => {
    for (const field of ['subtotal', 'discountAmount', 'total', 'amountPaid'] as const) {
      amountIn(ctx, inv[field], inv.currency, [field], {
        nonNegative: field !== 'subtotal' && field !== 'total',
      });
    }
    inv.lines.forEach((line, i) =>
      amountIn(ctx, line.amount, inv.currency, ['lines', i, 'amount']),
    );
  });

export const payeeRateRecord = z.object({
  id: uuid,
  effectiveFrom: isoDate,
  hourlyRate: nonNegative(),
  currency: currencyCode,
  createdAt: timestamp.optional(),
});

export const payeeCreditRecord = z
  .object({
    id: uuid,
    currency: currencyCode,
    amount: decimalText(),
    remaining: decimalText(),
    reason: optionalText,
    createdAt: timestamp.optional(),
  })
  .superRefine((c, ctx) => {
    amountIn(ctx, c.amount, c.currency, ['amount'], { nonNegative: true });
    amountIn(ctx, c.remaining, c.currency, ['remaining'], { nonNegative: true });
    const amount = parseDecimal(c.amount, RATE_SCALE);
    const remaining = parseDecimal(c.remaining, RATE_SCALE);
    if (amount.ok && remaining.ok && remaining.value.greaterThan(amount.value)) {
      ctx.addIssue({ code: 'custom', path: ['remaining'], message: 'must not exceed amount' });
    }
  });

export const payeeRecord = z.object({
  id: uuid,
  userId: uuid,
  name: z.string().trim().min(1).max(200),
  email: optionalText,
  startDate: nullable(isoDate),
  rates: z.array(payeeRateRecord).default([]),
  credits: z.array(payeeCreditRecord).default([]),
  ...audit,
});

export const billLineRecord = z.object({
  id: uuid,
  kind: z.enum(BILL_LINE_KINDS),
  timeEntryId: nullable(uuid),
  projectId: nullable(uuid),
  taskId: nullable(uuid),
  workDate: nullable(isoDate),
  durationSeconds: nullable(z.number().int().min(0).max(2_147_483_647)),
  hourlyRate: nullable(decimalText()),
  quantity: nullable(decimalText()),
  unitPrice: nullable(decimalText()),
  amount: decimalText(),
  description: optionalText,
  sourceSnapshot: nullable(z.record(z.string(), z.unknown())),
});

export const billRecord = z
  .object({
    id: uuid,
    payeeId: uuid,
    number: z.string().min(1).max(100),
    status: z.enum(BILL_STATUSES),
    revision: z.number().int().min(1).default(1),
    currency: currencyCode,
    serviceFrom: nullable(isoDate),
    serviceTo: nullable(isoDate),
    issueDate: nullable(isoDate),
    dueDate: nullable(isoDate),
    approvedAt: nullable(timestamp),
    note: optionalText,
    voidReason: optionalText,
    lineGroupBy: optionalText,
    showProjectName: z.boolean().default(true),
    showTaskName: z.boolean().default(false),
    payeeSnapshot: nullable(z.record(z.string(), z.unknown())),
    agencySnapshot: nullable(z.record(z.string(), z.unknown())),
    lines: z.array(billLineRecord).default([]),
    ...audit,
  })
  .superRefine((bill, ctx) => {
    if (bill.serviceFrom && bill.serviceTo && bill.serviceTo < bill.serviceFrom) {
      ctx.addIssue({
        code: 'custom',
        path: ['serviceTo'],
        message: 'must not be before serviceFrom',
      });
    }
    bill.lines.forEach((line, i) => {
      amountIn(ctx, line.amount, bill.currency, ['lines', i, 'amount']);
      if (line.kind === 'TIME' && line.timeEntryId === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['lines', i, 'timeEntryId'],
          message: 'is required on a TIME line',
        });
      }
    });
  });

export const allocationRecord = z.object({
  billId: uuid,
  amount: decimalText(),
  cashAmount: nullable(decimalText()),
  cashCurrency: nullable(currencyCode),
});

export const paymentRecord = z
  .object({
    id: uuid,
    payeeId: uuid,
    currency: currencyCode,
    amount: decimalText(),
    paidDate: isoDate,
    method: z.enum(PAYMENT_METHODS),
    savedMethodId: nullable(uuid),
    reference: optionalText,
    note: optionalText,
    status: z.enum(PAYMENT_STATUSES),
    reversedAt: nullable(timestamp),
    reversalReason: optionalText,
    settlementCurrency: nullable(currencyCode),
    settlementAmount: nullable(decimalText()),
    exchangeRate: nullable(decimalText(10)),
    settlementMode: z.enum(SETTLEMENT_MODES).default('SAME_CURRENCY'),
    allocations: z.array(allocationRecord).default([]),
    ...audit,
  })
  .superRefine((p, ctx) => {
    amountIn(ctx, p.amount, p.currency, ['amount'], { positive: true });
    if ((p.status === 'REVERSED') !== (p.reversedAt !== null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['reversedAt'],
        message: 'must be set exactly when status is REVERSED',
      });
    }
    p.allocations.forEach((a, i) => {
      if (a.cashAmount !== null && a.cashCurrency !== null) {
        amountIn(ctx, a.cashAmount, a.cashCurrency, ['allocations', i, 'cashAmount']);
      }
    });
  });

export const fxRateRecord = z
  .object({
    id: uuid,
    fromCurrency: currencyCode,
    toCurrency: currencyCode,
    effectiveFrom: isoDate,
    rate: decimalText(10).refine(
      (r) => !r.startsWith('-') && !/^0*(\.0*)?$/.test(r),
      'must be positive',
    ),
    ...audit,
  })
  .refine((r) => r.fromCurrency !== r.toCurrency, {
    path: ['toCurrency'],
    message: 'must differ from fromCurrency',
  });

/** The record types of an NDJSON snapshot line (`{"type": ...}`), and the JSON array each fills. */
export const RECORD_TYPES = {
  user: { collection: 'users', schema: withoutNul(userRecord) },
  member: { collection: 'members', schema: withoutNul(memberRecord) },
  token: { collection: 'tokens', schema: withoutNul(tokenRecord) },
  client: { collection: 'clients', schema: withoutNul(clientRecord) },
  project: { collection: 'projects', schema: withoutNul(projectRecord) },
  task: { collection: 'tasks', schema: withoutNul(taskRecord) },
  timeEntry: { collection: 'timeEntries', schema: withoutNul(timeEntryRecord) },
  expense: { collection: 'expenses', schema: withoutNul(expenseRecord) },
  invoice: { collection: 'invoices', schema: withoutNul(invoiceRecord) },
  payee: { collection: 'payees', schema: withoutNul(payeeRecord) },
  bill: { collection: 'bills', schema: withoutNul(billRecord) },
  payment: { collection: 'payments', schema: withoutNul(paymentRecord) },
  fxRate: { collection: 'fxRates', schema: withoutNul(fxRateRecord) },
} as const;

export type RecordType = keyof typeof RECORD_TYPES;
export type Collection = (typeof RECORD_TYPES)[RecordType]['collection'];
export type RecordOf<T extends RecordType> = z.output<(typeof RECORD_TYPES)[T]['schema']>;
export type WorkspaceRecord = z.output<typeof workspaceRecord>;

/** Record type of a JSON collection name ("timeEntries" -> "timeEntry"). */
export const TYPE_OF_COLLECTION = Object.fromEntries(
  Object.entries(RECORD_TYPES).map(([type, { collection }]) => [collection, type]),
) as Record<Collection, RecordType>;

export const SNAPSHOT_VERSION = 1;

function amountIn(
  ctx: z.RefinementCtx,
  value: string,
  currency: string,
  path: (string | number)[],
  rule: { positive?: boolean; nonNegative?: boolean } = {},
): void {
  const scale = currencyScale(currency);
  const reason = scale === undefined ? `has unknown currency` : decimalTextProblem(value, scale);
  if (reason !== undefined) {
    ctx.addIssue({ code: 'custom', path, message: `${reason} for ${currency}` });
    return;
  }
  const sign = decimalTextSign(value);
  if (rule.positive && sign <= 0)
    ctx.addIssue({ code: 'custom', path, message: 'must be greater than 0' });
  if (rule.nonNegative && sign < 0)
    ctx.addIssue({ code: 'custom', path, message: 'must not be negative' });
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
