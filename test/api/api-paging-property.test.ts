import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
type Body = Record<string, any>;

/**
 * Paging through any filter and sort returns every matching row exactly once, also while
 * rows are inserted between page requests (keyset pagination:
 * docs/contract.md, "Paging and sorting"). Rows are written straight into the read model, which is
 * what lists read, so each run can build its own set.
 */
const invoiceRow = fc.record({
  number: fc.constantFrom('A-1', 'A-2', 'B-1', 'B-1', 'C'),
  status: fc.constantFrom('DRAFT', 'SENT', 'PAID'),
  // Few distinct values, so sort keys tie often and the id tie-breaker matters.
  dueDay: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
  total: fc.constantFrom('0.0000', '10.5000', '10.5000', '99.9900'),
  createdSecond: fc.integer({ min: 0, max: 5 }),
});

type InvoiceRow = typeof invoiceRow extends fc.Arbitrary<infer R> ? R : never;

const SORTS = ['createdAt', 'dueDate', 'number', 'total', 'status', 'id', 'paidAt'];

describe('keyset paging (property)', () => {
  let h: Harness;
  let duck: DuckDBConnection;
  let next = 0;
  beforeAll(async () => {
    // Hundreds of pages from one token as fast as the API answers: no rate limit, so the
    // property never depends on the machine's speed (rate limits have their own test).
    // The property writes invoices into the read model itself, behind the sync: no answer is kept.
    h = await createHarness({ rateLimit: { requests: 1e9 }, keepAnswers: false });
    await h.importObject(smallSnapshot());
    await h.sync();
    duck = await h.readModel.connect();
  });
  afterAll(async () => {
    duck.closeSync();
    await h.close();
  });

  const insert = async (row: InvoiceRow) => {
    const id = `8f000000-0000-4000-8000-${String(++next).padStart(12, '0')}`;
    await duck.run(
      `INSERT INTO invoices (id, workspace_id, client_id, number, status, payment_status, currency,
         issue_date, due_date, subtotal, discount_amount, tax_rate, total, amount_paid, po_number,
         recurring, viewed, bill_to_name, notes, sent_at, paid_at, created_at, updated_at, deleted_at)
       VALUES ($id::UUID, $ws::UUID, $client::UUID, $number, $status, 'unpaid', 'USD', NULL,
         $due::DATE, $total::DECIMAL(18,4), 0, NULL, $total::DECIMAL(18,4), 0, NULL, false, false,
         NULL, NULL, NULL, NULL, $created::TIMESTAMPTZ, $created::TIMESTAMPTZ, NULL)`,
      {
        id,
        ws: ids.workspace,
        client: ids.client,
        number: row.number,
        status: row.status,
        due: row.dueDay === null ? null : `2026-12-0${row.dueDay}`,
        total: row.total,
        created: `2026-11-01T00:00:0${row.createdSecond}.000001Z`,
      },
    );
  };

  const get = async (query: string) => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/v1/invoices?${query}`,
      headers: { authorization: `Bearer ${TOKENS.owner}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Body>();
  };

  it('returns each matching row exactly once, whatever is inserted between pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(invoiceRow, { maxLength: 25 }),
        fc.constantFrom(...SORTS),
        fc.boolean(),
        fc.option(fc.subarray(['DRAFT', 'SENT', 'PAID'], { minLength: 1 }), { nil: null }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.array(invoiceRow, { maxLength: 3 }), { maxLength: 12 }),
        async (rows, sort, descending, statuses, limit, insertions) => {
          await duck.run('DELETE FROM invoices');
          for (const row of rows) await insert(row);
          const filter = statuses ? statuses.map((s) => `status=${s}`).join('&') : '';
          const base = `sort=${descending ? '-' : ''}${sort}${filter ? `&${filter}` : ''}`;
          const expected = ((await get(`${base}&limit=200`)).data as Body[]).map(
            (r) => r.id as string,
          );

          const seen: string[] = [];
          let cursor: string | null = null;
          let page = 0;
          do {
            const body: Body = await get(
              `${base}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
            );
            seen.push(...(body.data as Body[]).map((r) => r.id as string));
            cursor = body.pagination.nextCursor as string | null;
            for (const row of insertions[page++] ?? []) await insert(row);
          } while (cursor);

          expect(new Set(seen).size).toBe(seen.length);
          const seenSet = new Set(seen);
          for (const id of expected) expect(seenSet.has(id)).toBe(true);
          // Without insertions the pages are exactly the one-shot list.
          if (insertions.every((i) => i.length === 0)) expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});
