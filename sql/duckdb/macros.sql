-- Exact money arithmetic for the views. DuckDB divides DECIMALs into DOUBLE, so every
-- division of money is done here on integers and rounded half away from zero
-- (docs/contract.md, "Money and rounding"); nothing in a money figure ever passes through a float.

-- n / d rounded half away from zero, for integers (HUGEINT) with d > 0.
CREATE OR REPLACE MACRO div_round_half_away(n, d) AS
  CASE WHEN n >= 0 THEN (2 * n + d) // (2 * d) ELSE -((2 * (-n) + d) // (2 * d)) END;

-- Size, in units of 0.0001, of one minor unit of a currency with `scale` decimals.
CREATE OR REPLACE MACRO minor_unit_e4(scale) AS
  CASE scale WHEN 0 THEN 10000 WHEN 1 THEN 1000 WHEN 2 THEN 100 WHEN 3 THEN 10 ELSE 1 END::HUGEINT;

-- A money value (an amount, or a DECIMAL(38,4) sum of them) as a HUGEINT count of 0.0001 units.
CREATE OR REPLACE MACRO money_to_e4(amount) AS CAST(CAST(amount AS DECIMAL(38, 4)) * 10000 AS HUGEINT);
-- A sum of e4 counts (any integer type) as DECIMAL(38,4).
CREATE OR REPLACE MACRO money_of_e4(e4) AS
  CAST(CAST(e4 AS DECIMAL(38, 0)) * 0.0001 AS DECIMAL(38, 4));

-- durationSeconds x hourlyRate / 3600, rounded to the currency's minor unit
-- (docs/contract.md, "Unpaid-time item" and "Money and rounding"), as DECIMAL(38,4): ten hours at
-- the largest rate DECIMAL(18,4) holds already pass it (cast to it, such an entry failed the sync's
-- refresh of the unpaid totals, and with it the sync).
CREATE OR REPLACE MACRO time_cost(duration_seconds, hourly_rate, scale) AS
  money_of_e4(
    div_round_half_away(CAST(duration_seconds AS HUGEINT) * money_to_e4(hourly_rate), 3600 * minor_unit_e4(scale))
    * minor_unit_e4(scale)
  );

-- Fast exact money arithmetic for the reports that price millions of rows (profitability).
-- DuckDB computes HUGEINT division, and every cast of a DECIMAL(38,x) that drops decimals, bit
-- by bit: about a microsecond a row, seconds over a month of a large workspace. These macros
-- keep each row in 64-bit integers (BIGINT counts of 10^-4 units, "e4"), exact, and fall back
-- to HUGEINT only for products too large for 64 bits, which no realistic amount reaches.
-- Macros are inlined, an argument once per use: call them on columns, not on expressions.

-- A DECIMAL(18,4) money value as its BIGINT count of 10^-4 units: whole units and fraction
-- apart, since amount x 10000 would overflow DECIMAL(18,4) above 10^10.
CREATE OR REPLACE MACRO money_e4(amount) AS
  CAST(trunc(amount) AS BIGINT) * 10000 + CAST((amount - trunc(amount)) * 10000 AS BIGINT);

-- minor_unit_e4 as BIGINT, so the arithmetic it takes part in stays in 64 bits.
CREATE OR REPLACE MACRO unit_e4(scale) AS CAST(minor_unit_e4(scale) AS BIGINT);

-- An FX rate (DECIMAL(18,10)) as a BIGINT count of 10^-10 units (per rate, not per row).
CREATE OR REPLACE MACRO rate_e10(rate) AS
  CAST(CAST(rate AS DECIMAL(38, 10)) * 10000000000 AS BIGINT);

