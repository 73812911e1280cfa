import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition, and each metric's TYPE. */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(sample, line).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample![2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key!] = value!;
    samples.push({ name: sample![1]!, labels, value: Number(sample![3]) });
  }
  return { samples, types };
}

/** The value of the one sample of `name` whose labels include `labels`, or undefined. */
function value(text: string, name: string, labels: Record<string, string> = {}) {
  const found = parseExposition(text).samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  expect(found.length, name).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

describe('GET /metrics', () => {
  let h: Harness;
  const scrape = async () => (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
  const me = (token: string) =>
    h.app.inject({
      method: 'GET',
      url: '/api/v1/me',
      headers: { authorization: `Bearer ${token}` },
    });

  beforeAll(async () => {
    // Two requests per window of 2,000 s: the third request of a token is refused.
    h = await createHarness({ live: true, rateLimit: { requests: 2, windowSeconds: 2000 } });
    await h.importObject(smallSnapshot());
    await h.sync();
  });
  afterAll(async () => {
    await h.close();
  });

  it('gives the sync figures under their names, with the rows a streamed change applied', async () => {
    await h.pool.query('UPDATE clients SET name = \'Globex, "Corp"\' WHERE id = $1', [ids.client]);
    await h.sync();
    const text = await scrape();
    const { types } = parseExposition(text);
    expect(value(text, 'ledgerline_read_model_ready')).toBe(1);
    expect(value(text, 'ledgerline_sync_rows_applied_total')).toBeGreaterThan(0);
    expect(value(text, 'ledgerline_sync_batches_applied_total')).toBeGreaterThan(0);
    expect(value(text, 'ledgerline_sync_stalled')).toBe(0);
    expect(value(text, 'ledgerline_sync_apply_failures_total')).toBe(0);
    expect(value(text, 'ledgerline_sync_lag_bytes')).toBeGreaterThanOrEqual(0);
    expect(value(text, 'ledgerline_sync_slot_retained_wal_bytes')).toBeGreaterThanOrEqual(0);
    expect(value(text, 'ledgerline_sync_last_error_info', { message: '' })).toBe(0);
    expect(types.get('ledgerline_sync_rows_applied_total')).toBe('counter');
    expect(types.get('ledgerline_sync_lag_seconds')).toBe('gauge');
    // What the batches cost, by share: the apply, the derived parts, the commit, whole batches.
    const batches = value(text, 'ledgerline_sync_batches_applied_total')!;
    const statements = (share: string) =>
      value(text, 'ledgerline_sync_batch_statements_total', { share });
    expect(statements('batch')).toBeGreaterThanOrEqual(4 * batches);
    expect(statements('commit')).toBe(2 * batches);
    expect(statements('apply')).toBeGreaterThan(0);
    expect(statements('search')).toBeGreaterThan(0);
    expect(value(text, 'ledgerline_sync_batch_seconds_total', { share: 'batch' })).toBeGreaterThan(
      0,
    );
    expect(types.get('ledgerline_sync_batch_seconds_total')).toBe('counter');
  });

  it("gives the Node process's figures", async () => {
    const text = await scrape();
    expect(value(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(value(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it("gives the read model's memory by DuckDB's tag", async () => {
    const text = await scrape();
    // The copied tables' rows are in DuckDB's memory (an in-memory read model: all of them).
    expect(
      value(text, 'ledgerline_duckdb_memory_bytes', { tag: 'IN_MEMORY_TABLE' }),
    ).toBeGreaterThan(0);
    const tags = parseExposition(text).samples.filter(
      (s) => s.name === 'ledgerline_duckdb_memory_bytes',
    );
    expect(tags.every((s) => s.value > 0)).toBe(true);
  });

  it('counts requests by route pattern and status, and times them', async () => {
    const before = await scrape();
    const route = { method: 'GET', route: '/api/v1/invoices/:id', status_code: '200' };
    const seen = value(before, 'ledgerline_http_requests_total', route) ?? 0;
    for (const id of [ids.invoice, ids.invoice]) {
      const answer = await h.app.inject({
        method: 'GET',
        url: `/api/v1/invoices/${id}`,
        headers: { authorization: `Bearer ${TOKENS.admin}` },
      });
      expect(answer.statusCode).toBe(200);
    }
    await h.app.inject({ method: 'GET', url: '/no/such/path' });
    const after = await scrape();
    expect(value(after, 'ledgerline_http_requests_total', route)).toBe(seen + 2);
    expect(value(after, 'ledgerline_http_request_duration_seconds_count', route)).toBe(seen + 2);
    expect(
      value(after, 'ledgerline_http_requests_total', { route: '(no route)', status_code: '404' }),
    ).toBe(1);
    // One series per pattern: no raw URL with an id becomes a label.
    expect(after).not.toContain(`route="/api/v1/invoices/${ids.invoice}"`);
  });

  it('times the reads that waited for a sync batch before they ran', async () => {
    const waits = (text: string) =>
      value(text, 'ledgerline_read_wait_seconds_count', { reason: 'batch' }) ?? 0;
    const before = waits(await scrape());
    // A batch being written (the gate the sync closes): a read not started waits for its end.
    h.readModel.gate.close();
    const answer = h.app.inject({
      method: 'GET',
      url: `/api/v1/team-payouts/payees/${ids.payee}`,
      headers: { authorization: `Bearer ${TOKENS.owner}` },
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    h.readModel.gate.open();
    expect((await answer).statusCode).toBe(200);
    const text = await scrape();
    // Each of its reads (a record may take more than one) waited once.
    expect(waits(text)).toBeGreaterThan(before);
    expect(value(text, 'ledgerline_read_wait_seconds_sum', { reason: 'batch' })).toBeGreaterThan(0);
  });

  it('counts the requests the rate limit refuses', async () => {
    const before = value(await scrape(), 'ledgerline_http_rate_limited_total') ?? 0;
    const answers = [await me(TOKENS.manager), await me(TOKENS.manager), await me(TOKENS.manager)];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 429]);
    const text = await scrape();
    expect(value(text, 'ledgerline_http_rate_limited_total')).toBe(before + 1);
    expect(
      value(text, 'ledgerline_http_requests_total', { route: '/api/v1/me', status_code: '429' }),
    ).toBe(1);
  });
});
