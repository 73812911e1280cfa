/**
 * The fields of a workspace snapshot (docs/contract.md, "Workspace snapshot") that the oracle
 * reads, nothing more. Collections may be left out (read as empty), and so may every field
 * the snapshot format lets a file omit; the defaults below are the importer's documented
 * ones (`billable` true, `isRunning` false, `discountAmount` and `amountPaid` "0").
 */
export interface SnapshotInput {
  workspace: { baseCurrency: string };
  users?: readonly { id: string; name: string }[];
  projects?: readonly { id: string; name: string; clientId?: string | null }[];
  tasks?: readonly { id: string; name: string }[];
  timeEntries?: readonly TimeEntryInput[];
  invoices?: readonly InvoiceInput[];
  payees?: readonly PayeeInput[];
  bills?: readonly BillInput[];
  payments?: readonly PaymentInput[];
  fxRates?: readonly FxRateInput[];
}

type Deletable = { deletedAt?: string | null };

export interface TimeEntryInput extends Deletable {
  id: string;
  userId: string;
  projectId: string;
  taskId?: string | null;
  entryDate: string;
  durationSeconds: number;
  billable?: boolean;
  isRunning?: boolean;
  note?: string | null;
}

export interface InvoiceLineInput {
  id: string;
  timeEntryId?: string | null;
  projectId?: string | null;
  amount: string;
}

export interface InvoiceInput extends Deletable {
  id: string;
  clientId: string;
  status: 'DRAFT' | 'SENT' | 'PAID' | 'CANCELLED';
  currency: string;
  issueDate?: string | null;
  subtotal: string;
  discountAmount?: string;
  total: string;
  amountPaid?: string;
  lines?: readonly InvoiceLineInput[];
}

export interface PayRateInput {
  id: string;
  effectiveFrom: string;
  hourlyRate: string;
  currency: string;
}

export interface PayeeInput extends Deletable {
  id: string;
  userId: string;
  name: string;
  startDate?: string | null;
  rates?: readonly PayRateInput[];
  credits?: readonly { id: string; currency: string; remaining: string }[];
}

export interface BillLineInput {
  id: string;
  kind: 'TIME' | 'EXPENSE' | 'ADJUSTMENT';
  timeEntryId?: string | null;
  amount: string;
}

export interface BillInput extends Deletable {
  id: string;
  status: 'DRAFT' | 'APPROVED' | 'VOID';
  currency: string;
  dueDate?: string | null;
  lines?: readonly BillLineInput[];
}

export interface PaymentInput extends Deletable {
  id: string;
  currency: string;
  amount: string;
  paidDate: string;
  status: 'RECORDED' | 'REVERSED';
  createdAt?: string | null;
  allocations?: readonly { billId: string; amount: string }[];
}

export interface FxRateInput extends Deletable {
  id: string;
  fromCurrency: string;
  toCurrency: string;
  effectiveFrom: string;
  rate: string;
  createdAt?: string | null;
}

/** A record counts unless it carries a `deletedAt`. */
export function isLive(record: Deletable): boolean {
  return record.deletedAt === undefined || record.deletedAt === null;
}

/** Code-point order of two strings (what a binary SQL collation does), for sorts and ties. */
export function compareText(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) ?? 0);
  const y = [...b].map((c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return x.length - y.length;
}
