import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, tinySnapshot, TOKENS } from '../support/small-snapshot.ts';
import { profitabilitySchema } from '../../src/reports/profitability/profitability.schema.ts';

const STUDIO_TOKEN = 'tt_test_StudioProf01_abcdefghijklmnopqrstuvwxyz012345';

/**
 * GET /team-payouts/profitability end to end over the small snapshot (snapshot -> PostgreSQL ->
 * sync -> DuckDB -> HTTP), plus who may call it and which queries it takes. The figures rules
 * one by one are in profitability.test.ts.
 */
describe('GET /team-payouts/profitability over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    await h.importObject(tinySnapshot(0x51, 'studio', STUDIO_TOKEN));
    await h.sync();
  });
  afterAll(() => h.close());

  const get = (query: string, token: string = TOKENS.owner) =>
    h.app.inject({
      method: 'GET',
      url: `/api/v1/team-payouts/profitability${query}`,
      headers: { authorization: `Bearer ${token}` },
    });

  /*
   * October 2026 of the small snapshot, base EUR, by hand. Max Member (payee, 45.00 EUR/h):
   * - entry1, 5400 s billable, on APPROVED bill B-0001 (TIME line 67.50 EUR; bill total 67.50,
   *   paid 67.50): approvedCost 67.50, paid 67.50 x min(67.50 / 67.50, 1) = 67.50.
   *   On SENT invoice INV-0001 (USD, issued 2026-10-31, subtotal 180.00, discount 18.00, total
   *   192.78, paid 100.00), line 180.00: billedNet 180 x (180 - 18) / 180 = 162.00 USD,
   *   collectedNet 162.00 x 100 / 192.78 = 84.0336… = 84.03 USD.
   *   USD -> EUR 0.92: 162.00 x 0.92 = 149.04 EUR; 84.03 x 0.92 = 77.3076 = 77.31 EUR.
   * - entry2, 3600 s non-billable, on no bill: estimatedCost 3600 x 45.00 / 3600 = 45.00 EUR.
   * compensationCost 67.50 + 45.00 = 112.50; pending 67.50 - 67.50 = 0.00;
   * margin 149.04 - 112.50 = 36.54; marginPercent 36.54 x 100 / 149.04 = 24.5169… = 24.52.
   * clientUnbilledSeconds 0: entry1 is invoiced, entry2 is not billable.
   */
  it('answers the small snapshot’s October as worked out by hand', async () => {
    const res = await get('?from=2026-10-01&to=2026-10-31');
    expect(res.statusCode).toBe(200);
    // The record is sent as the JSON text the query joins: still JSON, and valid against its
    // schema.
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(profitabilitySchema.safeParse(res.json().data).success).toBe(true);
    const figures = {
      billedNet: '149.04',
      collectedNet: '77.31',
      compensationCost: '112.50',
      approvedCost: '67.50',
      estimatedCost: '45.00',
      paid: '67.50',
      pending: '0.00',
      margin: '36.54',
      marginPercent: '24.52',
      clientUnbilledSeconds: 0,
      missingFx: false,
      missingPayRate: false,
      missingMetrics: [],
      nativeAmounts: [
        { currency: 'USD', metric: 'billedNet', amount: '162.00' },
        { currency: 'USD', metric: 'collectedNet', amount: '84.03' },
        { currency: 'EUR', metric: 'compensationCost', amount: '112.50' },
        { currency: 'EUR', metric: 'approvedCost', amount: '67.50' },
        { currency: 'EUR', metric: 'estimatedCost', amount: '45.00' },
        { currency: 'EUR', metric: 'paid', amount: '67.50' },
      ],
    };
    const max = { userId: ids.member, payeeId: ids.payee, name: 'Max Member' };
    expect(res.json()).toEqual({
      data: {
        from: '2026-10-01',
        to: '2026-10-31',
        view: 'work',
        baseCurrency: 'EUR',
        page: 1,
        perPage: 25,
        memberTotal: 1,
        missingRateCount: 0,
        summary: {
          userId: null,
          payeeId: null,
          name: null,
          projectId: null,
          projectName: null,
          ...figures,
          links: {
            app: '/app/team/profitability?from=2026-10-01&to=2026-10-31',
            payee: '',
            project: '',
            task: '',
          },
        },
        members: [
          {
            ...max,
            projectId: null,
            projectName: null,
            ...figures,
            links: {
              app: `/app/team/profitability?from=2026-10-01&to=2026-10-31&userId=${ids.member}`,
              payee: `/app/team/payees/${ids.payee}`,
              project: '',
              task: '',
            },
            projectCount: 1,
            projects: [
              {
                ...max,
                projectId: ids.project,
                projectName: 'Website',
                ...figures,
                links: {
                  app: `/app/team/profitability?from=2026-10-01&to=2026-10-31&userId=${ids.member}&projectId=${ids.project}`,
                  payee: `/app/team/payees/${ids.payee}`,
                  project: `/app/projects/${ids.project}`,
                  task: '',
                },
              },
            ],
          },
        ],
        unallocatedRevenue: [],
        unreconciledReceipts: [],
        missingFx: [],
        fxRates: [
          {
            id: ids.fx,
            fromCurrency: 'USD',
            toCurrency: 'EUR',
            effectiveFrom: '2026-01-01',
            createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
            used: true,
            rate: '0.92',
          },
        ],
      },
    });
  });

  it('lets Owner and Admin tokens with the read scope call it', async () => {
    expect((await get('?from=2026-10-01&to=2026-10-31', TOKENS.admin)).statusCode).toBe(200);
    expect((await get('', TOKENS.owner)).statusCode).toBe(200);
  });

  it('answers 403 forbidden_scope to Members and Managers', async () => {
    for (const token of [TOKENS.member, TOKENS.manager]) {
      const res = await get('', token);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('forbidden_scope');
    }
  });

  it('answers 403 forbidden_scope to an Owner token without the read scope', async () => {
    const res = await get('', TOKENS.writeOnly);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('forbidden_scope');
  });

  it('answers 402 on the studio plan, naming the agency plan and the team_payouts feature', async () => {
    const res = await get('', STUDIO_TOKEN);
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toMatchObject({
      code: 'forbidden_plan',
      requiredPlan: 'agency',
      feature: 'team_payouts',
    });
  });

  it('checks role and scope before the query: a Member with a bad query gets 403', async () => {
    const res = await get('?nope=1', TOKENS.member);
    expect(res.statusCode).toBe(403);
  });

  it('answers 422 invalid_query to an unknown parameter, naming it', async () => {
    const res = await get('?from=2026-10-01&currency=EUR');
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'invalid_query',
      fields: { currency: expect.any(String) },
    });
  });

  it('answers 422 invalid_query to a repeated parameter, naming it', async () => {
    const res = await get('?page=1&page=2');
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'invalid_query',
      fields: { page: expect.any(String) },
    });
  });

  it.each([
    ['view=other', 'view'],
    ['view=', 'view'],
    ['perPage=101', 'perPage'],
    ['perPage=0', 'perPage'],
    ['page=0', 'page'],
    ['page=1.5', 'page'],
    ['page=-1', 'page'],
    ['from=2026-13-01', 'from'],
    ['to=yesterday', 'to'],
    ['userId=42', 'userId'],
    ['projectId=not-a-uuid', 'projectId'],
    ['clientId=', 'clientId'],
  ])('answers 422 validation_failed to %s', async (query, field) => {
    const res = await get(`?${query}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('validation_failed');
    expect(Object.keys(res.json().error.fields as object)).toEqual([field]);
  });

  it('answers 422 validation_failed to a range that ends before it starts', async () => {
    const res = await get('?from=2026-10-31&to=2026-10-01');
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'validation_failed',
      fields: { to: expect.any(String) },
    });
  });

  it('takes view=work, perPage=100 and upper-case ids', async () => {
    const res = await get(
      `?view=work&perPage=100&page=2&userId=${ids.member.toUpperCase()}&from=2026-10-01&to=2026-10-31`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ page: 2, perPage: 100, memberTotal: 1, members: [] });
  });
});
