import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generatedWorkspace,
  smallWorkspaceOptions,
  type GeneratedWorkspace,
} from '../support/generated-workspaces.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { monthOf, monthsBefore } from '../../src/reports/profitability/profitability.range.ts';
import {
  profitabilitySchema,
  profitabilitySeriesSchema,
} from '../../src/reports/profitability/profitability.schema.ts';
import { todayIn } from '../../src/time/calendar.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are compared by value
type Body = Record<string, any>;

/**
 * The answers a dashboard asks for beside the contract's report (docs/api.md, "Profitability"):
 * the page without its members' projects, one member's drill-down, and the series per month
 * or week. Each is checked against the contract's answer for the same entries, on generated
 * workspaces (rates changing mid-range, missing FX rates, JPY and KWD, partly covered months):
 * whatever the report computes, these views must show the same figures.
 */
const WORKSPACES = 4;
const RANGES = [
  { from: '2026-10-01', to: '2026-10-31' },
  { from: '2026-02-10', to: '2026-09-20' },
  { from: '2025-01-01', to: '2026-12-31' },
];
const FIGURES = [
  'billedNet',
  'collectedNet',
  'compensationCost',
  'approvedCost',
  'estimatedCost',
  'paid',
  'pending',
  'margin',
  'marginPercent',
  'clientUnbilledSeconds',
  'missingFx',
  'missingPayRate',
  'missingMetrics',
] as const;
const figuresOf = (row: Body) => Object.fromEntries(FIGURES.map((f) => [f, row[f]]));

