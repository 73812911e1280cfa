-- The FX rates that count: those without deleted_at (test/reference choice 1). A rate converts
-- only its own direction, from_currency -> to_currency (docs/contract.md, "FX conversion"); which
-- one applies to an amount is the latest effective_from on or before the amount's date, an ASOF
-- JOIN on (workspace_id, from_currency, to_currency) by the readers. The store keeps one live or
-- deleted rate per pair and day, so that join finds at most one.
CREATE OR REPLACE VIEW fx_rates_live AS
SELECT id, workspace_id, from_currency, to_currency, effective_from, rate, created_at
FROM fx_rates
WHERE deleted_at IS NULL;
