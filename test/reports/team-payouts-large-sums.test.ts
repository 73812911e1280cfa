import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { Workspace, workspaces } from '../support/workspace-builder.ts';

/**
 * Sums of amounts beyond DECIMAL(18,4), the type every stored amount has
 * (docs/contract.md, "Money and rounding": exact decimals). One amount holds at most
 * 99,999,999,999,999.9999; a bill of two such lines, or a summary over two bills, holds more. The
 * bill figures and the payout summary used to cast their sums back to DECIMAL(18,4), and answered
 * 500 (the profitability report's sums: see "sums beyond 64 bits" in profitability.test.ts).
 */

// Zoe's hours cost 99,999,999,999,999.99 EUR each, the largest pay rate in cents there is.
const ws = new Workspace();
const zoe = ws.user('Zoe');
const work = ws.project('Work');
const payee = ws.payee(zoe, { name: 'Zoe', rates: [['2026-01-01', '99999999999999.99', 'EUR']] });
// Two unpaid hours: accrued 2 x 99,999,999,999,999.99 = 199,999,999,999,999.98.
ws.entry({ user: zoe, project: work, date: '2026-10-02', seconds: 3600 });
ws.entry({ user: zoe, project: work, date: '2026-10-03', seconds: 3600 });
// Bill 1: one line of 90,000,000,000,000.00, paid in full.
const paidEntry = ws.entry({ user: zoe, project: work, date: '2026-10-20', seconds: 3600 });
const paidBill = ws.bill(payee, 'EUR', 'APPROVED', [
  { entry: paidEntry, amount: '90000000000000.00' },
]);
ws.payment(payee, 'EUR', '90000000000000.00', [[paidBill, '90000000000000.00']]);
// Bill 2: a time line and an adjustment of 90,000,000,000,000.00 each, total
// 180,000,000,000,000.00, nothing paid.
const openEntry = ws.entry({ user: zoe, project: work, date: '2026-10-21', seconds: 3600 });
const openBill = ws.bill(payee, 'EUR', 'APPROVED', [
  { entry: openEntry, amount: '90000000000000.00' },
  { kind: 'ADJUSTMENT', amount: '90000000000000.00' },
]);

// Amounts beyond 64 bits of 10^-4 units (922,337,203,685,477.5807), which the profitability
// arithmetic keeps its amounts in until they do not fit. Max's hours cost 99,999,999,999,999.99
// EUR each; Yan's 99,999,999,999,999.99 USD, at 20,000 EUR a dollar (an FX rate DECIMAL(18,10)
// holds). These failed the sync's refresh of the summaries, and with it every workspace's sync.
const huge = new Workspace();
const max = huge.user('Max');
const yan = huge.user('Yan');
const hugeWork = huge.project('Work');
const maxPayee = huge.payee(max, {
  name: 'Max',
  rates: [['2026-01-01', '99999999999999.99', 'EUR']],
});
huge.payee(yan, { name: 'Yan', rates: [['2026-01-01', '99999999999999.99', 'USD']] });
huge.fx('USD', 'EUR', '2026-01-01', '20000');
// Unpaid: 10 hours (999,999,999,999,999.90) and 100 hours (9,999,999,999,999,999.00).
const tenHours = huge.entry({ user: max, project: hugeWork, date: '2026-10-02', seconds: 36000 });
huge.entry({ user: max, project: hugeWork, date: '2026-10-03', seconds: 360000 });
// Twelve hours on one approved bill of twelve lines of 90,000,000,000,000.00:
// 1,080,000,000,000,000.00.
huge.bill(
  maxPayee,
  'EUR',
  'APPROVED',
  Array.from({ length: 12 }, () => ({
    entry: huge.entry({ user: max, project: hugeWork, date: '2026-10-04', seconds: 3600 }),
    amount: '90000000000000.00',
  })),
);
// One hour of Yan's: 99,999,999,999,999.99 USD, converted 1,999,999,999,999,999,800.00 EUR.
huge.entry({ user: yan, project: hugeWork, date: '2026-10-05', seconds: 3600 });

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  for (const w of workspaces) await h.importObject(w.snapshot);
  await h.sync();
});
afterAll(() => h.close());

