-- Per team bill, the sums of its lines (decisions 7, "Bill amounts"):
--   subtotal         = sum of TIME and EXPENSE lines
--   adjustment_total = sum of ADJUSTMENT lines
-- For every bill with lines (all_bills), or for the bills in summary_dirty_bills only: the
-- sync keeps the table team_bill_line_sums equal to the first by refreshing the second.
CREATE OR REPLACE MACRO team_bill_line_sums_for(all_bills) AS TABLE
SELECT
  workspace_id,
  bill_id,
  sum(amount) FILTER (WHERE kind IN ('TIME', 'EXPENSE')) AS subtotal,
  sum(amount) FILTER (WHERE kind = 'ADJUSTMENT') AS adjustment_total
FROM team_bill_lines
WHERE all_bills OR bill_id IN (SELECT bill_id FROM summary_dirty_bills)
GROUP BY workspace_id, bill_id;
