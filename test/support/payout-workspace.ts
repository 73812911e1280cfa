import type { DuckDBConnection } from '@duckdb/node-api';
import { openReadModel } from '../../src/readmodel/read-model.ts';
import { profitabilityTables } from '../../src/reports/profitability/profitability.derived.ts';
import { teamPayoutTables } from '../../src/reports/team-payouts/team-payouts.derived.ts';
import { READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

/**
 * A small hand-made workspace for the team payout tests (docs/contract.md, "Bill amounts",
 * "Unpaid-time item", "Summary per currency" and "Summary totals"), inserted straight into the
 * read-model tables: test/reports/bill-figures.test.ts, unpaid-time-items.test.ts and
 * payout-summary.test.ts. Every expected figure of those tests is worked out by hand in the
 * comments beside the data below.
 */

export const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export const W1 = id(0xa1); // the workspace under test
export const W2 = id(0xa2); // another workspace: nothing of it may leak into W1
export const TODAY = '2026-11-20';

// Users. Dan has no payee; Eve's payee is deleted. Ada's id also exists in W2 (user ids are
// per workspace), so every join must match on workspace_id too.
export const ADA = id(0xb1);
export const BEN = id(0xb2);
export const CHIYO = id(0xb3);
export const DAN = id(0xb4);
export const EVE = id(0xb5);

export const P_ADA = id(0xc1);
export const P_BEN = id(0xc2);
export const P_CHIYO = id(0xc3);
export const P_EVE = id(0xc5);
export const P_ADA_W2 = id(0xc9);

export const PROJECT = id(0xd1);
export const TASK_DESIGN = id(0xd2);
export const TASK_OLD = id(0xd3); // archived (deleted) task: its name still labels the work
export const PROJECT_W2 = id(0xd9);

// Time entries: Ada 0x1xx, Ben 0x2xx, Chiyo 0x3xx, Dan 0x4xx, Eve 0x5xx, W2 0x9xx.
export const E = (n: number) => id(0x100 + n);
export const F = (n: number) => id(0x200 + n);
export const G = (n: number) => id(0x300 + n);

// Bills 0xfNN, bill lines 0xfNNx, payments 0xeNN.
export const B = (n: number) => id(0xf00 + n);
export const PM = (n: number) => id(0xe00 + n);

export type SqlValue = string | number | boolean | null;

let db: DuckDBConnection;

export async function insert(table: string, row: Record<string, SqlValue>): Promise<void> {
  const columns = Object.keys(row);
  await db.run(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `$${c}`).join(', ')})`,
    row,
  );
}

export const STAMP = '2026-09-01T00:00:00Z';
export const audit = (deleted = false) => ({
  created_at: STAMP,
  updated_at: STAMP,
  deleted_at: deleted ? '2026-11-19T12:00:00Z' : null,
});

export async function workspace(ws: string, name: string): Promise<void> {
  await insert('workspaces', {
    id: ws,
    name,
    plan: 'agency',
    base_currency: 'EUR',
    timezone: 'Europe/Berlin',
    ...audit(),
  });
}

export async function user(ws: string, userId: string, name: string): Promise<void> {
  await insert('users', { workspace_id: ws, id: userId, name, email: null, ...audit() });
}

export async function payee(
  ws: string,
  payeeId: string,
  userId: string,
  name: string,
  startDate: string | null,
  deleted = false,
): Promise<void> {
  await insert('payees', {
    id: payeeId,
    workspace_id: ws,
    user_id: userId,
    name,
    email: null,
    start_date: startDate,
    ...audit(deleted),
  });
}

export async function rate(
  ws: string,
  payeeId: string,
  rateId: number,
  effectiveFrom: string,
  hourlyRate: string,
  currency: string,
  deleted = false,
): Promise<void> {
  await insert('payee_rates', {
    id: id(rateId),
    workspace_id: ws,
    payee_id: payeeId,
    effective_from: effectiveFrom,
    hourly_rate: hourlyRate,
    currency,
    ...audit(deleted),
  });
}

export async function credit(
  payeeId: string,
  creditId: number,
  currency: string,
  amount: string,
  remaining: string,
  deleted = false,
): Promise<void> {
  await insert('payee_credits', {
    id: id(creditId),
    workspace_id: W1,
    payee_id: payeeId,
    currency,
    amount,
    remaining,
    reason: 'Advance',
    ...audit(deleted),
  });
}

export interface EntrySpec {
  ws?: string;
  project?: string;
  task?: string | null;
  billable?: boolean;
  running?: boolean;
  deleted?: boolean;
  note?: string | null;
}

export async function entry(
  entryId: string,
  userId: string,
  entryDate: string,
  seconds: number,
  spec: EntrySpec = {},
): Promise<void> {
  await insert('time_entries', {
    id: entryId,
    workspace_id: spec.ws ?? W1,
    user_id: userId,
    project_id: spec.project ?? PROJECT,
    task_id: spec.task === undefined ? TASK_DESIGN : spec.task,
    invoice_id: null,
    entry_date: entryDate,
    duration_seconds: seconds,
    billable: spec.billable ?? true,
    is_running: spec.running ?? false,
    started_at: null,
    stopped_at: null,
    note: spec.note === undefined ? `work ${entryDate}` : spec.note,
    ...audit(spec.deleted),
  });
}

export interface LineSpec {
  kind: 'TIME' | 'EXPENSE' | 'ADJUSTMENT';
  amount: string;
  entry?: string;
}

export async function bill(
  billId: string,
  spec: {
    payee: string;
    number: string;
    status: string;
    currency: string;
    due: string;
    deleted?: boolean;
  },
  lines: LineSpec[],
): Promise<void> {
  await insert('team_bills', {
    id: billId,
    workspace_id: W1,
    payee_id: spec.payee,
    number: spec.number,
    status: spec.status,
    revision: 1,
    currency: spec.currency,
    service_from: '2026-10-01',
    service_to: '2026-10-31',
    issue_date: '2026-11-01',
    due_date: spec.due,
    approved_at: spec.status === 'DRAFT' ? null : '2026-11-01T10:00:00Z',
    note: null,
    void_reason: spec.status === 'VOID' ? 'Issued twice' : null,
    line_group_by: 'project',
    show_project_name: true,
    show_task_name: false,
    ...audit(spec.deleted),
  });
  for (const [position, line] of lines.entries()) {
    await insert('team_bill_lines', {
      id: id(parseInt(billId.slice(-3), 16) * 16 + position),
      workspace_id: W1,
      bill_id: billId,
      position,
      kind: line.kind,
      time_entry_id: line.entry ?? null,
      project_id: line.entry ? PROJECT : null,
      amount: line.amount,
      description: line.kind,
    });
  }
}

export async function payment(
  paymentId: string,
  spec: {
    ws?: string;
    payee: string;
    currency: string;
    amount: string;
    paidDate: string;
    createdAt: string;
    status?: 'RECORDED' | 'REVERSED';
    deleted?: boolean;
  },
  allocations: { bill: string; amount: string }[] = [],
): Promise<void> {
  const status = spec.status ?? 'RECORDED';
  await insert('team_payments', {
    id: paymentId,
    workspace_id: spec.ws ?? W1,
    payee_id: spec.payee,
    currency: spec.currency,
    amount: spec.amount,
    paid_date: spec.paidDate,
    method: 'BANK_TRANSFER',
    status,
    reversed_at: status === 'REVERSED' ? '2026-11-16T09:00:00Z' : null,
    settlement_mode: 'SAME_CURRENCY',
    created_at: spec.createdAt,
    updated_at: spec.createdAt,
    deleted_at: spec.deleted ? '2026-11-19T12:00:00Z' : null,
  });
  for (const [position, allocation] of allocations.entries()) {
    await insert('team_payment_allocations', {
      workspace_id: spec.ws ?? W1,
      payment_id: paymentId,
      bill_id: allocation.bill,
      position,
      amount: allocation.amount,
      cash_amount: allocation.amount,
      cash_currency: spec.currency,
    });
  }
}

export async function seedWorkspaces(): Promise<void> {
  await workspace(W1, 'Northwind Studio');
  await workspace(W2, 'Other Agency');
  for (const [userId, name] of [
    [ADA, 'Ada Lovelace'],
    [BEN, 'Ben Okafor'],
    [CHIYO, 'Chiyo Tanaka'],
    [DAN, 'Dan Reyes'],
    [EVE, 'Eve Martin'],
  ] as const) {
    await user(W1, userId, name);
  }
  await user(W2, ADA, 'Ada Lovelace');

  await insert('projects', {
    id: PROJECT,
    workspace_id: W1,
    client_id: null,
    name: 'Website relaunch',
    status: 'ACTIVE',
    rate_type: 'HOURLY',
    ...audit(),
  });
  await insert('projects', {
    id: PROJECT_W2,
    workspace_id: W2,
    client_id: null,
    name: 'Other project',
    status: 'ACTIVE',
    rate_type: 'HOURLY',
    ...audit(),
  });
  for (const [taskId, name, deleted] of [
    [TASK_DESIGN, 'Design', false],
    [TASK_OLD, 'Old wireframes', true],
  ] as const) {
    await db.run(
      `INSERT INTO tasks (id, workspace_id, project_id, name, status, priority, billable,
         assignee_ids, tags, created_at, updated_at, deleted_at)
       VALUES ($id, $ws, $project, $name, 'DONE', 'LOW', true, [], [], $stamp, $stamp, $deleted)`,
      { id: taskId, ws: W1, project: PROJECT, name, stamp: STAMP, deleted: deleted ? STAMP : null },
    );
  }

  // ---- Ada: no start date. Rates EUR 18.00 from 10-01, 45.50 from 10-16 (mid-month); the
  // 99.00 from 10-10 is deleted, so 10-10..10-15 stay at 18.00.
  await payee(W1, P_ADA, ADA, 'Ada Lovelace', null);
  await rate(W1, P_ADA, 0xc11, '2026-10-01', '18.0000', 'EUR');
  await rate(W1, P_ADA, 0xc12, '2026-10-10', '99.0000', 'EUR', true);
  await rate(W1, P_ADA, 0xc13, '2026-10-16', '45.5000', 'EUR');
  // E01: 100 s x 18.00 / 3600 = 0.50 exactly
  await entry(E(1), ADA, '2026-10-02', 100);
  // E02: 1 s x 18.00 / 3600 = 0.005 -> half away from zero -> 0.01
  await entry(E(2), ADA, '2026-10-03', 1);
  // E03: 3600 s x 18.00 = 18.00 (on the deleted APPROVED bill B7 only: still unpaid)
  await entry(E(3), ADA, '2026-10-12', 3600);
  // E04: 5400 s on the day 45.50 starts: 1.5 h x 45.50 = 68.25
  await entry(E(4), ADA, '2026-10-16', 5400);
  // E05: non-billable, 2 h x 45.50 = 91.00, section non_billable (not accrued)
  await entry(E(5), ADA, '2026-10-20', 7200, { billable: false });
  // E06, E13: before Ada's first rate -> no rate -> missing rate (billable or not)
  await entry(E(6), ADA, '2026-09-20', 3600, { billable: false });
  await entry(E(13), ADA, '2026-09-21', 1200);
  // E07: on the APPROVED bill B1 -> not unpaid
  await entry(E(7), ADA, '2026-10-05', 7200);
  // E08: on the DRAFT bill B2 -> unpaid, 1 h x 18.00 = 18.00
  await entry(E(8), ADA, '2026-10-06', 3600);
  // E09: on the VOID bill B3 -> unpaid, 0.5 h x 18.00 = 9.00
  await entry(E(9), ADA, '2026-10-07', 1800);
  // E10 deleted, E11 zero-length, E12 running: none is an item
  await entry(E(10), ADA, '2026-10-08', 600, { deleted: true });
  await entry(E(11), ADA, '2026-10-09', 0);
  await entry(E(12), ADA, '2026-11-18', 900, { running: true });
  // E14: 1 s x 45.50 / 3600 = 0.01263.. -> 0.01; its task is archived, its name still shows
  await entry(E(14), ADA, '2026-10-17', 1, { task: TASK_OLD, note: null });
  // EUR accrued (billable items): E01 0.50 + E02 0.01 + E03 18.00 + E04 68.25 + E08 18.00
  //   + E09 9.00 + E14 0.01 = 113.77
  // EUR eligible seconds: 100 + 1 + 3600 + 5400 + 3600 + 1800 + 1 = 14502, 10-02 .. 10-17

  // ---- Ben: starts 10-15. Rates USD 60.00 from 10-01, 62.25 from 10-20.
  await payee(W1, P_BEN, BEN, 'Ben Okafor', '2026-10-15');
  await rate(W1, P_BEN, 0xc21, '2026-10-01', '60.0000', 'USD');
  await rate(W1, P_BEN, 0xc22, '2026-10-20', '62.2500', 'USD');
  // F01: before the start date and before any rate: neither an item nor a missing rate
  await entry(F(1), BEN, '2026-09-28', 3600);
  // F02: priced (60.00) but before the start date: not an item
  await entry(F(2), BEN, '2026-10-10', 3600);
  // F03: on the start date: 0.75 h x 60.00 = 45.00
  await entry(F(3), BEN, '2026-10-15', 2700);
  // F04: 30 s x 60.00 / 3600 = 0.50
  await entry(F(4), BEN, '2026-10-19', 30);
  // F05: 1000 s x 62.25 / 3600 = 62250 / 3600 = 17.2916.. -> 17.29
  await entry(F(5), BEN, '2026-10-20', 1000);
  // F06: 24 s x 62.25 / 3600 = 1494 / 3600 = 0.415 exactly -> half away from zero -> 0.42
  await entry(F(6), BEN, '2026-10-21', 24);
  // F07: on the APPROVED bill B4 -> not unpaid
  await entry(F(7), BEN, '2026-11-02', 3600);
  // F08: non-billable, 1.5 h x 62.25 = 93.375 -> 93.38
  await entry(F(8), BEN, '2026-10-25', 5400, { billable: false });
  // USD accrued: F03 45.00 + F04 0.50 + F05 17.29 + F06 0.42 = 63.21
  // USD eligible seconds: 2700 + 30 + 1000 + 24 = 3754, 10-15 .. 10-21

  // ---- Chiyo: starts 09-01. Rates JPY 2500 from 10-01, KWD 7.1255 from 11-01.
  await payee(W1, P_CHIYO, CHIYO, 'Chiyo Tanaka', '2026-09-01');
  await rate(W1, P_CHIYO, 0xc31, '2026-10-01', '2500.0000', 'JPY');
  await rate(W1, P_CHIYO, 0xc32, '2026-11-01', '7.1255', 'KWD');
  // G01 running, G02 zero-length, G03 deleted: unpriced, but none counts as a missing rate
  await entry(G(1), CHIYO, '2026-09-25', 1800, { running: true });
  await entry(G(2), CHIYO, '2026-09-26', 0);
  await entry(G(3), CHIYO, '2026-09-27', 3600, { deleted: true });
  // G08: unpriced payable work -> Chiyo has a missing rate
  await entry(G(8), CHIYO, '2026-09-29', 600);
  // G04: 4500 s x 2500 / 3600 = 3125 JPY
  await entry(G(4), CHIYO, '2026-10-05', 4500);
  // G05: 18 s x 2500 / 3600 = 12.5 -> half away from zero, JPY has no decimals -> 13
  await entry(G(5), CHIYO, '2026-10-06', 18);
  // G06: 3600 s x 7.1255 = 7.1255 -> KWD has 3 decimals -> 7.126
  await entry(G(6), CHIYO, '2026-11-03', 3600);
  // G07: 100 s x 7.1255 / 3600 = 712.55 / 3600 = 0.19793.. -> 0.198
  await entry(G(7), CHIYO, '2026-11-04', 100);
  // JPY accrued: 3125 + 13 = 3138; seconds 4500 + 18 = 4518, 10-05 .. 10-06
  // KWD accrued: 7.126 + 0.198 = 7.324; seconds 3600 + 100 = 3700, 11-03 .. 11-04

  // ---- Dan has no payee, Eve's payee is deleted: their entries count nowhere.
  await entry(id(0x401), DAN, '2026-10-10', 3600);
  await payee(W1, P_EVE, EVE, 'Eve Martin', null, true);
  await rate(W1, P_EVE, 0xc51, '2026-01-01', '50.0000', 'EUR');
  await entry(id(0x501), EVE, '2026-10-10', 3600);
  await entry(id(0x502), EVE, '2026-09-01', 3600);

  // ---- Credits: EUR 40.00 left of Ada's advance; the deleted one and the one of Eve's
  // deleted payee do not count; Chiyo's GBP credit alone brings GBP into the summary.
  await credit(P_ADA, 0xcc1, 'EUR', '100.0000', '40.0000');
  await credit(P_ADA, 0xcc2, 'EUR', '999.0000', '999.0000', true);
  await credit(P_CHIYO, 0xcc3, 'GBP', '20.0000', '20.0000');
  await credit(P_EVE, 0xcc5, 'EUR', '70.0000', '70.0000');

  // ---- Bills (today = 2026-11-20)
  // B1 APPROVED EUR, due 11-10 (overdue): TIME E07 2 h x 18.00 = 36.00, EXPENSE 25.50,
  //   ADJUSTMENT +14.00. subtotal 36.00 + 25.50 = 61.50; total 61.50 + 14.00 = 75.50.
  //   Paid: PM1 30.00 (PM3 is REVERSED, PM5 deleted) -> 30.00; remaining 45.50, PARTIALLY_PAID.
  await bill(
    B(1),
    { payee: P_ADA, number: 'B-001', status: 'APPROVED', currency: 'EUR', due: '2026-11-10' },
    [
      { kind: 'TIME', amount: '36.0000', entry: E(7) },
      { kind: 'EXPENSE', amount: '25.5000' },
      { kind: 'ADJUSTMENT', amount: '14.0000' },
    ],
  );
  // B2 DRAFT EUR: TIME E08 18.00 -> total 18.00, remaining 18.00, UNPAID. Not in the summary.
  await bill(
    B(2),
    { payee: P_ADA, number: 'B-002', status: 'DRAFT', currency: 'EUR', due: '2026-11-30' },
    [{ kind: 'TIME', amount: '18.0000', entry: E(8) }],
  );
  // B3 VOID EUR, due 11-01: TIME E09 9.00 -> total 9.00 but remaining 0 (VOID), UNPAID.
  await bill(
    B(3),
    { payee: P_ADA, number: 'B-003', status: 'VOID', currency: 'EUR', due: '2026-11-01' },
    [{ kind: 'TIME', amount: '9.0000', entry: E(9) }],
  );
  // B4 APPROVED USD, due 11-30: TIME F07 1 h x 62.25 = 62.25, ADJUSTMENT -2.25 -> total 60.00.
  //   PM2 pays 60.00 -> remaining 0, PAID.
  await bill(
    B(4),
    { payee: P_BEN, number: 'B-004', status: 'APPROVED', currency: 'USD', due: '2026-11-30' },
    [
      { kind: 'TIME', amount: '62.2500', entry: F(7) },
      { kind: 'ADJUSTMENT', amount: '-2.2500' },
    ],
  );
  // B5 APPROVED USD, due 11-20 = today (not before today: not overdue): ADJUSTMENT 100.00
  //   -> subtotal 0, total 100.00, remaining 100.00, UNPAID.
  await bill(
    B(5),
    { payee: P_BEN, number: 'B-005', status: 'APPROVED', currency: 'USD', due: '2026-11-20' },
    [{ kind: 'ADJUSTMENT', amount: '100.0000' }],
  );
  // B6 APPROVED EUR, due 11-01: +10.00 and -10.00 -> total 0: UNPAID (PAID needs total > 0).
  await bill(
    B(6),
    { payee: P_ADA, number: 'B-006', status: 'APPROVED', currency: 'EUR', due: '2026-11-01' },
    [
      { kind: 'ADJUSTMENT', amount: '10.0000' },
      { kind: 'ADJUSTMENT', amount: '-10.0000' },
    ],
  );
  // B7 APPROVED EUR but deleted: counts nowhere, and E03 on it stays unpaid.
  await bill(
    B(7),
    {
      payee: P_ADA,
      number: 'B-007',
      status: 'APPROVED',
      currency: 'EUR',
      due: '2026-11-01',
      deleted: true,
    },
    [
      { kind: 'TIME', amount: '18.0000', entry: E(3) },
      { kind: 'ADJUSTMENT', amount: '482.0000' },
    ],
  );
  // B8 APPROVED USD, due 11-05: EXPENSE 40.00, overpaid by PM4 50.00 -> amount paid 50.00,
  //   remaining max(40.00 - 50.00, 0) = 0, PAID.
  await bill(
    B(8),
    { payee: P_BEN, number: 'B-008', status: 'APPROVED', currency: 'USD', due: '2026-11-05' },
    [{ kind: 'EXPENSE', amount: '40.0000' }],
  );

  // ---- Payments. Latest RECORDED live one: PM2 and PM4 share paid date 11-18; PM2 was
  // created later (10:00 vs 08:00) and wins although PM4 has the greater id. PM3 (REVERSED)
  // and PM5 (deleted) are later but do not count.
  await payment(
    PM(1),
    {
      payee: P_ADA,
      currency: 'EUR',
      amount: '30.0000',
      paidDate: '2026-11-12',
      createdAt: '2026-11-12T09:00:00Z',
    },
    [{ bill: B(1), amount: '30.0000' }],
  );
  await payment(
    PM(2),
    {
      payee: P_BEN,
      currency: 'USD',
      amount: '60.0000',
      paidDate: '2026-11-18',
      createdAt: '2026-11-18T10:00:00Z',
    },
    [{ bill: B(4), amount: '60.0000' }],
  );
  await payment(
    PM(3),
    {
      payee: P_ADA,
      currency: 'EUR',
      amount: '75.5000',
      paidDate: '2026-11-15',
      createdAt: '2026-11-15T09:00:00Z',
      status: 'REVERSED',
    },
    [{ bill: B(1), amount: '75.5000' }],
  );
  await payment(
    PM(4),
    {
      payee: P_BEN,
      currency: 'USD',
      amount: '50.0000',
      paidDate: '2026-11-18',
      createdAt: '2026-11-18T08:00:00Z',
    },
    [{ bill: B(8), amount: '50.0000' }],
  );
  await payment(
    PM(5),
    {
      payee: P_ADA,
      currency: 'EUR',
      amount: '10.0000',
      paidDate: '2026-11-19',
      createdAt: '2026-11-19T09:00:00Z',
      deleted: true,
    },
    [{ bill: B(1), amount: '10.0000' }],
  );

  // ---- W2: Ada's user id again, with a payee at EUR 1000.00; 1 h -> 1000.00. Had a join
  // missed workspace_id, this entry would show up in W1 at Ada's 18.00.
  await payee(W2, P_ADA_W2, ADA, 'Ada Lovelace', null);
  await rate(W2, P_ADA_W2, 0xc91, '2026-01-01', '1000.0000', 'EUR');
  await entry(id(0x901), ADA, '2026-10-10', 3600, { ws: W2, project: PROJECT_W2, task: null });
  // Two payments with the same paid date and creation time: the greater id is the latest.
  // 0x80.. > 0x7f.. also as text, which a signed comparison of the UUID would get wrong.
  for (const [paymentId, amount] of [
    ['7fffffff-0000-4000-8000-000000000001', '11.0000'],
    ['80000000-0000-4000-8000-000000000001', '22.0000'],
  ] as const) {
    await payment(paymentId, {
      ws: W2,
      payee: P_ADA_W2,
      currency: 'EUR',
      amount,
      paidDate: '2026-11-25',
      createdAt: '2026-11-25T09:00:00Z',
    });
  }
}

export const label = new Map<string, string>([
  ...Array.from({ length: 20 }, (_, n) => [E(n), `E${String(n).padStart(2, '0')}`] as const),
  ...Array.from({ length: 20 }, (_, n) => [F(n), `F${String(n).padStart(2, '0')}`] as const),
  ...Array.from({ length: 20 }, (_, n) => [G(n), `G${String(n).padStart(2, '0')}`] as const),
  ...Array.from({ length: 20 }, (_, n) => [B(n), `B${n}`] as const),
]);

export async function rows(
  sql: string,
  values: Record<string, string>,
): Promise<Record<string, unknown>[]> {
  const reader = await db.runAndReadAll(sql, values);
  return reader.getRowObjectsJson();
}

/**
 * A read model holding the workspaces, with the derived tables the sync would build from
 * them, in its order (src/cli/derived-tables.ts); `rows` reads it. Close it after.
 */
export async function openPayoutWorkspace(): Promise<{ db: DuckDBConnection; close: () => void }> {
  const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
  db = await readModel.connect();
  await seedWorkspaces();
  for (const part of [teamPayoutTables, profitabilityTables]) await part.rebuild(db);
  const connection = db;
  return {
    db: connection,
    close: () => {
      connection.closeSync();
      readModel.close();
    },
  };
}
