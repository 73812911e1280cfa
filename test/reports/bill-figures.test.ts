import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { W1, label, openPayoutWorkspace, rows } from '../support/payout-workspace.ts';

// The derived bill figures (docs/contract.md, "Bill amounts") over the hand-made workspace of
// test/support/payout-workspace.ts, whose comments work out every expected figure.

let opened: Awaited<ReturnType<typeof openPayoutWorkspace>>;

beforeAll(async () => {
  opened = await openPayoutWorkspace();
});

afterAll(() => opened.close());

describe('team_bill_figures', () => {
  async function billFigures() {
    const found = await rows(
      `SELECT bill_id, status, subtotal, adjustment_total, total, amount_paid, remaining, payment_status
       FROM team_bill_figures WHERE workspace_id = $ws ORDER BY bill_id`,
      { ws: W1 },
    );
    return found.map((r): Record<string, unknown> => ({
      ...r,
      bill_id: label.get(String(r.bill_id)),
    }));
  }

  it('sums lines into subtotal, adjustment total and total, and leaves deleted bills out', async () => {
    const figures = await billFigures();
    expect(figures.map((f) => [f.bill_id, f.subtotal, f.adjustment_total, f.total])).toEqual([
      ['B1', '61.5000', '14.0000', '75.5000'],
      ['B2', '18.0000', '0.0000', '18.0000'],
      ['B3', '9.0000', '0.0000', '9.0000'],
      ['B4', '62.2500', '-2.2500', '60.0000'],
      ['B5', '0.0000', '100.0000', '100.0000'],
      ['B6', '0.0000', '0.0000', '0.0000'],
      // B7 is deleted
      ['B8', '40.0000', '0.0000', '40.0000'],
    ]);
  });

  it('counts only allocations of live RECORDED payments as paid', async () => {
    const figures = await billFigures();
    // B1: PM1 30.00 counts; PM3 75.50 (REVERSED) and PM5 10.00 (deleted) do not.
    expect(figures.map((f) => [f.bill_id, f.amount_paid])).toEqual([
      ['B1', '30.0000'],
      ['B2', '0.0000'],
      ['B3', '0.0000'],
      ['B4', '60.0000'],
      ['B5', '0.0000'],
      ['B6', '0.0000'],
      ['B8', '50.0000'],
    ]);
  });

  it('answers remaining as max(total - paid, 0), and 0 on a VOID bill', async () => {
    const figures = await billFigures();
    expect(figures.map((f) => [f.bill_id, f.status, f.remaining])).toEqual([
      ['B1', 'APPROVED', '45.5000'], // 75.50 - 30.00
      ['B2', 'DRAFT', '18.0000'],
      ['B3', 'VOID', '0.0000'], // 9.00 unpaid, but VOID
      ['B4', 'APPROVED', '0.0000'], // 60.00 - 60.00
      ['B5', 'APPROVED', '100.0000'],
      ['B6', 'APPROVED', '0.0000'],
      ['B8', 'APPROVED', '0.0000'], // 40.00 - 50.00 < 0
    ]);
  });

  it('is PAID when total > 0 and paid >= total, PARTIALLY_PAID when anything is paid, else UNPAID', async () => {
    const figures = await billFigures();
    expect(figures.map((f) => [f.bill_id, f.payment_status])).toEqual([
      ['B1', 'PARTIALLY_PAID'], // 30.00 of 75.50
      ['B2', 'UNPAID'],
      ['B3', 'UNPAID'],
      ['B4', 'PAID'], // 60.00 of 60.00
      ['B5', 'UNPAID'],
      ['B6', 'UNPAID'], // total 0 is never PAID
      ['B8', 'PAID'], // 50.00 of 40.00
    ]);
  });
});
