import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { addInPlace } from '../../src/reports/profitability/fact-refresh.ts';
import {
  COUNT_FIELDS,
  ROLLUP_SUMS,
  ROLLUPS,
  type KeySums,
} from '../../src/reports/profitability/fact-rollups.ts';

// A rollup key whose counts do not change is added to in place, without reading it
// (src/reports/profitability/fact-refresh.ts): only when it is one row, and stays one
// (every sum at most 2^62, docs/summaries.md "Sums beyond 64 bits"). Otherwise the row is
// left as it was, and the batch reads the key and cuts it into parts again.

const month = ROLLUPS.find((r) => r.table === 'profitability_month_facts')!;
const WS = '00000000-0000-4000-8000-000000000001';
const USER = '00000000-0000-4000-8000-000000000002';
const PROJECT = '00000000-0000-4000-8000-000000000003';
const key = [WS, '2026-03-01', USER, PROJECT, 'EUR', null, false, null, null, false];
const PART = 1n << 62n;

describe('a rollup key added to in place', () => {
  let readModel: ReadModel;
  let duck: DuckDBConnection;

  beforeAll(async () => {
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    duck = await readModel.connect();
  });
  afterAll(() => {
    duck.closeSync();
    readModel.close();
  });

  /** Stores the key as `rows` rows, each with `estimated` and the counts of one fact on the first. */
  const store = async (estimated: bigint[]) => {
    await duck.run('DELETE FROM profitability_month_facts');
    for (const [part, value] of estimated.entries()) {
      const counts =
        part === 0
          ? `{${[...COUNT_FIELDS.map((f) => `'${f}': ${f === 'facts' || f === 'estimated_e4' ? 1 : 0}`), `'parts': ${estimated.length}`].join(', ')}}`
          : 'NULL';
      await duck.run(
        `INSERT INTO profitability_month_facts BY NAME SELECT
           '${WS}'::UUID AS workspace_id, DATE '2026-03-01' AS month, '${USER}'::UUID AS user_id,
           '${PROJECT}'::UUID AS project_id, 'EUR' AS cost_currency, NULL AS cost_rate_id,
           false AS cost_needs_fx, NULL AS revenue_currency, NULL AS revenue_rate_id,
           false AS revenue_needs_fx, ${value} AS estimated_e4, 0 AS unbilled_seconds,
           false AS missing_pay_rate, ${counts} AS counts`,
      );
    }
  };
  const estimated = async () =>
    (
      await duck.runAndReadAll(
        'SELECT CAST(estimated_e4 AS VARCHAR) FROM profitability_month_facts ORDER BY 1',
      )
    )
      .getRows()
      .map(([v]) => BigInt(String(v)));
  const delta = (estimatedDelta: bigint): KeySums => ({
    key,
    sums: ROLLUP_SUMS.map((c) => (c === 'estimated_e4' ? estimatedDelta : 0n)),
    counts: COUNT_FIELDS.map(() => 0n),
  });

  it('adds to a row of one part that stays within 2^62', async () => {
    await store([PART - 10n]);
    expect(await addInPlace(duck, month, delta(10n))).toBe(true);
    expect(await estimated()).toEqual([PART]);
  });

  it('leaves a row that would pass 2^62 as it was', async () => {
    await store([PART - 10n]);
    expect(await addInPlace(duck, month, delta(11n))).toBe(false);
    expect(await estimated()).toEqual([PART - 10n]);
  });

  it('leaves a key of several parts as it was, even for a small change', async () => {
    await store([PART - 10n, PART - 10n]);
    expect(await addInPlace(duck, month, delta(-5n))).toBe(false);
    expect(await estimated()).toEqual([PART - 10n, PART - 10n]);
  });

  it('finds no row of another key', async () => {
    await store([5n]);
    expect(
      await addInPlace(duck, month, {
        ...delta(1n),
        key: [...key.slice(0, 4), 'USD', ...key.slice(5)],
      }),
    ).toBe(false);
    expect(await estimated()).toEqual([5n]);
  });
});
