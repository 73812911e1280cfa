import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { EXPORT_TABLES, exportQueries } from '../../src/exports/export-db.ts';
import { runCompiled } from '../../src/readmodel/query-builder.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

/**
 * The exports' statements are typed by EXPORT_TABLES; these types are only as true as the
 * declaration is to the read model's catalog, which this holds it against.
 */
describe('the read-model types of the exports', () => {
  let readModel: ReadModel;
  beforeAll(async () => {
    readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
  });
  afterAll(() => readModel.close());

  it('declares each column with the type and nullability the read model gives it', async () => {
    const duck = await readModel.connect();
    try {
      const catalog = await duck.runAndReadAll(
        `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, t.table_type
         FROM information_schema.columns c
         JOIN information_schema.tables t USING (table_schema, table_name)
         WHERE c.table_schema = 'main'`,
      );
      const found = new Map(
        (catalog.getRows() as string[][]).map(([table, column, type, nullable, kind]) => [
          `${table}.${column}`,
          // A view's columns are all nullable in the catalog, whatever feeds them.
          `${type}${nullable === 'YES' || kind === 'VIEW' ? '?' : ''}`,
        ]),
      );
      const declared = Object.entries(EXPORT_TABLES).flatMap(([table, columns]) =>
        Object.entries(columns).map(([column, type]) => [`${table}.${column}`, type] as const),
      );
      expect(declared.length).toBeGreaterThan(30);
      for (const [column, type] of declared)
        expect([column, found.get(column)]).toEqual([column, type]);
    } finally {
      duck.closeSync();
    }
  });

  it('numbers placeholders, so a COPY binds its file after the values of its query', async () => {
    const duck = await readModel.connect();
    try {
      await duck.run(
        `CREATE TEMP TABLE numbered AS SELECT DATE '2024-01-01' + CAST(i AS INTEGER) AS d, i FROM range(10) t(i)`,
      );
      const file = `/tmp/ll-numbered-${process.pid}, "quoted" \\ 😀.csv`;
      const rows = exportQueries
        .selectFrom(sql<{ d: string; i: number }>`numbered`.as('n'))
        .select(['n.i'])
        .where('n.d', '>=', '2024-01-05')
        .where('n.i', '<', 8);
      const copy = sql`COPY ${rows} TO ${file} (FORMAT csv)`.compile(exportQueries);
      expect(copy.sql).toMatch(/\$1.*\$2.*TO \$3/s);
      const written = await runCompiled(duck, copy);
      expect(written.getRows()).toEqual([[4n]]);
      const back = await duck.runAndReadAll('SELECT count(*) FROM read_csv($1)', [file]);
      expect(back.getRows()).toEqual([[4n]]);
    } finally {
      duck.closeSync();
    }
  });
});
