/**
 * A small valid snapshot, built fresh for each test so a test can break one thing in it.
 * Ids are readable: the last block names the record.
 */
export const ids = {
  workspace: '10000000-0000-4000-8000-000000000001',
  owner: '20000000-0000-4000-8000-000000000001',
  member: '20000000-0000-4000-8000-000000000002',
  admin: '20000000-0000-4000-8000-000000000003',
  manager: '20000000-0000-4000-8000-000000000004',
  client: '30000000-0000-4000-8000-000000000001',
  project: '40000000-0000-4000-8000-000000000001',
  task: '50000000-0000-4000-8000-000000000001',
  entry1: '60000000-0000-4000-8000-000000000001',
  entry2: '60000000-0000-4000-8000-000000000002',
  expense: '70000000-0000-4000-8000-000000000001',
  invoice: '80000000-0000-4000-8000-000000000001',
  invoiceLine: '80000000-0000-4000-8000-0000000000a1',
  payee: '90000000-0000-4000-8000-000000000001',
  rate: '90000000-0000-4000-8000-0000000000a1',
  credit: '90000000-0000-4000-8000-0000000000c1',
  bill: 'a0000000-0000-4000-8000-000000000001',
  billLine: 'a0000000-0000-4000-8000-0000000000a1',
  payment: 'b0000000-0000-4000-8000-000000000001',
  fx: 'c0000000-0000-4000-8000-000000000001',
};

/** One token per role, plus the odd ones the auth tests need. */
export const TOKENS = {
  owner: 'tt_test_OwnerPrefix1_abcdefghijklmnopqrstuvwxyz012345',
  admin: 'tt_test_AdminPrefix1_abcdefghijklmnopqrstuvwxyz012345',
  manager: 'tt_test_MangrPrefix1_abcdefghijklmnopqrstuvwxyz012345',
  member: 'tt_test_MembrPrefix1_abcdefghijklmnopqrstuvwxyz012345',
  revoked: 'tt_test_RevokPrefix1_abcdefghijklmnopqrstuvwxyz012345',
  live: 'tt_live_LivePrefix12_abcdefghijklmnopqrstuvwxyz012345',
  writeOnly: 'tt_test_WriteOnlyPr1_abcdefghijklmnopqrstuvwxyz012345',
};
export const OWNER_TOKEN = TOKENS.owner;

