// The generated workspace as the dashboard benchmarks use it: which member, project, client and
// entries their writes change, and the report cases a dashboard asks for.
import type pg from 'pg';

export interface Entry {
  id: string;
  date: string;
  durationSeconds: number;
}

export interface ReportCase {
  name: string;
  url: string;
  profitability: boolean;
  /** The entry whose change reaches this report: the October one, or the one of the week. */
  entry: 'october' | 'week';
}

export type Send = (
  method: 'PATCH',
  url: string,
  body: object,
) => Promise<{ statusCode: number; body: string }>;

/**
 * What the filtered cases ask for: the project with the most entries in October 2026, its
 * client, and its member with the most entries there; and the entries written: that member's
 * on that project, one in 2026-10-01..20 (inside every range but the week's) and one in the
 * week 2026-11-02..08.
 */
export async function pickWorkspaceData(pool: pg.Pool, workspaceId: string, send: Send) {
  const { rows } = await pool.query<{
    project_id: string;
    client_id: string;
    client_name: string;
    user_id: string;
  }>(
    `SELECT t.project_id, p.client_id, c.name AS client_name, t.user_id
     FROM time_entries t JOIN projects p ON p.id = t.project_id JOIN clients c ON c.id = p.client_id
     WHERE t.workspace_id = $1 AND t.entry_date BETWEEN '2026-10-01' AND '2026-10-31'
       AND t.deleted_at IS NULL AND p.client_id IS NOT NULL
     GROUP BY t.project_id, p.client_id, c.name, t.user_id
     ORDER BY sum(count(*)) OVER (PARTITION BY t.project_id) DESC, count(*) DESC,
       t.project_id, t.user_id
     LIMIT 1`,
    [workspaceId],
  );
  const { project_id: projectId, client_id: clientId, client_name, user_id: userId } = rows[0]!;
  const preferred = { workspaceId, userId, projectId };
  return {
    userId,
    projectId,
    clientId,
    clientName: client_name,
    entries: {
      october: await writableEntry(pool, send, preferred, '2026-10-01', '2026-10-20'),
      week: await writableEntry(pool, send, preferred, '2026-11-02', '2026-11-08'),
    },
  };
}

/**
 * An entry dated within from..to, the member's on the project first, whose duration the API
 * lets change: one on a sent or paid invoice or an approved bill refuses it (409), so
 * candidates are tried (a minute more, then the duration back) until one takes it.
 */
async function writableEntry(
  pool: pg.Pool,
  send: Send,
  preferred: { workspaceId: string; userId: string; projectId: string },
  from: string,
  to: string,
): Promise<Entry> {
  const { rows } = await pool.query<{ id: string; date: string; duration: number }>(
    `SELECT id, to_char(entry_date, 'YYYY-MM-DD') AS date, duration_seconds AS duration
     FROM time_entries
     WHERE workspace_id = $1 AND entry_date BETWEEN $2 AND $3 AND deleted_at IS NULL
       AND NOT is_running AND invoice_id IS NULL AND duration_seconds < 86000
     ORDER BY (user_id = $4 AND project_id = $5) DESC, id
     LIMIT 50`,
    [preferred.workspaceId, from, to, preferred.userId, preferred.projectId],
  );
  for (const row of rows) {
    const url = `/time-entries/${row.id}`;
    const res = await send('PATCH', url, { durationSeconds: row.duration + 60 });
    if (res.statusCode === 409) continue;
    if (res.statusCode !== 200) throw new Error(`PATCH ${url}: ${res.statusCode} ${res.body}`);
    await send('PATCH', url, { durationSeconds: row.duration });
    return { id: row.id, date: row.date, durationSeconds: row.duration };
  }
  throw new Error(`No entry dated ${from}..${to} whose duration may change`);
}

export function reportCases(picked: { userId: string; projectId: string; clientId: string }) {
  const profitability = (
    name: string,
    from: string,
    to: string,
    extra = '',
    entry: ReportCase['entry'] = 'october',
  ): ReportCase => ({
    name: `profitability ${name}`,
    url: `/team-payouts/profitability?from=${from}&to=${to}${extra}`,
    profitability: true,
    entry,
  });
  return [
    { name: 'summary', url: '/team-payouts/summary', profitability: false, entry: 'october' },
    {
      name: 'unpaid time, first page',
      url: '/team-payouts/unpaid-time',
      profitability: false,
      entry: 'october',
    },
    profitability('2026-10', '2026-10-01', '2026-10-31'),
    profitability('2025-11..2026-10', '2025-11-01', '2026-10-31'),
    profitability('2026-09-15..2026-10-20', '2026-09-15', '2026-10-20'),
    profitability('week 2026-11-02..08', '2026-11-02', '2026-11-08', '', 'week'),
    profitability('quarter to date', '2026-10-01', '2026-11-15'),
    profitability('year to date', '2026-01-01', '2026-11-15'),
    profitability('2026-10, userId', '2026-10-01', '2026-10-31', `&userId=${picked.userId}`),
    profitability(
      'year to date, clientId',
      '2026-01-01',
      '2026-11-15',
      `&clientId=${picked.clientId}`,
    ),
    profitability(
      '2026-10, projectId',
      '2026-10-01',
      '2026-10-31',
      `&projectId=${picked.projectId}`,
    ),
    profitability('year to date, page 2', '2026-01-01', '2026-11-15', '&page=2'),
    // What the dashboard asks for (docs/api.md, "Profitability: the page, a drill-down, a
    // series"): the page without projects, a member's drill-down, the margin series.
    profitability('year to date, projects=none', '2026-01-01', '2026-11-15', '&projects=none'),
    profitability('2025-11..2026-10, projects=none', '2025-11-01', '2026-10-31', '&projects=none'),
    profitability(
      'year to date, drill-down',
      '2026-01-01',
      '2026-11-15',
      `&userId=${picked.userId}`,
    ),
    {
      name: 'profitability series 2025-12..2026-11 by month',
      url: '/team-payouts/profitability/series?from=2025-12-01&to=2026-11-30',
      profitability: true,
      entry: 'october',
    },
    {
      name: 'profitability series 2026-08..11 by week',
      url: '/team-payouts/profitability/series?from=2026-08-03&to=2026-11-29&interval=week',
      profitability: true,
      entry: 'october',
    },
  ] satisfies ReportCase[];
}
