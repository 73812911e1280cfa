import { describe, expect, it } from 'vitest';
import { profitability } from './profitability.ts';
import {
  ADA,
  APP,
  BEN,
  CLIENT_INITECH,
  CY,
  entry,
  entryId,
  invoice,
  invoiceLine,
  PAYEE_BEN,
  payeeAda,
  rate,
  WEBSITE,
  workspace,
} from './reference-fixtures.ts';

const TODAY = '2026-10-15'; // range 2026-10-01..2026-10-31

/** Ada is paid 40.00 EUR/h. */
const ADA_AT_40 = payeeAda({ rates: [rate(1, '2026-01-01', '40.00')] });

function memberRow(report: ReturnType<typeof profitability>, userId: string) {
  const row = report.members.find((m) => m.userId === userId);
  if (row === undefined) throw new Error(`no row for ${userId}`);
  return row;
}

describe('profitability: revenue (docs/contract.md, "Revenue")', () => {
  it('nets each invoice line of the discount and never counts tax', () => {
    // Subtotal 1000.00, discount 50.00, total 1130.50 with tax: the 180.00 line nets
    // 180.00 x (1000.00 - 50.00) / 1000.00 = 171.00. Nothing paid -> collectedNet 0.00.
    // Cost 1 h x 40.00 = 40.00; margin 131.00; 131.00 x 100 / 171.00 = 76.608... -> 76.61.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [entry(1)],
      invoices: [
        invoice(1, {
          subtotal: '1000.00',
          discountAmount: '50.00',
          total: '1130.50',
          lines: [invoiceLine(1, '180.00', entryId(1)), invoiceLine(2, '820.00')],
        }),
      ],
    });
    expect(memberRow(profitability(snapshot, { today: TODAY }), ADA)).toMatchObject({
      billedNet: '171.00',
      collectedNet: '0.00',
      compensationCost: '40.00',
      margin: '131.00',
      marginPercent: '76.61',
      clientUnbilledSeconds: 0,
    });
  });

  it('rounds the net of each line half away from zero before summing', () => {
    // Subtotal 100.00, discount 50.00: each 10.05 line nets 5.025 -> 5.03;
    // two lines -> 10.06 (rounding the sum 10.05 instead would be wrong).
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [entry(1), entry(2)],
      invoices: [
        invoice(1, {
          subtotal: '100.00',
          discountAmount: '50.00',
          total: '50.00',
          lines: [
            invoiceLine(1, '10.05', entryId(1)),
            invoiceLine(2, '10.05', entryId(2)),
            invoiceLine(3, '79.90'),
          ],
        }),
      ],
    });
    expect(memberRow(profitability(snapshot, { today: TODAY }), ADA).billedNet).toBe('10.06');
  });

  it('collects the net times the share of the total paid, capped at the whole net', () => {
    // Invoice 1: 200.00 net, total 238.00 with tax, 119.00 paid -> 200.00 x 0.5 = 100.00.
    // Invoice 2: 100.00 net, total 100.00, 150.00 paid (overpaid) -> 100.00.
    // Invoice 3: subtotal 30.00, discount 10.00: the 10.00 line nets 6.666.. -> 6.67;
    // total 20.00, 10.00 paid: 6.67 x 0.5 = 3.335 -> 3.34 (from the rounded net).
    // billedNet 200.00 + 100.00 + 6.67 = 306.67; collectedNet 100.00 + 100.00 + 3.34 = 203.34.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [entry(1), entry(2), entry(3)],
      invoices: [
        invoice(1, {
          subtotal: '200.00',
          total: '238.00',
          amountPaid: '119.00',
          lines: [invoiceLine(1, '200.00', entryId(1))],
        }),
        invoice(2, {
          status: 'PAID',
          subtotal: '100.00',
          total: '100.00',
          amountPaid: '150.00',
          lines: [invoiceLine(2, '100.00', entryId(2))],
        }),
        invoice(3, {
          subtotal: '30.00',
          discountAmount: '10.00',
          total: '20.00',
          amountPaid: '10.00',
          lines: [invoiceLine(3, '10.00', entryId(3)), invoiceLine(4, '20.00')],
        }),
      ],
    });
    expect(memberRow(profitability(snapshot, { today: TODAY }), ADA)).toMatchObject({
      billedNet: '306.67',
      collectedNet: '203.34',
    });
  });

  it('bills nothing from DRAFT, CANCELLED or deleted invoices; that billable time is unbilled', () => {
    // Entries 1-3 sit on a DRAFT, a CANCELLED and a deleted SENT invoice, entry 4 on a
    // PAID one (100.00), entry 5 is non-billable and on nothing.
    // billedNet 100.00; clientUnbilledSeconds = 3 x 3600 = 10800.
    const on = (n: number, fields: Parameters<typeof invoice>[1]) =>
      invoice(n, {
        subtotal: '100.00',
        total: '100.00',
        lines: [invoiceLine(n, '100.00', entryId(n))],
        ...fields,
      });
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [entry(1), entry(2), entry(3), entry(4), entry(5, { billable: false })],
      invoices: [
        on(1, { status: 'DRAFT' }),
        on(2, { status: 'CANCELLED' }),
        on(3, { deletedAt: '2026-10-20T00:00:00Z' }),
        on(4, { status: 'PAID', amountPaid: '100.00' }),
      ],
    });
    expect(memberRow(profitability(snapshot, { today: TODAY }), ADA)).toMatchObject({
      billedNet: '100.00',
      collectedNet: '100.00',
      clientUnbilledSeconds: 10800,
    });
  });

  it('gives marginPercent null when billedNet is 0 and rounds it half away from zero', () => {
    // Ada: billed 200.00, cost 1 h x 175.31 -> margin 24.69 -> 12.345 % -> "12.35".
    // Ben: billed 200.00, cost 1 h x 224.69 -> margin -24.69 -> -12.345 % -> "-12.35".
    // Cy has no payee and no invoice: billedNet 0.00 -> null.
    const billed = (n: number) =>
      invoice(n, {
        subtotal: '200.00',
        total: '200.00',
        lines: [invoiceLine(n, '200.00', entryId(n))],
      });
    const snapshot = workspace({
      payees: [
        payeeAda({ rates: [rate(1, '2026-01-01', '175.31')] }),
        { id: PAYEE_BEN, userId: BEN, name: 'Ben', rates: [rate(2, '2026-01-01', '224.69')] },
      ],
      timeEntries: [entry(1), entry(2, { userId: BEN }), entry(3, { userId: CY })],
      invoices: [billed(1), billed(2)],
    });
    const report = profitability(snapshot, { today: TODAY });
    expect(report.members.map((m) => [m.name, m.margin, m.marginPercent])).toEqual([
      ['Ada L. (contractor)', '24.69', '12.35'],
      ['Ben', '-24.69', '-12.35'],
      ['Cy Young', '0.00', null],
    ]);
    // Summary: billed 400.00, cost 400.00 -> margin 0.00 -> "0.00" (not null).
    expect([report.summary.margin, report.summary.marginPercent]).toEqual(['0.00', '0.00']);
  });
});

