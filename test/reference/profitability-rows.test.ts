import { describe, expect, it } from 'vitest';
import { profitability } from './profitability.ts';
import {
  ADA,
  APP,
  BEN,
  CLIENT_GLOBEX,
  CY,
  entry,
  id,
  PAYEE_ADA,
  payeeAda,
  rate,
  WEBSITE,
  workspace,
} from './reference-fixtures.ts';

const TODAY = '2026-10-15'; // range 2026-10-01..2026-10-31

/** Ada is paid 40.00 EUR/h; Ben and Cy have no payee. */
const ADA_AT_40 = payeeAda({ rates: [rate(1, '2026-01-01', '40.00')] });

describe('profitability: rows, summary and paging (docs/contract.md, "Rows, summary and paging")', () => {
  it('gives each member with entries a row and, inside it, one row per project by name', () => {
    // Ada: Website 1 h (40.00), App 0.5 h (20.00) and a 0-second App entry. Ben: App 1 h.
    // Cy has no entry and no row. Projects are sorted by name: App before Website.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [
        entry(1, { projectId: WEBSITE }),
        entry(2, { projectId: APP, durationSeconds: 1800 }),
        entry(3, { projectId: APP, durationSeconds: 0 }),
        entry(4, { projectId: APP, userId: BEN }),
      ],
    });
    const report = profitability(snapshot, { today: TODAY });
    expect(report.members.map((m) => [m.name, m.estimatedCost, m.projectCount])).toEqual([
      ['Ada L. (contractor)', '60.00', 2],
      ['Ben Okafor', '0.00', 1],
    ]);
    const [ada] = report.members;
    expect(
      ada?.projects.map((p) => [
        p.userId,
        p.payeeId,
        p.name,
        p.projectId,
        p.projectName,
        p.estimatedCost,
        p.clientUnbilledSeconds,
      ]),
    ).toEqual([
      [ADA, PAYEE_ADA, 'Ada L. (contractor)', APP, 'App', '20.00', 1800],
      [ADA, PAYEE_ADA, 'Ada L. (contractor)', WEBSITE, 'Website', '40.00', 3600],
    ]);
    expect(ada?.projects[0]).not.toHaveProperty('projects');
  });

  it('sums the summary over every member with null identity and the union of flags', () => {
    // Ada costs 40.00; Ben has no payee (missingPayRate). Summary: 40.00 estimated,
    // missingPayRate true, missingMetrics compensationCost + estimatedCost.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [entry(1), entry(2, { userId: BEN })],
    });
    const { summary } = profitability(snapshot, { today: TODAY });
    expect(summary).toEqual({
      userId: null,
      payeeId: null,
      name: null,
      projectId: null,
      projectName: null,
      billedNet: '0.00',
      collectedNet: '0.00',
      compensationCost: '40.00',
      approvedCost: '0.00',
      estimatedCost: '40.00',
      paid: '0.00',
      pending: '0.00',
      margin: '-40.00',
      marginPercent: null,
      clientUnbilledSeconds: 7200,
      missingFx: false,
      missingPayRate: true,
      missingMetrics: ['compensationCost', 'estimatedCost'],
      nativeAmounts: [
        { currency: 'EUR', metric: 'compensationCost', amount: '40.00' },
        { currency: 'EUR', metric: 'estimatedCost', amount: '40.00' },
      ],
    });
  });

  it('sorts members by name then userId and pages them; totals cover every page', () => {
    // Names: Ada's payee is "Zed", Ben is "Ben Okafor", Cy's payee is also "Ben Okafor".
    // Order: Ben (id ..12), Cy (id ..13), Zed. Ben has no payee: missingRateCount 1.
    const snapshot = workspace({
      payees: [
        payeeAda({ name: 'Zed', rates: [rate(1, '2026-01-01', '40.00')] }),
        { id: id(0x23), userId: CY, name: 'Ben Okafor', rates: [rate(3, '2026-01-01', '30.00')] },
      ],
      timeEntries: [entry(1), entry(2, { userId: BEN }), entry(3, { userId: CY })],
    });
    const page = (p: number, perPage: number) =>
      profitability(snapshot, { today: TODAY, page: p, perPage });
    expect(profitability(snapshot, { today: TODAY }).members.map((m) => m.userId)).toEqual([
      BEN,
      CY,
      ADA,
    ]);
    const second = page(2, 1);
    expect(second.members.map((m) => m.userId)).toEqual([CY]);
    expect(second).toMatchObject({
      page: 2,
      perPage: 1,
      memberTotal: 3,
      missingRateCount: 1,
      summary: { estimatedCost: '70.00' },
    });
    expect(page(2, 2).members.map((m) => m.userId)).toEqual([ADA]);
    expect(page(4, 1).members).toEqual([]);
    expect(profitability(snapshot, { today: TODAY }).perPage).toBe(25);
  });

  it('rejects a page below 1 and a perPage outside 1..100', () => {
    const snapshot = workspace({});
    expect(() => profitability(snapshot, { today: TODAY, page: 0 })).toThrow(RangeError);
    expect(() => profitability(snapshot, { today: TODAY, perPage: 101 })).toThrow(RangeError);
    expect(profitability(snapshot, { today: TODAY, perPage: 100 }).members).toEqual([]);
  });

  it('narrows entries by userId, projectId and clientId (the project client)', () => {
    // Ada: Website 1 h + App 1 h; Ben: App 1 h (no payee). Globex owns Website only.
    const snapshot = workspace({
      payees: [ADA_AT_40],
      timeEntries: [
        entry(1, { projectId: WEBSITE }),
        entry(2, { projectId: APP }),
        entry(3, { projectId: APP, userId: BEN }),
      ],
    });
    const rows = (q: { userId?: string; projectId?: string; clientId?: string }) =>
      profitability(snapshot, { today: TODAY, ...q }).members.map((m) => [
        m.userId,
        m.estimatedCost,
        m.projects.map((p) => p.projectName),
      ]);
    expect(rows({ clientId: CLIENT_GLOBEX })).toEqual([[ADA, '40.00', ['Website']]]);
    expect(rows({ projectId: APP })).toEqual([
      [ADA, '40.00', ['App']],
      [BEN, '0.00', ['App']],
    ]);
    expect(rows({ userId: BEN })).toEqual([[BEN, '0.00', ['App']]]);
  });
});
