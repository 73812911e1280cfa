-- Exact money arithmetic for the views. DuckDB divides DECIMALs into DOUBLE, so every
-- division of money is done here on integers and rounded half away from zero
-- (decisions 9); nothing in a money figure ever passes through a float.

-- n / d rounded half away from zero, for integers (HUGEINT) with d > 0.
CREATE OR REPLACE MACRO div_round_half_away(n, d) AS
  CASE WHEN n >= 0 THEN (2 * n + d) // (2 * d) ELSE -((2 * (-n) + d) // (2 * d)) END;

-- Size, in units of 0.0001, of one minor unit of a currency with `scale` decimals.
CREATE OR REPLACE MACRO minor_unit_e4(scale) AS
  CASE scale WHEN 0 THEN 10000 WHEN 1 THEN 1000 WHEN 2 THEN 100 WHEN 3 THEN 10 ELSE 1 END::HUGEINT;

-- A DECIMAL(18,4) money value as an integer count of 0.0001 units, and back.
CREATE OR REPLACE MACRO money_to_e4(amount) AS CAST(CAST(amount AS DECIMAL(38, 4)) * 10000 AS HUGEINT);
CREATE OR REPLACE MACRO money_from_e4(e4) AS CAST(CAST(e4 AS DECIMAL(38, 0)) * 0.0001 AS DECIMAL(18, 4));

-- durationSeconds x hourlyRate / 3600, rounded to the currency's minor unit (decisions 7, 9).
CREATE OR REPLACE MACRO time_cost(duration_seconds, hourly_rate, scale) AS
  money_from_e4(
    div_round_half_away(CAST(duration_seconds AS HUGEINT) * money_to_e4(hourly_rate), 3600 * minor_unit_e4(scale))
    * minor_unit_e4(scale)
  );
