-- Per payee, rate currency and billable, the figures of its payable entries (payee_entry_pay),
-- which the payout summary adds up per currency (docs/contract.md, "Summary per currency"):
--   currency   = the rate's currency; NULL for entries without a rate at their date (they
--                count towards missingRateCount)
--   items, seconds, first_date, last_date over those entries
--   amount     = the sum of the unpaid-time items' amounts (time_cost, each rounded to the
--                currency's minor unit, as unpaid_time_items prices them)
--   unpriced   = items whose currency is unknown (no scale): their amount is not guessed, and
--                the summary's accrued becomes NULL rather than smaller
-- For every payee (all_payees), or for the payees in summary_dirty_payees only: the sync keeps
-- the table payee_unpaid_totals equal to the first by refreshing the second.
CREATE OR REPLACE MACRO payee_unpaid_totals_for(all_payees) AS TABLE
SELECT
  er.workspace_id,
  er.payee_id,
  er.rate_currency AS currency,
  er.billable,
  count(*) AS items,
  sum(er.duration_seconds) AS seconds,
  min(er.entry_date) AS first_date,
  max(er.entry_date) AS last_date,
  sum(
    CASE
      WHEN er.rate_id IS NOT NULL AND c.scale IS NOT NULL
        THEN time_cost(er.duration_seconds, er.hourly_rate, c.scale)
    END
  ) AS amount,
  count(*) FILTER (WHERE er.rate_id IS NOT NULL AND c.scale IS NULL) AS unpriced
FROM payee_entry_pay er
LEFT JOIN currencies c ON c.code = er.rate_currency
WHERE all_payees OR er.payee_id IN (SELECT payee_id FROM summary_dirty_payees)
GROUP BY er.workspace_id, er.payee_id, er.rate_currency, er.billable;
