-- Per invoice and line project, the net of the invoice's lines that name no time entry
-- (docs/contract.md, "Unallocated revenue and receipts"; test/reference choice 41): each line's
-- amount net of the invoice's discount (e4_invoice_line_net), rounded per line to the invoice
-- currency, then summed. Every invoice, whatever its status, date or deletion: the report filters
-- those on the invoices themselves (profitability_unallocated_revenue). For every invoice
-- (all_invoices), or for the invoices in summary_dirty_invoices only: the sync keeps the table
-- invoice_unallocated_nets equal to the first by refreshing the second.
CREATE OR REPLACE MACRO invoice_unallocated_nets_for(all_invoices) AS TABLE
SELECT
  workspace_id,
  invoice_id,
  project_id,
  CAST(sum(e4_invoice_line_net(amount_e4, net_e4, subtotal_e4, unit_e4)) AS BIGINT) AS net_e4
FROM (
  SELECT
    l.workspace_id,
    l.invoice_id,
    l.project_id,
    money_e4(l.amount) AS amount_e4,
    money_e4(i.subtotal) AS subtotal_e4,
    money_e4(i.subtotal) - money_e4(i.discount_amount) AS net_e4,
    -- Every stored currency is a known one; an unknown one is an error, never a guessed scale.
    unit_e4(coalesce(c.scale, error('unknown currency ' || i.currency))) AS unit_e4
  FROM invoice_lines l
  JOIN invoices i ON i.id = l.invoice_id
  LEFT JOIN currencies c ON c.code = i.currency
  WHERE l.time_entry_id IS NULL
    AND (all_invoices OR l.invoice_id IN (SELECT invoice_id FROM summary_dirty_invoices))
)
GROUP BY workspace_id, invoice_id, project_id;