describe('the profitability views a dashboard asks for', () => {
  let h: Harness;
  const workspaces: GeneratedWorkspace[] = [];
  beforeAll(async () => {
    // Hundreds of comparisons per token: the rate limit is not what this tests.
    h = await createHarness({ rateLimit: { requests: 100_000 } });
    for (let seed = 3001; seed < 3001 + WORKSPACES; seed++)
      workspaces.push(await generatedWorkspace(h.pool, smallWorkspaceOptions(seed)));
    await h.sync();
  }, 300_000);
  afterAll(() => h?.close());

  const send = (ws: GeneratedWorkspace, path: string) =>
    h.app.inject({
      method: 'GET',
      url: `/api/v1/team-payouts/profitability${path}`,
      headers: { authorization: `Bearer ${ws.ownerToken}` },
    });
  const get = async (ws: GeneratedWorkspace, path: string): Promise<Body> => {
    const res = await send(ws, path);
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
    return res.json<Body>().data as Body;
  };

  it('projects=none answers the page as the contract does, without the members’ projects', async () => {
    for (const ws of workspaces)
      for (const { from, to } of RANGES)
        for (const page of ['page=1&perPage=2', 'page=2&perPage=2', 'perPage=100']) {
          const query = `?from=${from}&to=${to}&${page}`;
          const full = await get(ws, query);
          const lean = await get(ws, `${query}&projects=none`);
          expect(profitabilitySchema.safeParse(lean).success).toBe(true);
          const expected = {
            ...full,
            members: full.members.map(({ projects, projectCount, ...member }: Body) => {
              expect(projects).toHaveLength(projectCount);
              return member;
            }),
          };
          expect(lean).toStrictEqual(expected);
        }
    // Its Arrow answer too: the schema's columns, the project ones null on every member.
    const arrow = await h.app.inject({
      method: 'GET',
      url: '/api/v1/team-payouts/profitability?from=2025-01-01&to=2026-12-31&projects=none',
      headers: {
        authorization: `Bearer ${workspaces[0]!.ownerToken}`,
        accept: 'application/vnd.apache.arrow.stream',
      },
    });
    expect(arrow.statusCode, arrow.body).toBe(200);
    const table = tableFromIPC(arrow.rawPayload);
    expect(table.numRows).toBeGreaterThan(0);
    for (const row of table.toArray() as Body[])
      expect([row.projects, row.projectCount]).toStrictEqual([null, null]);
  });

  it('a drill-down (userId) answers a member’s row and projects as the whole page has them', async () => {
    for (const ws of workspaces)
      for (const { from, to } of RANGES) {
        const full = await get(ws, `?from=${from}&to=${to}&perPage=100`);
        expect(full.members.length).toBeGreaterThan(0);
        for (const member of full.members) {
          const one = await get(ws, `?from=${from}&to=${to}&userId=${member.userId}`);
          expect(one.members).toHaveLength(1);
          const { links: ownLinks, ...own } = one.members[0];
          const { links, ...expected } = member;
          expect(ownLinks.app).toBe(links.app);
          expect(own).toStrictEqual(expected);
        }
      }
  });

  it('each point of a series has the figures of the report of its days', async () => {
    for (const ws of workspaces) {
      const full = await get(ws, `?from=2026-01-01&to=2026-12-31&perPage=100`);
      const member = full.members[0];
      const project = member.projects[0];
      const filters = ['', `&userId=${member.userId}`, `&projectId=${project.projectId}`];
      for (const interval of ['month', 'week'])
        for (const filter of filters) {
          const from = interval === 'month' ? '2025-11-20' : '2026-08-13';
          const to = interval === 'month' ? '2026-11-10' : '2026-11-03';
          const series = await get(
            ws,
            `/series?from=${from}&to=${to}&interval=${interval}${filter}`,
          );
          expect(profitabilitySeriesSchema.safeParse(series).success).toBe(true);
          expect(series).toMatchObject({ from, to, interval, baseCurrency: full.baseCurrency });
          // Every month (or ISO week) the range touches, in order, clipped to the range.
          expect(series.points[0].from).toBe(from);
          expect(series.points.at(-1).to).toBe(to);
          for (const [i, point] of series.points.entries()) {
            if (i > 0) {
              const next = new Date(`${series.points[i - 1].to}T00:00:00Z`);
              next.setUTCDate(next.getUTCDate() + 1);
              expect(point.from).toBe(next.toISOString().slice(0, 10));
            }
            if (interval === 'week' && point.from !== from)
              expect(new Date(`${point.from}T00:00:00Z`).getUTCDay()).toBe(1);
            if (interval === 'month' && point.from !== from) expect(point.from.slice(8)).toBe('01');
            const report = await get(ws, `?from=${point.from}&to=${point.to}${filter}`);
            expect(figuresOf(point)).toStrictEqual(figuresOf(report.summary));
          }
          // 2025-11..2026-11; the ISO weeks from Monday 2026-08-10 to Monday 2026-11-02.
          expect(series.points.length).toBe(13);
        }
    }
  });

  it('a series defaults to the twelve months ending with the current one', async () => {
    const ws = workspaces[0]!;
    const month = monthOf(todayIn(ws.timezone));
    const series = await get(ws, '/series');
    expect(series.from).toBe(monthsBefore(month.to, 11));
    expect(series.to).toBe(month.to);
    expect(series.interval).toBe('month');
    expect(series.points).toHaveLength(12);
  });

  it('answers 422 to a bad interval, a reversed range, too many points and a bad projects value', async () => {
    const ws = workspaces[0]!;
    const cases: [string, string][] = [
      ['/series?interval=day', 'interval'],
      ['/series?from=2026-05-01&to=2026-04-30', 'to'],
      ['/series?from=2010-01-01&to=2026-12-31', 'from'],
      ['/series?from=2024-01-01&to=2026-12-31&interval=week', 'from'],
      ['?projects=some', 'projects'],
    ];
    for (const [path, field] of cases) {
      const res = await send(ws, path);
      expect(res.statusCode, path).toBe(422);
      expect(JSON.stringify(res.json()), path).toContain(field);
    }
    // Ten years of months is the most a series answers.
    expect((await send(ws, '/series?from=2017-01-01&to=2026-12-31')).statusCode).toBe(200);
  });
});
