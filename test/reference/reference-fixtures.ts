import type {
  BillInput,
  InvoiceInput,
  PayeeInput,
  PayRateInput,
  SnapshotInput,
  TimeEntryInput,
} from './reference-snapshot.ts';

/**
 * Tiny builders for the hand-worked snapshots of the reference tests: each fills only what a
 * test does not care about, so the numbers a test checks stay visible in the test itself.
 */

/** Readable UUIDs: id(0x101) = 00000000-0000-4000-8000-000000000101. */
export const id = (n: number): string =>
  `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export const ADA = id(0x11);
export const BEN = id(0x12);
export const CY = id(0x13);
export const PAYEE_ADA = id(0x21);
export const PAYEE_BEN = id(0x22);
export const CLIENT_GLOBEX = id(0x31);
export const CLIENT_INITECH = id(0x32);
export const WEBSITE = id(0x41); // project of Globex
export const APP = id(0x42); // project of Initech
export const DESIGN = id(0x51); // task of WEBSITE

/** Entry number n has id entryId(n). */
export const entryId = (n: number): string => id(0x1000 + n);

/** A one-hour billable entry of Ada on Website, 2026-10-05, unless told otherwise. */
export function entry(n: number, fields: Partial<TimeEntryInput> = {}): TimeEntryInput {
  return {
    id: entryId(n),
    userId: ADA,
    projectId: WEBSITE,
    entryDate: '2026-10-05',
    durationSeconds: 3600,
    ...fields,
  };
}

/** Rate number n has id rateId(n). */
export const rateId = (n: number): string => id(0x2000 + n);
export function rate(
  n: number,
  effectiveFrom: string,
  hourlyRate: string,
  currency = 'EUR',
): PayRateInput {
  return { id: rateId(n), effectiveFrom, hourlyRate, currency };
}

/** Ada's payee ("Ada L. (contractor)"), no start date, unless told otherwise. */
export function payeeAda(fields: Partial<PayeeInput> = {}): PayeeInput {
  return { id: PAYEE_ADA, userId: ADA, name: 'Ada L. (contractor)', ...fields };
}

/** An APPROVED EUR bill number n of Ada's payee, unless told otherwise. */
export function bill(n: number, fields: Partial<BillInput> = {}): BillInput {
  return { id: billId(n), status: 'APPROVED', currency: 'EUR', lines: [], ...fields };
}
export const billId = (n: number): string => id(0x3000 + n);

/** A TIME line (number n) for an entry. */
export function timeLine(n: number, timeEntryId: string, amount: string) {
  return { id: id(0x3100 + n), kind: 'TIME' as const, timeEntryId, amount };
}

/** A SENT EUR invoice number n to Globex, issued 2026-10-31, without discount, unpaid. */
export function invoice(n: number, fields: Partial<InvoiceInput> = {}): InvoiceInput {
  return {
    id: id(0x4000 + n),
    clientId: CLIENT_GLOBEX,
    status: 'SENT',
    currency: 'EUR',
    issueDate: '2026-10-31',
    subtotal: '0',
    total: '0',
    lines: [],
    ...fields,
  };
}

/** An invoice line (number n). */
export function invoiceLine(n: number, amount: string, timeEntryId: string | null = null) {
  return { id: id(0x4100 + n), amount, timeEntryId };
}

/** A workspace (base EUR) with Ada, Ben and Cy, Globex's Website and Initech's App. */
export function workspace(
  parts: Omit<SnapshotInput, 'workspace'> & { baseCurrency?: string },
): SnapshotInput {
  const { baseCurrency = 'EUR', ...rest } = parts;
  return {
    workspace: { baseCurrency },
    users: [
      { id: ADA, name: 'Ada Lovelace' },
      { id: BEN, name: 'Ben Okafor' },
      { id: CY, name: 'Cy Young' },
    ],
    projects: [
      { id: WEBSITE, name: 'Website', clientId: CLIENT_GLOBEX },
      { id: APP, name: 'App', clientId: CLIENT_INITECH },
    ],
    tasks: [{ id: DESIGN, name: 'Design' }],
    ...rest,
  };
}