async function get<T>(url: string, token = ws.token): Promise<T> {
  const res = await h.app.inject({
    method: 'GET',
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return (url.startsWith('/exports/') ? res.body : res.json()) as T;
}

interface BillPage {
  data: { id: string; total: string }[];
  pagination: { nextCursor: string | null };
}

describe('sums beyond DECIMAL(18,4) (docs/contract.md, "Money and rounding": exact decimals)', () => {
  it('the payout summary adds them up exactly', async () => {
    const { data } = await get<{ data: { currencies: object[] } }>('/team-payouts/summary');
    expect(data.currencies).toEqual([
      {
        currency: 'EUR',
        eligibleSeconds: 7200,
        unbilledFrom: '2026-10-02',
        unbilledTo: '2026-10-03',
        accrued: '199999999999999.98',
        approved: '270000000000000.00', // 90,000,000,000,000 + 180,000,000,000,000
        paid: '90000000000000.00',
        outstanding: '180000000000000.00',
        overdue: '0.00', // no due date
        credit: '0.00',
      },
    ]);
  });

  it('a bill shows its total, and bills page by it in both directions', async () => {
    const { data: bill } = await get<{ data: object }>(`/team-payouts/bills/${openBill}`);
    expect(bill).toMatchObject({
      subtotal: '90000000000000.00',
      adjustmentTotal: '90000000000000.00',
      total: '180000000000000.00',
      amountPaid: '0.00',
      remaining: '180000000000000.00',
      paymentStatus: 'UNPAID',
    });
    for (const [sort, order] of [
      ['-total', [openBill, paidBill]],
      ['total', [paidBill, openBill]],
    ] as const) {
      const first = await get<BillPage>(`/team-payouts/bills?sort=${sort}&limit=1`);
      expect(first.data.map((b) => b.id)).toEqual([order[0]]);
      const cursor = encodeURIComponent(first.pagination.nextCursor!);
      const second = await get<BillPage>(
        `/team-payouts/bills?sort=${sort}&limit=1&cursor=${cursor}`,
      );
      expect(second.data.map((b) => b.id)).toEqual([order[1]]);
      expect(second.pagination.nextCursor).toBeNull();
    }
  });

  it('the bills export writes them as the API does', async () => {
    const csv = await get<string>('/exports/bills?format=csv&from=2026-01-01&to=2026-12-31');
    // total, amountPaid, remaining, subtotal, adjustmentTotal
    expect(csv).toContain(
      `,APPROVED,UNPAID,1,EUR,180000000000000.00,0.00,180000000000000.00,90000000000000.00,90000000000000.00,`,
    );
  });
});

describe('amounts beyond 64 bits of 10^-4 units', () => {
  interface Item {
    timeEntryId: string;
    amount: string;
  }

  it('unpaid time prices each entry exactly, and the summary adds them up', async () => {
    const items = await get<{ data: Item[] }>('/team-payouts/unpaid-time', huge.token);
    expect(items.data.map((i) => i.amount).sort()).toEqual([
      '99999999999999.99', // Yan's hour, USD
      '999999999999999.90', // 10 hours
      '9999999999999999.00', // 100 hours
    ]);
    expect(items.data.find((i) => i.timeEntryId === tenHours)?.amount).toBe('999999999999999.90');
    const { data } = await get<{ data: { currencies: object[] } }>(
      '/team-payouts/summary',
      huge.token,
    );
    expect(data.currencies).toContainEqual(
      expect.objectContaining({
        currency: 'EUR',
        accrued: '10999999999999998.90',
        approved: '1080000000000000.00',
        outstanding: '1080000000000000.00',
      }),
    );
  });

  it('profitability converts and adds them up exactly, from the cells and from the days', async () => {
    for (const range of ['from=2026-10-01&to=2026-10-31', 'from=2026-10-02&to=2026-10-30']) {
      const { data } = await get<{ data: { summary: object } }>(
        `/team-payouts/profitability?${range}`,
        huge.token,
      );
      expect(data.summary, range).toMatchObject({
        // 999,999,999,999,999.90 + 9,999,999,999,999,999.00 + 1,999,999,999,999,999,800.00
        estimatedCost: '2010999999999999798.90',
        approvedCost: '1080000000000000.00',
        compensationCost: '2012079999999999798.90',
        pending: '1080000000000000.00',
        margin: '-2012079999999999798.90',
        missingFx: false,
      });
    }
  });
});
