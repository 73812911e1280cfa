import { z } from 'zod';
import { currencyScale } from '../money/currencies.ts';
import { decimalTextProblem, decimalTextSign, parseDecimal, RATE_SCALE } from '../money/money.ts';
import { NUL_MESSAGE, nulPaths } from '../stored-values.ts';
import { beforeAudit } from '../entities/entity.ts';
import { allocationEntity } from '../entities/allocation.entity.ts';
import { billLineEntity } from '../entities/bill-line.entity.ts';
import { billEntity } from '../entities/bill.entity.ts';
import { clientEntity } from '../entities/client.entity.ts';
import { expenseEntity } from '../entities/expense.entity.ts';
import { fxRateEntity } from '../entities/fx-rate.entity.ts';
import { invoiceLineEntity } from '../entities/invoice-line.entity.ts';
import { invoiceEntity } from '../entities/invoice.entity.ts';
import { payeeCreditEntity, payeeEntity, payeeRateEntity } from '../entities/payee.entity.ts';
import { paymentEntity } from '../entities/payment.entity.ts';
import { projectEntity } from '../entities/project.entity.ts';
import { taskEntity } from '../entities/task.entity.ts';
import { timeEntryEntity } from '../entities/time-entry.entity.ts';
import { memberEntity, userEntity } from '../entities/user.entity.ts';
import {
  snapshotCurrency as currencyCode,
  snapshotName,
  snapshotOrNull as nullable,
  snapshotTimestamp as timestamp,
  snapshotUuid as uuid,
} from '../value-schemas.ts';
import { ROLES } from '../value-sets.ts';

/**
 * The workspace snapshot format (docs/contract.md, "Workspace snapshot"), one zod schema per
 * record type. These schemas check each record on its own; what needs other records
 * (references, duplicate ids, amounts in another record's currency) is checked by the
 * importer over the whole file. An entity's fields, their order and their value rules come
 * from its declaration (src/entities/); what is here is what spans its fields (an amount in
 * the record's currency, one date not before another) and the lists a record nests.
 */

export const planSchema = z.enum(['free', 'solo', 'studio', 'agency']);
export const roleSchema = z.enum(ROLES);
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
    name: snapshotName,
    plan: planSchema,
    baseCurrency: currencyCode,
    timezone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin'),
    createdAt: timestamp.optional(),
    updatedAt: timestamp.optional(),
  }),
);

export const userRecord = z.object(userEntity.snapshot.shape);

export const memberRecord = z.object(memberEntity.snapshot.shape);

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

export const clientRecord = z.object(clientEntity.snapshot.shape);

export const projectRecord = z.object(
  beforeAudit(projectEntity.snapshot.shape, { memberIds: z.array(uuid).default([]) }),
);

export const taskRecord = z.object(taskEntity.snapshot.shape);

export const timeEntryRecord = z.object(timeEntryEntity.snapshot.shape).superRefine((e, ctx) => {
  if (e.startedAt && e.stoppedAt && e.stoppedAt < e.startedAt) {
    ctx.addIssue({
      code: 'custom',
      path: ['stoppedAt'],
      message: 'must not be before startedAt',
    });
  }
});

export const expenseRecord = z.object(expenseEntity.snapshot.shape).superRefine((e, ctx) => {
  amountIn(ctx, e.amount, e.currency, ['amount'], { positive: true });
  if (e.customCategory !== null && e.category !== 'OTHER') {
    ctx.addIssue({
      code: 'custom',
      path: ['customCategory'],
      message: 'is only allowed with category OTHER',
    });
  }
});

export const invoiceLineRecord = z.object(invoiceLineEntity.snapshot.shape);

export const invoiceRecord = z
  .object(
    beforeAudit(invoiceEntity.snapshot.shape, { lines: z.array(invoiceLineRecord).default([]) }),
  )
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

export const payeeRateRecord = z.object(payeeRateEntity.snapshot.shape);

export const payeeCreditRecord = z
  .object(payeeCreditEntity.snapshot.shape)
  .superRefine((c, ctx) => {
    amountIn(ctx, c.amount, c.currency, ['amount'], { nonNegative: true });
    amountIn(ctx, c.remaining, c.currency, ['remaining'], { nonNegative: true });
    const amount = parseDecimal(c.amount, RATE_SCALE);
    const remaining = parseDecimal(c.remaining, RATE_SCALE);
    if (amount.ok && remaining.ok && remaining.value.greaterThan(amount.value)) {
      ctx.addIssue({ code: 'custom', path: ['remaining'], message: 'must not exceed amount' });
    }
  });

export const payeeRecord = z.object(
  beforeAudit(payeeEntity.snapshot.shape, {
    rates: z.array(payeeRateRecord).default([]),
    credits: z.array(payeeCreditRecord).default([]),
  }),
);

export const billLineRecord = z.object(billLineEntity.snapshot.shape);

export const billRecord = z
  .object(beforeAudit(billEntity.snapshot.shape, { lines: z.array(billLineRecord).default([]) }))
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

export const allocationRecord = z.object(allocationEntity.snapshot.shape);

export const paymentRecord = z
  .object(
    beforeAudit(paymentEntity.snapshot.shape, {
      allocations: z.array(allocationRecord).default([]),
    }),
  )
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
  .object(fxRateEntity.snapshot.shape)
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
