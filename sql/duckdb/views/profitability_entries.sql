-- The time entries a profitability report counts (decisions 8, view=work), for workspace `ws`:
-- live, not running, entry_date in d_from..d_to (both inclusive), narrowed by `user_filter`,
-- `project_filter` and `client_filter` (the client of the entry's project); a NULL filter
-- narrows nothing. A deleted project or client still counts: deletion does not cascade
-- (test/reference choices 1 and 27). A 0-second entry counts too: it makes its rows.
-- A plain filtered scan, so DuckDB can estimate its size when it joins it to the bill and
-- invoice lines (and builds its hash table on it, not on the millions of lines).
-- Two narrowings serve the month cells the sync keeps (profitability_month_cells): entries
-- dated skip_from..skip_to are left out (the report reads those months from the cells), and
-- with `dirty` only the entries of the cells listed in summary_dirty_cells are counted.
CREATE OR REPLACE MACRO profitability_entries(ws, d_from, d_to, user_filter, project_filter, client_filter, skip_from := NULL, skip_to := NULL, dirty := false) AS TABLE
SELECT e.id AS time_entry_id, e.user_id, e.project_id, e.entry_date, e.duration_seconds, e.billable
FROM time_entries e
WHERE e.workspace_id = ws
  AND e.deleted_at IS NULL
  AND NOT e.is_running
  AND e.entry_date BETWEEN d_from AND d_to
  AND (user_filter IS NULL OR e.user_id = user_filter)
  AND (project_filter IS NULL OR e.project_id = project_filter)
  AND (
    client_filter IS NULL
    OR e.project_id IN (
      SELECT id FROM projects WHERE workspace_id = ws AND client_id = client_filter
    )
  )
  AND (skip_from IS NULL OR e.entry_date NOT BETWEEN skip_from AND skip_to)
  AND (
    NOT dirty
    OR EXISTS (
      SELECT 1 FROM summary_dirty_cells d
      WHERE d.workspace_id = ws
        AND d.user_id = e.user_id
        AND d.project_id = e.project_id
        AND d.month = entry_month(e.entry_date)
    )
  );
