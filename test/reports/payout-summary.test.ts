import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPayoutSummary } from '../../src/reports/payout-summary/payout-summary.query.ts';
import {
  payoutSummarySchema,
  type PayoutSummary,
} from '../../src/reports/payout-summary/payout-summary.schema.ts';
import { TODAY, W1, W2, label, openPayoutWorkspace, rows } from '../support/payout-workspace.ts';

// The team payout summary (docs/contract.md, "Summary per currency" and "Summary totals")
// over the hand-made workspace of test/support/payout-workspace.ts, whose comments work out
// every expected figure.

let opened: Awaited<ReturnType<typeof openPayoutWorkspace>>;
let db: DuckDBConnection;

beforeAll(async () => {
  opened = await openPayoutWorkspace();
  db = opened.db;
});

afterAll(() => opened.close());

describe('loadPayoutSummary', () => {
  const summary = (
    params: { currency?: string; today?: string; ws?: string; canManage?: boolean } = {},
  ) =>
    loadPayoutSummary(db, {
      workspaceId: params.ws ?? W1,
      today: params.today ?? TODAY,
      canManage: params.canManage ?? true,
      ...(params.currency === undefined ? {} : { currency: params.currency }),
    });

  const EUR = {
    currency: 'EUR',
    eligibleSeconds: 14502,
    unbilledFrom: '2026-10-02',
    unbilledTo: '2026-10-17',
    accrued: '113.77',
    approved: '75.50', // B1 75.50 + B6 0.00 (B2 DRAFT, B3 VOID, B7 deleted)
    paid: '30.00', // B1 30.00
    outstanding: '45.50', // B1 45.50 + B6 0
    overdue: '45.50', // B1 due 11-10 < 11-20; B6 due 11-01 has nothing remaining
    credit: '40.00',
  };
  const GBP = {
    currency: 'GBP', // listed for Chiyo's credit alone
    eligibleSeconds: 0,
    unbilledFrom: null,
    unbilledTo: null,
    accrued: '0.00',
    approved: '0.00',
    paid: '0.00',
    outstanding: '0.00',
    overdue: '0.00',
    credit: '20.00',
  };
  const JPY = {
    currency: 'JPY',
    eligibleSeconds: 4518,
    unbilledFrom: '2026-10-05',
    unbilledTo: '2026-10-06',
    accrued: '3138',
    approved: '0',
    paid: '0',
    outstanding: '0',
    overdue: '0',
    credit: '0',
  };
  const KWD = {
    currency: 'KWD',
    eligibleSeconds: 3700,
    unbilledFrom: '2026-11-03',
    unbilledTo: '2026-11-04',
    accrued: '7.324',
    approved: '0.000',
    paid: '0.000',
    outstanding: '0.000',
    overdue: '0.000',
    credit: '0.000',
  };
  const USD = {
    currency: 'USD',
    eligibleSeconds: 3754,
    unbilledFrom: '2026-10-15',
    unbilledTo: '2026-10-21',
    accrued: '63.21',
    approved: '200.00', // B4 60.00 + B5 100.00 + B8 40.00
    paid: '110.00', // B4 60.00 + B5 0 + B8 50.00
    outstanding: '100.00', // B4 0 + B5 100.00 + B8 0
    overdue: '0.00', // B5 is due today, not before it
    credit: '0.00',
  };

  it('answers every figure per currency, sorted by code, and the workspace totals', async () => {
    const expected: PayoutSummary = {
      canManage: true,
      currencies: [EUR, GBP, JPY, KWD, USD],
      missingRateCount: 2, // Ada (E06, E13) and Chiyo (G08)
      eligibleSeconds: 26474, // 14502 + 0 + 4518 + 3700 + 3754
      memberCount: 3, // Ada, Ben, Chiyo (Eve's payee is deleted, Dan has none)
      lastPaymentDate: '2026-11-18',
      lastPaymentAmount: '60.00', // PM2
      lastPaymentCurrency: 'USD',
    };
    const result = await summary();
    expect(result).toEqual(expected);
    expect(payoutSummarySchema.parse(result)).toEqual(expected);
  });

  it('narrows currencies, eligibleSeconds and the last payment to the currency filter', async () => {
    expect(await summary({ currency: 'USD' })).toEqual({
      canManage: true,
      currencies: [USD],
      missingRateCount: 2,
      eligibleSeconds: 3754,
      memberCount: 3,
      lastPaymentDate: '2026-11-18',
      lastPaymentAmount: '60.00',
      lastPaymentCurrency: 'USD',
    });
    // EUR: PM5 (11-19, deleted) and PM3 (11-15, REVERSED) are later than PM1 but do not count.
    expect(await summary({ currency: 'EUR' })).toMatchObject({
      currencies: [EUR],
      eligibleSeconds: 14502,
      lastPaymentDate: '2026-11-12',
      lastPaymentAmount: '30.00',
      lastPaymentCurrency: 'EUR',
    });
  });

  it('answers no currencies and no last payment for a currency without activity', async () => {
    expect(await summary({ currency: 'CHF' })).toEqual({
      canManage: true,
      currencies: [],
      missingRateCount: 2,
      eligibleSeconds: 0,
      memberCount: 3,
      lastPaymentDate: null,
      lastPaymentAmount: null,
      lastPaymentCurrency: null,
    });
  });

  it('counts payees with unpriced payable work once each, whatever its billable flag', async () => {
    // Unpriced but not counted: F01 (before Ben's start date), G01 running, G02 zero-length,
    // G03 deleted, and Eve's and Dan's entries (no live payee).
    const unpriced = await rows(
      `SELECT time_entry_id FROM payee_entry_rates
       WHERE workspace_id = $ws AND is_payable AND rate_id IS NULL ORDER BY time_entry_id`,
      { ws: W1 },
    );
    expect(unpriced.map((r) => label.get(String(r.time_entry_id)))).toEqual(['E06', 'E13', 'G08']);
    expect((await summary()).missingRateCount).toBe(2);
  });

  it('takes the last payment by paid date, then creation time, then id', async () => {
    // W1: PM2 and PM4 share 11-18; PM2 was created later and wins over PM4's greater id.
    expect(await summary()).toMatchObject({
      lastPaymentAmount: '60.00',
      lastPaymentCurrency: 'USD',
    });
    // W2: same date and creation time; 80000000-.. is the greater id -> 22.00.
    expect(await summary({ ws: W2 })).toMatchObject({
      lastPaymentDate: '2026-11-25',
      lastPaymentAmount: '22.00',
      lastPaymentCurrency: 'EUR',
    });
  });

  it('counts as overdue the remaining of approved bills due before the given today', async () => {
    // 11-10: B1 is due that day, not before it -> EUR overdue 0.
    const early = await summary({ today: '2026-11-10' });
    expect(early.currencies.map((c) => [c.currency, c.overdue])).toEqual([
      ['EUR', '0.00'],
      ['GBP', '0.00'],
      ['JPY', '0'],
      ['KWD', '0.000'],
      ['USD', '0.00'],
    ]);
    // 11-21: B1 45.50 and now B5 100.00 (due 11-20) are overdue.
    const late = await summary({ today: '2026-11-21' });
    expect(late.currencies.map((c) => [c.currency, c.overdue])).toEqual([
      ['EUR', '45.50'],
      ['GBP', '0.00'],
      ['JPY', '0'],
      ['KWD', '0.000'],
      ['USD', '100.00'],
    ]);
  });

  it('keeps workspaces apart and passes canManage through', async () => {
    expect(await summary({ ws: W2, canManage: false })).toEqual({
      canManage: false,
      currencies: [
        {
          currency: 'EUR',
          eligibleSeconds: 3600,
          unbilledFrom: '2026-10-10',
          unbilledTo: '2026-10-10',
          accrued: '1000.00', // 1 h x 1000.00
          approved: '0.00',
          paid: '0.00',
          outstanding: '0.00',
          overdue: '0.00',
          credit: '0.00',
        },
      ],
      missingRateCount: 0,
      eligibleSeconds: 3600,
      memberCount: 1,
      lastPaymentDate: '2026-11-25',
      lastPaymentAmount: '22.00',
      lastPaymentCurrency: 'EUR',
    });
  });
});
