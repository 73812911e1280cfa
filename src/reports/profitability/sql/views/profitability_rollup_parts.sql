-- The rows of a rollup of the priced facts (`summed`: the name of the CTE or table holding its
-- keys, its sixteen sums and its counts, as profitability_month_facts_for and the member
-- rollups write them) in 64-bit parts that add up to its sums (e4_sum_parts): one row nearly
-- always, several when a sum does not fit 64 bits. The counts are on part 0, with how many
-- rows the key takes (`parts`), NULL on the others. The rollup tables store BIGINT, which
-- DuckDB scans and sums about three times faster than HUGEINT (sql/tables.sql). The columns
-- keep `summed`'s order.
CREATE OR REPLACE MACRO profitability_rollup_parts(summed) AS TABLE
SELECT * EXCLUDE (parts, part) REPLACE (
  e4_part(approved_e4, parts, part) AS approved_e4,
  e4_part(paid_e4, parts, part) AS paid_e4,
  e4_part(estimated_e4, parts, part) AS estimated_e4,
  e4_part(billed_e4, parts, part) AS billed_e4,
  e4_part(collected_e4, parts, part) AS collected_e4,
  e4_part(approved_b4, parts, part) AS approved_b4,
  e4_part(paid_b4, parts, part) AS paid_b4,
  e4_part(estimated_b4, parts, part) AS estimated_b4,
  e4_part(billed_b4, parts, part) AS billed_b4,
  e4_part(collected_b4, parts, part) AS collected_b4,
  e4_part(approved_missing_e4, parts, part) AS approved_missing_e4,
  e4_part(paid_missing_e4, parts, part) AS paid_missing_e4,
  e4_part(estimated_missing_e4, parts, part) AS estimated_missing_e4,
  e4_part(billed_missing_e4, parts, part) AS billed_missing_e4,
  e4_part(collected_missing_e4, parts, part) AS collected_missing_e4,
  e4_part(unbilled_seconds, parts, part) AS unbilled_seconds,
  CASE WHEN part = 0 THEN struct_insert(counts, parts := parts) END AS counts
)
FROM (
  SELECT *, unnest(range(parts)) AS part
  FROM (
    SELECT
      *,
      e4_sum_parts(
        approved_e4, paid_e4, estimated_e4, billed_e4,
        collected_e4, approved_b4, paid_b4, estimated_b4,
        billed_b4, collected_b4, approved_missing_e4, paid_missing_e4,
        estimated_missing_e4, billed_missing_e4, collected_missing_e4, unbilled_seconds
      ) AS parts
    FROM query_table(summed)
  )
);
