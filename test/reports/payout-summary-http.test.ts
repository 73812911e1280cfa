import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

/**
 * The summary end to end: snapshot -> PostgreSQL -> sync -> DuckDB views -> HTTP.
 * The small snapshot by hand: payee Max (45.00 EUR/h from 2026-01-01, start 2026-01-01).
 * - entry1, 5400 s billable, is on APPROVED bill B-0001 (one TIME line, 67.50): not unpaid.
 * - entry2, 3600 s non-billable, on no bill: unpaid, but in the non_billable section, so it
 *   is not in the default scope that `accrued` and `eligibleSeconds` sum.
 * - B-0001: total 67.50; payment of 67.50 RECORDED -> paid 67.50, outstanding 0.00.
 * - credit: 100.00 granted, 40.00 remaining -> credit 40.00.
 */
describe('GET /team-payouts/summary over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    await h.sync();
  });
  afterAll(() => h.close());

  const get = (query = '') =>
    h.app.inject({
      method: 'GET',
      url: `/api/v1/team-payouts/summary${query}`,
      headers: { authorization: `Bearer ${TOKENS.owner}` },
    });

  it('answers the figures worked out by hand', async () => {
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        canManage: true,
        currencies: [
          {
            currency: 'EUR',
            eligibleSeconds: 0,
            unbilledFrom: null,
            unbilledTo: null,
            accrued: '0.00',
            approved: '67.50',
            paid: '67.50',
            outstanding: '0.00',
            overdue: '0.00',
            credit: '40.00',
          },
        ],
        missingRateCount: 0,
        eligibleSeconds: 0,
        memberCount: 1,
        lastPaymentDate: '2026-11-10',
        lastPaymentAmount: '67.50',
        lastPaymentCurrency: 'EUR',
      },
    });
  });

  it('narrows to a currency, case-insensitively, with nothing in it', async () => {
    const res = await get('?currency=usd');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      currencies: [],
      eligibleSeconds: 0,
      lastPaymentDate: null,
      lastPaymentAmount: null,
      lastPaymentCurrency: null,
    });
  });
});
