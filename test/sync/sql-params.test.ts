import { describe, expect, it } from 'vitest';
import { SqlParams, sqlLiteral } from '../../src/readmodel/sql-params.ts';
import { openReadModel } from '../../src/readmodel/read-model.ts';
import { READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

describe('SqlParams', () => {
  it('writes ids, dates and numbers of a declared type as literals, checked by their form', () => {
    const params = new SqlParams();
    expect(params.bind('0b9e3c1a-5f7e-4d2a-9c1b-3e5f7a9c1b3d', 'UUID')).toBe(
      "CAST('0b9e3c1a-5f7e-4d2a-9c1b-3e5f7a9c1b3d' AS UUID)",
    );
    expect(params.bind('2026-11-21', 'DATE')).toBe("CAST('2026-11-21' AS DATE)");
    expect(params.bind(1763700000000000, 'BIGINT')).toBe('CAST(1763700000000000 AS BIGINT)');
    expect(params.bind('-12.5', 'DECIMAL(18,4)')).toBe("CAST('-12.5' AS DECIMAL(18,4))");
    expect(params.bind('180000000000000.0000', 'DECIMAL(38,4)')).toBe(
      "CAST('180000000000000.0000' AS DECIMAL(38,4))",
    );
    expect(params.bind('EUR', 'CURRENCY')).toBe("CAST('EUR' AS VARCHAR)");
    expect(params.bind('PARTIALLY_PAID', 'CODE')).toBe("CAST('PARTIALLY_PAID' AS VARCHAR)");
    expect(params.values).toEqual({});
    expect(params.valuesIn('SELECT 1')).toBeUndefined();
  });

  it('binds everything else: free text, and values without the form of their type', () => {
    const params = new SqlParams();
    const attempts = [
      ["x' OR '1'='1", undefined],
      ["0b9e3c1a-5f7e-4d2a-9c1b-3e5f7a9c1b3d' OR '1'='1", 'UUID'],
      ["2026-11-21'); DROP TABLE clients; --", 'DATE'],
      ['1 OR 1=1', 'BIGINT'],
      [1e21, 'BIGINT'],
      ['1.00001', 'DECIMAL(18,4)'],
      [true, 'BOOLEAN'],
      ['DE', 'VARCHAR'],
      ["EU'", 'CURRENCY'],
      ["SENT' OR '1'='1", 'CODE'],
    ] as const;
    const placeholders = attempts.map(([value, type]) => params.bind(value, type));
    expect(placeholders).toEqual([
      '$p0',
      'CAST($p1 AS UUID)',
      'CAST($p2 AS DATE)',
      'CAST($p3 AS BIGINT)',
      'CAST($p4 AS BIGINT)',
      'CAST($p5 AS DECIMAL(18,4))',
      'CAST($p6 AS BOOLEAN)',
      'CAST($p7 AS VARCHAR)',
      'CAST($p8 AS VARCHAR)',
      'CAST($p9 AS VARCHAR)',
    ]);
    expect(Object.values(params.values)).toEqual(attempts.map(([value]) => value));
    // A statement made of some of the parts gets only the values it names ($p1 is not $p10).
    expect(params.valuesIn(`SELECT ${placeholders[1]}, ${placeholders[8]}`)).toEqual({
      p1: attempts[1][0],
      p8: attempts[8][0],
    });
    expect(sqlLiteral(null, 'UUID')).toBeNull();
  });

  it('a literal reads back in DuckDB as the value it stands for', async () => {
    const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    const duck = await readModel.connect();
    try {
      const params = new SqlParams();
      const reader = await duck.runAndReadAll(
        `SELECT CAST(${params.bind('0B9E3C1A-5F7E-4D2A-9C1B-3E5F7A9C1B3D', 'UUID')} AS VARCHAR),
           CAST(${params.bind('2024-02-29', 'DATE')} AS VARCHAR),
           CAST(${params.bind(-9007199254740991, 'BIGINT')} AS VARCHAR),
           CAST(${params.bind('99999999999999.9999', 'DECIMAL(18,4)')} AS VARCHAR)`,
      );
      expect(reader.getRows()[0]).toEqual([
        '0b9e3c1a-5f7e-4d2a-9c1b-3e5f7a9c1b3d',
        '2024-02-29',
        '-9007199254740991',
        '99999999999999.9999',
      ]);
    } finally {
      duck.closeSync();
      readModel.close();
    }
  });

  it('oneOf: one value as an equality, several as a list, free text bound', async () => {
    const params = new SqlParams();
    expect(params.oneOf('r.status', ['SENT'])).toBe("r.status = CAST('SENT' AS VARCHAR)");
    expect(params.oneOf('r.status', [])).toBe('FALSE');
    const several = params.oneOf('r.country', ['DE', "x' OR '1'='1"]);
    expect(several).toBe("list_contains([CAST('DE' AS VARCHAR), CAST($p0 AS VARCHAR)], r.country)");
    const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
    const duck = await readModel.connect();
    try {
      const reader = await duck.runAndReadAll(
        `SELECT r.country FROM (VALUES ('DE'), ('FR'), (NULL), ('x'' OR ''1''=''1')) r(country)
         WHERE ${several} ORDER BY 1`,
        params.values,
      );
      expect(reader.getRows()).toEqual([['DE'], ["x' OR '1'='1"]]);
    } finally {
      duck.closeSync();
      readModel.close();
    }
  });
});
