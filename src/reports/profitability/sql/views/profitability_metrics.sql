-- The profitability metrics in their order (decisions 4): nativeAmounts, missingMetrics and the
-- report's missingFx list them in this order.
CREATE OR REPLACE MACRO profitability_metrics() AS
  [
    'billedNet', 'collectedNet', 'compensationCost', 'approvedCost', 'estimatedCost', 'paid',
    'pending'
  ];

-- A metric's place in that order, 1-based; NULL for any other name.
CREATE OR REPLACE MACRO profitability_metric_position(metric) AS
  list_position(profitability_metrics(), metric);
