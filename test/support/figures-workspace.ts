/**
 * The workspace of the dashboard's figure tests: enough members, bills and unpaid time for
 * two pages of each table (the dashboard shows 25 rows a page), amounts past 2^53 in
 * significant digits, EUR, JPY (scale 0) and KWD (scale 3), and names that break parsers and
 * HTML (commas, quotes, markup, backslashes, emoji). Dates are counted from the current UTC
 * month (the workspace's time zone is UTC), so the dashboard's presets always find work.
 */

export const FIGURES_TOKEN = 'tt_test_FiguresOwnr1_abcdefghijklmnopqrstuvwxyz012345';

/** Names a parser or an HTML writer would trip on; the page must show them as typed. */
export const AWKWARD_NAMES = [
  'Zoë "Zed" <b>Bold</b>, Jr.',
  'Back\\slash \\n 😀',
  'Comma, Semi; "Quote" \'single\'',
  '<img src=x onerror=alert(1)> 🚀',
];

/** 99,999,999,999,999.99: the largest EUR amount NUMERIC(18,4) holds, 16 digits > 2^53. */
export const HUGE_EUR = '99999999999999.99';
/** A KWD amount of 17 significant digits. */
export const HUGE_KWD = '12345678901234.567';
/** A JPY amount (no decimals). */
export const BIG_JPY = '98765432109876';

export const MEMBER_COUNT = 30;

let counter = 0;
const id = () => `f0000000-0000-4000-8000-${(++counter).toString(16).padStart(12, '0')}`;

/** YYYY-MM-DD of day `day` of the month `offset` months from the current UTC month. */
export function monthDay(offset: number, day: number, now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, day))
    .toISOString()
    .slice(0, 10);
}

