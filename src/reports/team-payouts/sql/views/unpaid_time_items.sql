-- Team unpaid-time items (docs/contract.md, "Unpaid-time item"): one per payable entry of a payee
-- (payee_entry_pay: the rows of payee_entry_rates with is_payable, kept by the sync; not
-- running, not deleted, duration > 0, on/after the payee's start date, on no APPROVED bill)
-- that has a pay rate at its entry date.
--   amount   = duration_seconds x hourly_rate / 3600, rounded half away from zero to the
--              rate currency's minor unit (docs/contract.md, "Money and rounding"; time_cost in
--              macros.sql)
--   currency = the rate's currency
--   section  = 'default' when billable, else 'non_billable' (docs/contract.md, "Value sets");
--   selected_by_default = billable
-- The item's id is its time entry's id: there is exactly one item per entry.
-- Project and task names are labels: an archived (deleted) task or project still names the
-- work, which is owed all the same, so those joins do not filter on deleted_at.
-- A rate currency missing from `currencies` gives a NULL amount (an error downstream),
-- never an amount at a guessed scale.
CREATE OR REPLACE VIEW unpaid_time_items AS
SELECT
  er.time_entry_id AS id,
  er.time_entry_id,
  er.workspace_id,
  er.payee_id,
  er.user_id,
  er.payee_name AS name,
  er.project_id,
  pr.name AS project_name,
  er.task_id,
  t.name AS task_name,
  er.note AS description,
  er.rate_currency AS currency,
  er.entry_date AS work_date,
  er.duration_seconds,
  er.rate_id,
  er.hourly_rate,
  CASE
    WHEN c.scale IS NOT NULL THEN time_cost(er.duration_seconds, er.hourly_rate, c.scale)
  END AS amount,
  CASE WHEN er.billable THEN 'default' ELSE 'non_billable' END AS section,
  er.billable AS selected_by_default,
  er.created_at
FROM payee_entry_pay er
LEFT JOIN projects pr ON pr.workspace_id = er.workspace_id AND pr.id = er.project_id
LEFT JOIN tasks t ON t.workspace_id = er.workspace_id AND t.id = er.task_id
LEFT JOIN currencies c ON c.code = er.rate_currency
WHERE er.rate_id IS NOT NULL;