-- n / d rounded half away from zero, for integers (HUGEINT) with d <> 0 of either sign.
CREATE OR REPLACE MACRO div_round_half_away_signed(n, d) AS
  sign(n) * sign(d) * ((2 * abs(n) + abs(d)) // (2 * abs(d)));

-- a x b / (c x unit) rounded half away from zero, for integers a, b and c <> 0, and unit > 0:
-- multiplied before it is divided, so no ratio is rounded on the way. In BIGINT while
-- |a x b| <= 10^18, |b| <= 10^18 and |c| x unit <= 10^17, which keeps every intermediate below
-- 2^63; otherwise in HUGEINT. a, b and c may be HUGEINTs (a bill's sums): the first branch
-- casts them, as they fit there, and divides by a 64-bit b, since DuckDB divides by a 128-bit
-- integer about fifty times slower (TRY_CAST: the conditions of a CASE may run in any order).
-- The result is a HUGEINT: ninety hours at the largest pay rate DECIMAL(18,4) holds, or a large
-- amount at a large FX rate, pass 64 bits (cast back to BIGINT, such an amount failed the
-- sync's refresh of the profitability cells, and with it the sync).
CREATE OR REPLACE MACRO mul_div_round_half_away(a, b, c, unit) AS
  CASE
    WHEN abs(b) <= 1000000000000000000
      AND abs(a) <= 1000000000000000000 // greatest(abs(TRY_CAST(b AS BIGINT)), 1)
      AND abs(c) <= 100000000000000000 // unit
    THEN sign(a) * sign(b) * sign(c) * (
      (2 * abs(CAST(a AS BIGINT)) * abs(CAST(b AS BIGINT)) + abs(CAST(c AS BIGINT)) * unit)
        // (2 * abs(CAST(c AS BIGINT)) * unit)
    )
    ELSE div_round_half_away_signed(CAST(a AS HUGEINT) * b, CAST(c AS HUGEINT) * unit)
  END;

-- amount x part / whole (e4 counts, whole <> 0), rounded half away from zero to a whole number
-- of `unit_e4` (minor_unit_e4 of the currency): the e4 count of the rounded amount.
CREATE OR REPLACE MACRO e4_share(amount_e4, part_e4, whole_e4, unit_e4) AS
  mul_div_round_half_away(amount_e4, part_e4, whole_e4, unit_e4) * unit_e4;

-- amount rounded half away from zero to a whole number of `unit_e4`.
CREATE OR REPLACE MACRO e4_round(amount_e4, unit_e4) AS
  mul_div_round_half_away(amount_e4, 1, 1, unit_e4) * unit_e4;

-- amount x min(part / whole, 1), rounded; 0 when whole is 0 (docs/contract.md, "Costs": `paid` of a
-- bill line, `collectedNet` of an invoice line). The ratio is compared, not computed: part / whole
-- >= 1 is part >= whole for a positive whole and part <= whole for a negative one.
CREATE OR REPLACE MACRO e4_share_capped(amount_e4, part_e4, whole_e4, unit_e4) AS
  CASE
    WHEN whole_e4 = 0 THEN 0
    WHEN sign(whole_e4) * (part_e4 - whole_e4) >= 0 THEN e4_round(amount_e4, unit_e4)
    ELSE e4_share(amount_e4, part_e4, whole_e4, unit_e4)
  END;

-- The net of an invoice line (docs/contract.md, "Revenue": billedNet): amount x (1 - discount /
-- subtotal), that is amount x (subtotal - discount) / subtotal, rounded to the invoice currency;
-- the amount itself when the subtotal is 0. Tax is never included. `net_e4` = subtotal - discount.
CREATE OR REPLACE MACRO e4_invoice_line_net(amount_e4, net_e4, subtotal_e4, unit_e4) AS
  CASE
    WHEN subtotal_e4 = 0 THEN e4_round(amount_e4, unit_e4)
    ELSE e4_share(amount_e4, net_e4, subtotal_e4, unit_e4)
  END;

-- amount x rate (an e10 count) rounded half away from zero to a whole number of the target
-- currency's `unit_e4` (docs/contract.md, "Money and rounding"), at the rate's full precision.
CREATE OR REPLACE MACRO e4_convert(amount_e4, rate_e10, unit_e4) AS
  e4_share(amount_e4, rate_e10, 10000000000, unit_e4);
-- An amount's figure in the base currency (docs/contract.md, "FX conversion"): the amount itself
-- when it needs no rate (`converts` false: the base currency; or an amount of 0), its e4_convert
-- with the rate otherwise, NULL without a rate (or without the amount). A column, not an
-- expression: the macro uses its argument three times.
CREATE OR REPLACE MACRO e4_to_base(amount_e4, converts, rate_e10, unit_e4) AS
  CASE
    WHEN NOT converts OR amount_e4 = 0 THEN amount_e4
    ELSE e4_convert(amount_e4, rate_e10, unit_e4)
  END;

-- The priced profitability facts (src/reports/profitability/, docs/summaries.md) keep their e4
-- counts in BIGINT columns, which DuckDB reads and sums about 2.5 times faster than HUGEINT
-- ones. A fact whose amounts do not all fit 64 bits (ten hours at the largest pay rate
-- DECIMAL(18,4) holds make one) is stored as several rows of the same entry instead, each
-- holding a part of every amount, which add up to it again: readers of the facts only ever sum
-- them.
-- e4_parts(a, b, c): how many rows a cell of the sums a, b and c takes: 1 up to 2^62, never more
-- than two per amount summed that fits 64 bits (all but absurd ones; an amount beyond them, such
-- as a hundred hours at the largest pay rate, takes a row per 2^62 of it). The cells' macros unnest
-- range(e4_parts(...)) AS part and take each sum's e4_part: a list of structs per cell built by
-- a lambda took 730 ms for the 174,000 cells of a partly covered month, this 20.
-- The largest size of the sums a, b and c (NULL: 0).
CREATE OR REPLACE MACRO e4_largest(a, b, c) AS
  greatest(abs(coalesce(a, 0)), abs(coalesce(b, 0)), abs(coalesce(c, 0)));
CREATE OR REPLACE MACRO e4_parts(a, b, c) AS
  CASE
    WHEN e4_largest(a, b, c) <= 4611686018427387904 THEN 1
    -- Up to 2^20 rows (a sum of 4.8 x 10^20 units): beyond, a cell is an error rather than
    -- millions of rows (an invoice whose discount is 10^18 times its subtotal would make one).
    WHEN e4_largest(a, b, c) <= 4835703278458516698824704
      THEN CAST((e4_largest(a, b, c) + 4611686018427387903) // 4611686018427387904 AS BIGINT)
    ELSE error(
      'profitability: a sum of ' || CAST(e4_largest(a, b, c) AS VARCHAR)
        || ' units of 10^-4 is too large to store'
    )
  END;
-- e4_parts_of(a, ..., j): e4_parts for the ten amounts of a priced fact
-- (profitability_facts_for), each one of them a sum of one.
CREATE OR REPLACE MACRO e4_largest_of(a, b, c, d, e, f, g, h, i, j) AS
  greatest(
    abs(coalesce(a, 0)), abs(coalesce(b, 0)), abs(coalesce(c, 0)), abs(coalesce(d, 0)),
    abs(coalesce(e, 0)), abs(coalesce(f, 0)), abs(coalesce(g, 0)), abs(coalesce(h, 0)),
    abs(coalesce(i, 0)), abs(coalesce(j, 0))
  );
CREATE OR REPLACE MACRO e4_parts_of(a, b, c, d, e, f, g, h, i, j) AS
  CASE
    WHEN e4_largest_of(a, b, c, d, e, f, g, h, i, j) <= 4611686018427387904 THEN 1
    ELSE e4_parts(e4_largest_of(a, b, c, d, e, f, g, h, i, j), 0, 0)
  END;
-- e4_sum_parts(...): e4_parts for the sixteen sums of a rollup row of the facts (the fifteen
-- amounts and the unbilled seconds; profitability_month_facts_for and the member rollups),
-- stored as BIGINT like the facts: a row whose sums do not all fit 64 bits is several rows.
CREATE OR REPLACE MACRO e4_sum_parts(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) AS
  e4_parts(
    e4_largest_of(a, b, c, d, e, f, g, h, i, j),
    greatest(
      abs(coalesce(k, 0)), abs(coalesce(l, 0)), abs(coalesce(m, 0)), abs(coalesce(n, 0)),
      abs(coalesce(o, 0)), abs(coalesce(p, 0))
    ),
    0
  );
-- Part `p` (0 to n - 1) of the sum s in n rows: s // n, plus one unit of s's sign in the first
-- |s % n| of them (// and % truncate toward zero); NULL when s is. At most 2^62 + 1 in size
-- when n = e4_parts(...). A cell of one row (nearly all) only casts: no 128-bit division.
CREATE OR REPLACE MACRO e4_part(s, n, p) AS
  CASE
    WHEN n = 1 THEN CAST(s AS BIGINT)
    ELSE CAST(s // n + CASE WHEN p < abs(s % n) THEN sign(s) ELSE 0 END AS BIGINT)
  END;

-- A currency code as a SMALLINT, for filters that compare many rows: three capital letters
-- A-Z are read as a number in base 26 (AAA = 0 ... ZZZ = 17575, one key per code), any other
-- text is -1 and NULL stays NULL. Unpaid time's first page filtered on this key took 31 ms
-- against 44 comparing the VARCHAR, over the 2.2M payable entries of the 10M-entry workspace
-- (docs/summaries.md).
-- currencyKey in src/reports/team-payouts/unpaid-time.ts computes the same key.
CREATE OR REPLACE MACRO currency_key(code) AS
  CASE
    WHEN code IS NULL THEN NULL
    WHEN regexp_full_match(code, '[A-Z]{3}') THEN CAST(
      (ascii(code[1]) - 65) * 676 + (ascii(code[2]) - 65) * 26 + (ascii(code[3]) - 65) AS SMALLINT)
    ELSE CAST(-1 AS SMALLINT)
  END;

-- The first day of the month of `d` (the key of the profitability month rollup).
CREATE OR REPLACE MACRO entry_month(d) AS CAST(date_trunc('month', d) AS DATE);

-- Text forms of values for the exports (src/exports/, docs/exports.md), equal to what the API
-- answers, so a CSV or NDJSON export is byte-deterministic and compares directly with the API.

-- The minor-unit digits of a currency; 2 for a code outside the table, as the API formats it.
CREATE OR REPLACE MACRO currency_scale(currency_code) AS
  coalesce((SELECT scale FROM currencies WHERE code = currency_code), 2);

-- A decimal printed with exactly `scale` (0 to 4) decimals, rounded half away from zero.
CREATE OR REPLACE MACRO decimal_at_scale(v, scale) AS
  CASE scale
    WHEN 0 THEN CAST(CAST(v AS DECIMAL(38, 0)) AS VARCHAR)
    WHEN 1 THEN CAST(CAST(v AS DECIMAL(38, 1)) AS VARCHAR)
    WHEN 2 THEN CAST(CAST(v AS DECIMAL(38, 2)) AS VARCHAR)
    WHEN 3 THEN CAST(CAST(v AS DECIMAL(38, 3)) AS VARCHAR)
    ELSE CAST(CAST(v AS DECIMAL(38, 4)) AS VARCHAR)
  END;

-- A count of 10^-4 units printed with exactly `scale` (0 to 4) decimals, rounded half away from
-- zero: decimal_at_scale of money_of_e4(e4). Below 10^18 in size (every realistic amount) in
-- 64-bit decimals: a DECIMAL(38,x) is a 128-bit integer, which DuckDB rounds and prints about
-- ten times slower, and a report prints thousands of amounts. Larger counts (a report's sums can
-- be) take the 128-bit path; coalesce() evaluates it only for them. e4_text_18: the 64-bit path,
-- for a count that fits DECIMAL(18,0).
CREATE OR REPLACE MACRO e4_text_18(e4, scale) AS
  CASE scale
    WHEN 0 THEN CAST(CAST(e4 * 0.0001 AS DECIMAL(18, 0)) AS VARCHAR)
    WHEN 1 THEN CAST(CAST(e4 * 0.0001 AS DECIMAL(18, 1)) AS VARCHAR)
    WHEN 2 THEN CAST(CAST(e4 * 0.0001 AS DECIMAL(18, 2)) AS VARCHAR)
    WHEN 3 THEN CAST(CAST(e4 * 0.0001 AS DECIMAL(18, 3)) AS VARCHAR)
    ELSE CAST(e4 * 0.0001 AS VARCHAR)
  END;
CREATE OR REPLACE MACRO e4_text(e4, scale) AS
  coalesce(
    e4_text_18(TRY_CAST(e4 AS DECIMAL(18, 0)), scale),
    decimal_at_scale(money_of_e4(e4), scale)
  );

-- An amount with its currency's scale ("150.00", JPY "150", KWD "1.500"): formatAmount.
CREATE OR REPLACE MACRO money_text(v, currency_code) AS
  decimal_at_scale(v, currency_scale(currency_code));

-- The decimals of a DECIMAL(18,4) that are not trailing zeros (0 to 4).
CREATE OR REPLACE MACRO significant_decimals(v) AS
  CASE
    WHEN money_e4(v) % 10 <> 0 THEN 4
    WHEN money_e4(v) % 100 <> 0 THEN 3
    WHEN money_e4(v) % 1000 <> 0 THEN 2
    WHEN money_e4(v) % 10000 <> 0 THEN 1
    ELSE 0
  END;

-- A rate (hourly rate, unit price): the currency's scale, more decimals kept when they are not
-- zeros ("150.00", "150.125"): rate() of src/api/record-values.ts.
CREATE OR REPLACE MACRO rate_text(v, currency_code) AS
  decimal_at_scale(v, greatest(currency_scale(currency_code), significant_decimals(v)));

-- A plain decimal without trailing zeros ("19.0000" -> "19", "1.5000" -> "1.5"): decimal().
CREATE OR REPLACE MACRO decimal_text(v) AS
  CASE
    WHEN contains(CAST(v AS VARCHAR), '.') THEN rtrim(rtrim(CAST(v AS VARCHAR), '0'), '.')
    ELSE CAST(v AS VARCHAR)
  END;

-- A timestamp as ISO 8601 UTC with milliseconds ("2026-01-31T09:30:00.000Z"), as the API's.
-- From its microseconds since 1970 (UTC by definition): twice as fast as AT TIME ZONE 'UTC',
-- which goes through ICU, and the same text.
CREATE OR REPLACE MACRO iso_timestamp(ts) AS
  strftime(make_timestamp(epoch_us(ts)), '%Y-%m-%dT%H:%M:%S.%gZ');