export function smallSnapshot() {
  return {
    version: 1,
    workspace: {
      id: ids.workspace,
      name: 'Small Studio',
      plan: 'agency',
      baseCurrency: 'EUR',
      timezone: 'Europe/Berlin',
    },
    users: [
      { id: ids.owner, name: 'Olga Owner', email: 'olga@example.com' },
      { id: ids.member, name: 'Max Member', email: 'max@example.com' },
      { id: ids.admin, name: 'Ada Admin', email: 'ada@example.com' },
      { id: ids.manager, name: 'Mona Manager', email: 'mona@example.com' },
    ],
    members: [
      { userId: ids.owner, role: 'OWNER' },
      { userId: ids.member, role: 'MEMBER' },
      { userId: ids.admin, role: 'ADMIN' },
      { userId: ids.manager, role: 'MANAGER' },
    ],
    tokens: [
      { token: TOKENS.owner, userId: ids.owner, scopes: ['read', 'write'] },
      { token: TOKENS.admin, userId: ids.admin, scopes: ['read'] },
      { token: TOKENS.manager, userId: ids.manager },
      { token: TOKENS.member, userId: ids.member },
      { token: TOKENS.revoked, userId: ids.owner, revokedAt: '2026-11-01T00:00:00Z' },
      { token: TOKENS.live, userId: ids.owner },
      { token: TOKENS.writeOnly, userId: ids.owner, scopes: ['write'] },
    ],
    clients: [
      {
        id: ids.client,
        name: 'Globex',
        currency: 'USD',
        billingCountry: 'US',
        defaultRate: '120.50',
      },
    ],
    projects: [
      {
        id: ids.project,
        clientId: ids.client,
        name: 'Website',
        status: 'ACTIVE',
        rateType: 'HOURLY',
        hourlyRate: '120.00',
        budgetAmount: '5000.00',
        memberIds: [ids.owner, ids.member],
      },
    ],
    tasks: [
      {
        id: ids.task,
        projectId: ids.project,
        name: 'Design',
        assigneeIds: [ids.member],
        tags: ['ux', 'quoted "tag"'],
      },
    ],
    timeEntries: [
      {
        id: ids.entry1,
        userId: ids.member,
        projectId: ids.project,
        taskId: ids.task,
        entryDate: '2026-10-01',
        durationSeconds: 5400,
        billable: true,
        isRunning: false,
        note: 'Wireframes\twith tab',
        invoiceId: ids.invoice,
      },
      {
        id: ids.entry2,
        userId: ids.member,
        projectId: ids.project,
        taskId: null,
        entryDate: '2026-10-02',
        durationSeconds: 3600,
        billable: false,
        isRunning: false,
        note: null,
        invoiceId: null,
      },
    ],
    expenses: [
      {
        id: ids.expense,
        clientId: ids.client,
        projectId: ids.project,
        category: 'TRAVEL',
        description: 'Train',
        amount: '84.20',
        currency: 'USD',
        billable: true,
        expenseDate: '2026-10-02',
        invoiceId: null,
      },
    ],
    invoices: [
      {
        id: ids.invoice,
        clientId: ids.client,
        number: 'INV-0001',
        status: 'SENT',
        paymentStatus: 'partially_paid',
        currency: 'USD',
        issueDate: '2026-10-31',
        dueDate: '2026-11-30',
        subtotal: '180.00',
        discountAmount: '18.00',
        taxRate: '19',
        total: '192.78',
        amountPaid: '100.00',
        lines: [
          {
            id: ids.invoiceLine,
            kind: 'TIME',
            timeEntryId: ids.entry1,
            projectId: ids.project,
            description: 'Design',
            quantity: '1.5',
            unitPrice: '120.00',
            amount: '180.00',
          },
        ],
      },
    ],
    payees: [
      {
        id: ids.payee,
        userId: ids.member,
        name: 'Max Member',
        email: 'max@example.com',
        startDate: '2026-01-01',
        rates: [
          { id: ids.rate, effectiveFrom: '2026-01-01', hourlyRate: '45.00', currency: 'EUR' },
        ],
        credits: [
          {
            id: ids.credit,
            currency: 'EUR',
            amount: '100.00',
            remaining: '40.00',
            reason: 'Advance',
          },
        ],
      },
    ],
    bills: [
      {
        id: ids.bill,
        payeeId: ids.payee,
        number: 'B-0001',
        status: 'APPROVED',
        revision: 1,
        currency: 'EUR',
        serviceFrom: '2026-10-01',
        serviceTo: '2026-10-31',
        issueDate: '2026-11-01',
        dueDate: '2026-11-15',
        approvedAt: '2026-11-01T10:00:00Z',
        lines: [
          {
            id: ids.billLine,
            kind: 'TIME',
            timeEntryId: ids.entry1,
            projectId: ids.project,
            workDate: '2026-10-01',
            durationSeconds: 5400,
            hourlyRate: '45.00',
            quantity: '1.5',
            unitPrice: '45.00',
            amount: '67.50',
            description: 'Design',
          },
        ],
      },
    ],
    payments: [
      {
        id: ids.payment,
        payeeId: ids.payee,
        currency: 'EUR',
        amount: '67.50',
        paidDate: '2026-11-10',
        method: 'BANK_TRANSFER',
        reference: 'SEPA-1',
        status: 'RECORDED',
        allocations: [
          { billId: ids.bill, amount: '67.50', cashAmount: '67.50', cashCurrency: 'EUR' },
        ],
      },
    ],
    fxRates: [
      {
        id: ids.fx,
        fromCurrency: 'USD',
        toCurrency: 'EUR',
        effectiveFrom: '2026-01-01',
        rate: '0.92',
      },
    ],
  };
}

/** A workspace with one Owner and one token, on a given plan. */
export function tinySnapshot(n: number, plan: string, token: string) {
  const hex = n.toString(16).padStart(2, '0');
  const user = `d00000${hex}-0000-4000-8000-000000000001`;
  return {
    version: 1,
    workspace: {
      id: `e00000${hex}-0000-4000-8000-000000000001`,
      name: `Tiny ${plan}`,
      plan,
      baseCurrency: 'EUR',
      timezone: 'UTC',
    },
    users: [{ id: user, name: 'Tina Tiny' }],
    members: [{ userId: user, role: 'OWNER' }],
    tokens: [{ token, userId: user }],
  };
}

/** A DRAFT bill of the small workspace's payee (smallSnapshotWithDraftBill). */
export const DRAFT_BILL_ID = 'a0000000-0000-4000-8000-000000000002';
/** The Owner token of a Studio workspace: tinySnapshot(7, 'studio', STUDIO_OWNER_TOKEN). */
export const STUDIO_OWNER_TOKEN = 'tt_test_StudioOwner1_abcdefghijklmnopqrstuvwxyz012345';

/** The small workspace plus a DRAFT bill (an Agency feature: Studio never sees drafts). */
export function smallSnapshotWithDraftBill() {
  const s = smallSnapshot();
  s.bills.push({
    id: DRAFT_BILL_ID,
    payeeId: ids.payee,
    number: 'B-0002',
    status: 'DRAFT',
    revision: 1,
    currency: 'EUR',
    serviceFrom: '2026-11-01',
    serviceTo: '2026-11-30',
    issueDate: null,
    dueDate: null,
    lines: [
      {
        id: 'a0000000-0000-4000-8000-0000000000a2',
        kind: 'ADJUSTMENT',
        amount: '-5.00',
        description: 'Advance',
      },
    ],
  } as never);
  return s;
}