export function figuresSnapshot() {
  counter = 0;
  const workspace = id();
  const owner = id();
  const thisMonth = monthDay(0, 1);
  const clients = [
    { id: id(), name: 'Globex, "Intl" <b>Ltd</b>', currency: 'EUR' },
    { id: id(), name: 'Nippon \\ 日本 🍣', currency: 'JPY' },
    { id: id(), name: 'Kuwait Trading', currency: 'KWD' },
  ];
  const projects = [
    { id: id(), clientId: clients[0]!.id, name: 'Site, "v2" <i>new</i>' },
    { id: id(), clientId: clients[1]!.id, name: 'App \\ 🚀' },
    { id: id(), clientId: clients[2]!.id, name: 'Audit' },
  ];
  // Member i works on project i % 3 and is paid in its client's currency.
  const rateOf: Record<string, string> = { EUR: '45.00', JPY: '5000', KWD: '12.125' };
  const twoHours: Record<string, string> = { EUR: '90.00', JPY: '10000', KWD: '24.250' };
  const users = Array.from({ length: MEMBER_COUNT }, (_, i) => ({
    id: id(),
    payee: id(),
    rate: id(),
    name: AWKWARD_NAMES[i] ?? `Member ${String(i + 1).padStart(2, '0')}`,
    project: projects[i % 3]!,
    currency: clients[i % 3]!.currency,
  }));
  const timeEntries: object[] = [];
  const invoices: object[] = [];
  const bills: object[] = [];
  const payments: object[] = [];
  users.forEach((u, i) => {
    // This month: billable and non-billable unpaid time.
    timeEntries.push(
      {
        id: id(),
        userId: u.id,
        projectId: u.project.id,
        taskId: null,
        entryDate: thisMonth,
        durationSeconds: 1800 + 900 * i,
        billable: true,
        isRunning: false,
        note: null,
        invoiceId: null,
      },
      {
        id: id(),
        userId: u.id,
        projectId: u.project.id,
        taskId: null,
        entryDate: thisMonth,
        durationSeconds: 600,
        billable: false,
        isRunning: false,
        note: null,
        invoiceId: null,
      },
    );
    // Last month: billed to the client, and billed by the payee on an approved bill.
    const entry = id();
    const invoice = id();
    const day = (i % 28) + 1;
    timeEntries.push({
      id: entry,
      userId: u.id,
      projectId: u.project.id,
      taskId: null,
      entryDate: monthDay(-1, day),
      durationSeconds: 7200,
      billable: true,
      isRunning: false,
      note: null,
      invoiceId: invoice,
    });
    const revenue =
      i === 0
        ? HUGE_EUR
        : u.currency === 'JPY'
          ? String(1000000 + i)
          : u.currency === 'KWD'
            ? `${i}00.125`
            : `${i}50.50`;
    invoices.push({
      id: invoice,
      clientId: u.project.clientId,
      number: `INV-${String(i + 1).padStart(3, '0')}`,
      status: 'SENT',
      paymentStatus: 'unpaid',
      currency: u.currency,
      issueDate: monthDay(-1, 28),
      dueDate: monthDay(0, 28),
      subtotal: revenue,
      discountAmount: '0',
      total: revenue,
      amountPaid: '0',
      lines: [
        {
          id: id(),
          kind: 'TIME',
          timeEntryId: entry,
          projectId: u.project.id,
          description: 'Work',
          amount: revenue,
        },
      ],
    });
    const cost =
      i === 0 ? HUGE_EUR : i === 1 ? BIG_JPY : i === 2 ? HUGE_KWD : twoHours[u.currency]!;
    const bill = id();
    // Half the bills are past due (overdue), half due next month.
    bills.push({
      id: bill,
      payeeId: u.payee,
      number: `B-${String(i + 1).padStart(3, '0')}, "${u.currency}"`,
      status: 'APPROVED',
      revision: 1,
      currency: u.currency,
      serviceFrom: monthDay(-1, 1),
      serviceTo: monthDay(-1, 28),
      issueDate: monthDay(-1, 28),
      dueDate: i % 2 === 0 ? monthDay(-1, 28) : monthDay(1, (i % 27) + 1),
      approvedAt: `${monthDay(-1, 28)}T10:00:00Z`,
      lines: [
        {
          id: id(),
          kind: 'TIME',
          timeEntryId: entry,
          projectId: u.project.id,
          workDate: monthDay(-1, day),
          durationSeconds: 7200,
          hourlyRate: rateOf[u.currency],
          quantity: '2',
          unitPrice: rateOf[u.currency],
          amount: cost,
          description: 'Work',
        },
      ],
    });
    // Every fifth bill is partly paid.
    if (i % 5 === 3)
      payments.push({
        id: id(),
        payeeId: u.payee,
        currency: u.currency,
        amount: u.currency === 'JPY' ? '1000' : '10.00',
        paidDate: monthDay(0, 1),
        method: 'BANK_TRANSFER',
        reference: `Ref, "${i}"`,
        status: 'RECORDED',
        allocations: [{ billId: bill, amount: u.currency === 'JPY' ? '1000' : '10.00' }],
      });
  });
  return {
    version: 1,
    workspace: {
      id: workspace,
      name: 'Figures & "Co" <b>',
      plan: 'agency',
      baseCurrency: 'EUR',
      timezone: 'UTC',
    },
    users: [{ id: owner, name: 'Fiona Owner' }, ...users.map((u) => ({ id: u.id, name: u.name }))],
    members: [
      { userId: owner, role: 'OWNER' },
      ...users.map((u) => ({ userId: u.id, role: 'MEMBER' })),
    ],
    tokens: [{ token: FIGURES_TOKEN, userId: owner, scopes: ['read'] }],
    clients,
    projects: projects.map((p) => ({
      ...p,
      status: 'ACTIVE',
      memberIds: users.filter((u) => u.project.id === p.id).map((u) => u.id),
    })),
    timeEntries,
    invoices,
    payees: users.map((u) => ({
      id: u.payee,
      userId: u.id,
      name: u.name,
      startDate: monthDay(-12, 1),
      rates: [
        {
          id: u.rate,
          effectiveFrom: monthDay(-12, 1),
          hourlyRate: rateOf[u.currency],
          currency: u.currency,
        },
      ],
      // The first payee has a credit past 2^53 in significant digits too.
      credits:
        u === users[0]
          ? [{ id: id(), currency: 'EUR', amount: HUGE_EUR, remaining: '12345678901234.56' }]
          : [],
    })),
    bills,
    payments,
    fxRates: [
      {
        id: id(),
        fromCurrency: 'JPY',
        toCurrency: 'EUR',
        effectiveFrom: monthDay(-24, 1),
        rate: '0.0061',
      },
      {
        id: id(),
        fromCurrency: 'KWD',
        toCurrency: 'EUR',
        effectiveFrom: monthDay(-24, 1),
        rate: '2.9500',
      },
    ],
  };
}
