import type { DuckDBConnection } from '@duckdb/node-api';

/** Consecutive months of one group's entries: `from` the first month's first day, `to` the last's last. */
export interface EntryMonthRun {
  /** The workspace id when runs are by workspace, else null. */
  workspace: string | null;
  from: string;
  to: string;
  entries: number;
}

/**
 * The time entries in runs of consecutive months with entries, each of at most `maxEntries`
 * (a month with more is a run of its own), in entry-date order; `byWorkspace` keeps each run
 * inside one workspace. A derived table built whole is built a run at a time, for the memory
 * of one run's joins: time_entries lies in about entry-date order (the store hands the rows
 * out in the order they were written), so a run's range of days reads few row groups, where a
 * slice by hash of id read every row each time (docs/summaries.md, "The first build").
 */
export async function entryMonthRuns(
  duck: DuckDBConnection,
  maxEntries: number,
  byWorkspace: boolean,
): Promise<EntryMonthRun[]> {
  const group = byWorkspace ? 'CAST(workspace_id AS VARCHAR)' : 'NULL';
  const months = (
    await duck.runAndReadAll(
      `SELECT ${group}, CAST(entry_month(entry_date) AS VARCHAR), count(*)
       FROM time_entries GROUP BY ALL ORDER BY 1, 2`,
    )
  ).getRows() as [string | null, string, bigint][];
  const runs: EntryMonthRun[] = [];
  let run: EntryMonthRun | undefined;
  for (const [workspace, month, count] of months) {
    const entries = Number(count);
    if (run && (run.workspace !== workspace || run.entries + entries > maxEntries)) run = undefined;
    if (!run) {
      run = { workspace, from: month, to: month, entries: 0 };
      runs.push(run);
    }
    run.to = month;
    run.entries += entries;
  }
  for (const r of runs) r.to = lastDayOf(r.to);
  return runs;
}

/** The last day of the month whose first day is `first` (YYYY-MM-DD). */
function lastDayOf(first: string): string {
  const day = new Date(`${first}T00:00:00Z`);
  day.setUTCMonth(day.getUTCMonth() + 1, 0);
  return day.toISOString().slice(0, 10);
}
