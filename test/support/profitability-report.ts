import { afterAll, beforeAll, expect } from 'vitest';
import { createHarness, type Harness } from './harness.ts';
import { type Workspace, workspaces } from './workspace-builder.ts';

// What the profitability tests read (test/reports/profitability*.test.ts): the report's rows,
// asked for through HTTP.

export interface Row {
  userId: string | null;
  payeeId: string | null;
  name: string | null;
  projectId: string | null;
  projectName: string | null;
  [metric: string]: unknown;
}
export interface Member extends Row {
  projectCount: number;
  projects: Row[];
}
export interface Report {
  from: string;
  to: string;
  memberTotal: number;
  missingRateCount: number;
  summary: Row;
  members: Member[];
  [field: string]: unknown;
}

/** GET /team-payouts/profitability for the workspace's token; the answer's data. */
export async function profitabilityReport(
  h: Harness,
  ws: Workspace,
  query = 'from=2026-10-01&to=2026-10-31',
): Promise<Report> {
  const res = await h.app.inject({
    method: 'GET',
    url: `/api/v1/team-payouts/profitability?${query}`,
    headers: { authorization: `Bearer ${ws.token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: Report }>().data;
}

/** The row of a project, under whichever member it is. */
export const projectRow = (data: Report, projectId: string) => {
  const row = data.members.flatMap((m) => m.projects).find((p) => p.projectId === projectId);
  if (!row) throw new Error(`no row for project ${projectId}`);
  return row;
};

/**
 * For the suite it is called in: a server over every workspace the file built (its beforeAll
 * and afterAll), and `report` of one of them.
 */
export function useProfitabilityReport() {
  let opened: Harness | undefined;
  beforeAll(async () => {
    opened = await createHarness();
    for (const ws of workspaces) await opened.importObject(ws.snapshot);
    await opened.sync();
  });
  afterAll(() => opened?.close());
  const h = () => {
    if (opened === undefined) throw new Error('the profitability server is not open yet');
    return opened;
  };
  return {
    get h() {
      return h();
    },
    report: (ws: Workspace, query?: string) => profitabilityReport(h(), ws, query),
  };
}