describe('profitability: unallocated revenue and unreconciled receipts (docs/contract.md, "Unallocated revenue and receipts")', () => {
  // Invoice 1, SENT EUR to Globex, issued 10-31: subtotal 300.00, discount 30.00, total
  //   270.00, 300.00 paid. The 100.00 line is entry 1's; the 200.00 fixed fee on Website
  //   links no entry -> unallocated 200.00 x 270/300 = 180.00. Overpaid by 30.00.
  // Invoice 2, PAID USD to Initech, issued 10-10: a 50.00 line on App, no entry, paid in full.
  // Invoice 3, CANCELLED EUR, issued 10-20, 25.00 paid -> receipt 25.00, no revenue.
  // Invoice 4, SENT, issued 09-30 (out of range): nothing, though overpaid.
  // Invoice 5, DRAFT, issued 10-05: nothing.
  const snapshot = workspace({
    payees: [ADA_AT_40],
    timeEntries: [entry(1)],
    invoices: [
      invoice(1, {
        subtotal: '300.00',
        discountAmount: '30.00',
        total: '270.00',
        amountPaid: '300.00',
        lines: [
          invoiceLine(1, '100.00', entryId(1)),
          { ...invoiceLine(2, '200.00'), projectId: WEBSITE },
        ],
      }),
      invoice(2, {
        status: 'PAID',
        clientId: CLIENT_INITECH,
        currency: 'USD',
        issueDate: '2026-10-10',
        subtotal: '50.00',
        total: '50.00',
        amountPaid: '50.00',
        lines: [{ ...invoiceLine(3, '50.00'), projectId: APP }],
      }),
      invoice(3, {
        status: 'CANCELLED',
        issueDate: '2026-10-20',
        subtotal: '80.00',
        total: '80.00',
        amountPaid: '25.00',
        lines: [invoiceLine(4, '80.00')],
      }),
      invoice(4, {
        issueDate: '2026-09-30',
        subtotal: '500.00',
        total: '500.00',
        amountPaid: '900.00',
        lines: [invoiceLine(5, '500.00')],
      }),
      invoice(5, {
        status: 'DRAFT',
        issueDate: '2026-10-05',
        subtotal: '70.00',
        total: '70.00',
        lines: [invoiceLine(6, '70.00')],
      }),
    ],
  });

  it('sums per currency the net of lines linked to no entry and the unreconciled receipts', () => {
    const report = profitability(snapshot, { today: TODAY });
    expect(report.unallocatedRevenue).toEqual([
      { currency: 'EUR', amount: '180.00' },
      { currency: 'USD', amount: '50.00' },
    ]);
    // 30.00 overpaid on invoice 1 + 25.00 on the cancelled invoice 3.
    expect(report.unreconciledReceipts).toEqual([{ currency: 'EUR', amount: '55.00' }]);
  });

  it('honors clientId for both, projectId by line for revenue only, and empties both for userId', () => {
    const initech = profitability(snapshot, { today: TODAY, clientId: CLIENT_INITECH });
    expect([initech.unallocatedRevenue, initech.unreconciledReceipts]).toEqual([
      [{ currency: 'USD', amount: '50.00' }],
      [],
    ]);
    const website = profitability(snapshot, { today: TODAY, projectId: WEBSITE });
    expect([website.unallocatedRevenue, website.unreconciledReceipts]).toEqual([
      [{ currency: 'EUR', amount: '180.00' }],
      [],
    ]);
    const ada = profitability(snapshot, { today: TODAY, userId: ADA });
    expect([ada.unallocatedRevenue, ada.unreconciledReceipts]).toEqual([[], []]);
  });
});
