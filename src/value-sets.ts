// The value sets of the contract (docs/contract.md, "Value sets", and its records' enums), in one
// place: the snapshot format, the API's records and filters, and the generator all read them here.

export const PROJECT_STATUSES = ['ACTIVE', 'COMPLETED', 'ARCHIVED'] as const;
export const RATE_TYPES = ['HOURLY', 'FIXED', 'NON_BILLABLE'] as const;
export const TASK_STATUSES = ['TODO', 'IN_PROGRESS', 'DONE'] as const;
export const TASK_PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'] as const;
export const EXPENSE_CATEGORIES = [
  'TRAVEL',
  'MEALS',
  'LODGING',
  'SOFTWARE',
  'EQUIPMENT',
  'SUBCONTRACTOR',
  'OTHER',
] as const;
export const INVOICE_STATUSES = ['DRAFT', 'SENT', 'PAID', 'CANCELLED'] as const;
export const INVOICE_PAYMENT_STATUSES = ['unpaid', 'partially_paid', 'paid', 'refunded'] as const;
export const INVOICE_LINE_KINDS = ['TIME', 'EXPENSE', 'FIXED_FEE', 'OTHER'] as const;
export const BILL_STATUSES = ['DRAFT', 'APPROVED', 'VOID'] as const;
export const BILL_PAYMENT_STATUSES = ['UNPAID', 'PARTIALLY_PAID', 'PAID'] as const;
export const BILL_LINE_KINDS = ['TIME', 'EXPENSE', 'ADJUSTMENT'] as const;
export const PAYMENT_STATUSES = ['RECORDED', 'REVERSED'] as const;
export const PAYMENT_METHODS = [
  'BANK_TRANSFER',
  'WISE',
  'PAYPAL',
  'CHECK',
  'CASH',
  'OTHER',
] as const;
export const SETTLEMENT_MODES = ['SAME_CURRENCY', 'CONVERTED'] as const;
export const ROLES = ['MEMBER', 'MANAGER', 'ADMIN', 'OWNER'] as const;
