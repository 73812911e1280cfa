import type { Amount, GeneratedCurrency } from './amounts.ts';

/**
 * The part of a generated workspace that is held in memory for the whole run: people,
 * clients, projects, tasks and payees (thousands at most). Time entries, invoices, bills
 * and payments are streamed month by month and never kept.
 *
 * `*Json` fields are the value already JSON-encoded, for the hand-written hot-path lines.
 */
export interface WorkspaceModel {
  id: string;
  users: UserModel[];
  clients: ClientModel[];
  projects: ProjectModel[];
  payees: PayeeModel[];
}

export type Role = 'OWNER' | 'ADMIN' | 'MANAGER' | 'MEMBER';

export interface UserModel {
  index: number;
  id: string;
  name: string;
  nameJson: string;
  email: string;
  role: Role;
  /** Share of the team's hours in tenths (10 = full time, 5 = half time). */
  weight: number;
  /** Indexes of the projects the user is a member of (and logs time on). */
  projects: number[];
  /** Leaves a timer running today, when they have time in the current month. */
  runsTimer: boolean;
  payee: PayeeModel | null;
}

export interface ClientModel {
  index: number;
  id: string;
  name: string;
  /** The `currency` field: null means the workspace base currency. */
  currencyField: GeneratedCurrency | null;
  /** The currency of the client's invoices and expenses (rule: client currency, else base). */
  currency: GeneratedCurrency;
  taxRate: string | null;
  requirePoNumber: boolean;
  paymentTermsDays: number;
  projects: number[];
}

export type RateType = 'HOURLY' | 'FIXED' | 'NON_BILLABLE';

export interface ProjectModel {
  index: number;
  id: string;
  name: string;
  nameJson: string;
  clientIndex: number | null;
  rateType: RateType;
  hourlyRate: string | null;
  /** RateBook key of the hourly rate in the client's currency; -1 when not HOURLY. */
  rateKey: number;
  fixedFee: Amount | null;
  tasks: TaskModel[];
  members: number[];
  /**
   * Per task (index + 1; 0 = no task), JSON fields of the lines of an entry:
   * `"projectId":"…","taskId":"…"` and the line description (task name, else project name).
   */
  lineFields: { entry: string; description: string }[];
}

export interface TaskModel {
  id: string;
  name: string;
  nameJson: string;
  billable: boolean;
}

export interface PayeeModel {
  id: string;
  userIndex: number;
  startDay: number | null;
  /** Ordered by `fromDay`; a currency changes only on the first of a month (one per bill). */
  rates: PayeeRateModel[];
}

export interface PayeeRateModel {
  id: string;
  fromDay: number;
  hourlyRate: string;
  currency: GeneratedCurrency;
  /** RateBook key. */
  key: number;
}

/** The pay rate of a payee on a day: the one with the latest `fromDay` on or before it. */
export function payeeRateAt(payee: PayeeModel, day: number): PayeeRateModel | null {
  for (let i = payee.rates.length - 1; i >= 0; i--) {
    const rate = payee.rates[i];
    if (rate && rate.fromDay <= day) return rate;
  }
  return null;
}
