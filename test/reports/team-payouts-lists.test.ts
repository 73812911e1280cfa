import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currencyKey } from '../../src/reports/team-payouts/unpaid-time.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import {
  ids,
  smallSnapshotWithDraftBill,
  STUDIO_OWNER_TOKEN,
  tinySnapshot,
  TOKENS,
} from '../support/small-snapshot.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
type Body = Record<string, any>;

describe('team-payout lists over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshotWithDraftBill());
    await h.importObject(tinySnapshot(7, 'studio', STUDIO_OWNER_TOKEN));
    await h.sync();
  });
  afterAll(() => h.close());

  const get = async (path: string, token = TOKENS.owner) => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/v1/team-payouts${path}`,
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.statusCode, body: res.json<Body>() };
  };

  it('lists bills with their figures, lines and payments', async () => {
    const { status, body } = await get('/bills?sort=number');
    expect(status).toBe(200);
    expect((body.data as Body[]).map((b) => b.number as string)).toEqual(['B-0001', 'B-0002']);
    expect(body.data[0]).toMatchObject({
      id: ids.bill,
      payeeId: ids.payee,
      userId: ids.member,
      status: 'APPROVED',
      paymentStatus: 'PAID',
      subtotal: '67.50',
      adjustmentTotal: '0.00',
      total: '67.50',
      amountPaid: '67.50',
      remaining: '0.00',
      links: { app: `/app/team-payouts/bills/${ids.bill}` },
    });
    expect(body.data[0].lines).toEqual([
      expect.objectContaining({
        kind: 'TIME',
        amount: '67.50',
        hourlyRate: '45.00',
        quantity: '1.5',
      }),
    ]);
    expect(body.data[0].payments).toEqual([
      expect.objectContaining({ id: ids.payment, amount: '67.50', status: 'RECORDED' }),
    ]);
    expect(body.data[1]).toMatchObject({
      total: '-5.00',
      paymentStatus: 'UNPAID',
      remaining: '0.00',
    });
  });

  it('filters bills: status, outstanding, service period overlap', async () => {
    const numbers = async (q: string) =>
      ((await get(`/bills?sort=number&${q}`)).body.data as Body[]).map((b) => b.number as string);
    expect(await numbers('status=DRAFT')).toEqual(['B-0002']);
    expect(await numbers('paymentStatus=PAID')).toEqual(['B-0001']);
    expect(await numbers('outstandingOnly=true')).toEqual([]);
    expect(await numbers('from=2026-11-05&to=2026-12-31')).toEqual(['B-0002']);
    expect(await numbers(`projectId=${ids.project}`)).toEqual(['B-0001']);
  });

  it('is strict: an unknown or repeated parameter is 422 invalid_query', async () => {
    for (const q of [
      '/bills?nope=1',
      '/bills?status=DRAFT&status=VOID',
      '/payments?search=x',
      `/bills/${ids.bill}?x=1`,
    ]) {
      const { status, body } = await get(q);
      expect(status, q).toBe(422);
      expect(body.error.code).toBe('invalid_query');
    }
  });

  it('gets one bill, payee and payment; a foreign or unknown id is 404', async () => {
    expect((await get(`/bills/${ids.bill}`)).body.data.number).toBe('B-0001');
    expect((await get(`/payments/${ids.payment}`)).body.data.allocations).toEqual([
      expect.objectContaining({
        billId: ids.bill,
        number: 'B-0001',
        amount: '67.50',
        cashCurrency: 'EUR',
      }),
    ]);
    const payee = (await get(`/payees/${ids.payee}`)).body.data;
    expect(payee).toMatchObject({
      name: 'Max Member',
      rates: [{ effectiveFrom: '2026-01-01', hourlyRate: '45.00', currency: 'EUR' }],
      credits: [{ amount: '100.00', remaining: '40.00', reason: 'Advance' }],
    });
    expect((await get(`/bills/${ids.payment}`)).status).toBe(404);
    expect((await get('/payees/not-a-uuid')).status).toBe(404);
  });

  it('answers 404 before 422: an id that names no record, with an unknown parameter', async () => {
    // The record (404) is checked before the input (422), as docs/api.md orders the checks.
    for (const q of [
      '/bills/not-a-uuid?x=1',
      `/payments/${ids.bill}?x=1`,
      '/payees/00000000-0000-4000-8000-000000000000?nope=2',
    ]) {
      const { status, body } = await get(q);
      expect(status, q).toBe(404);
      expect(body.error.code).toBe('not_found');
    }
  });

  it('lists unpaid time: billable by default, non-billable with scope=all', async () => {
    expect((await get('/unpaid-time')).body.data).toEqual([]);
    const all = await get('/unpaid-time?scope=all');
    expect(all.body.data).toEqual([
      expect.objectContaining({
        timeEntryId: ids.entry2,
        amount: '45.00',
        currency: 'EUR',
        section: 'non_billable',
        selectedByDefault: false,
        durationSeconds: 3600,
      }),
    ]);
    expect((await get('/unpaid-time?scope=some')).body.error.code).toBe('validation_failed');
  });

  it('filters unpaid time by currency, in any case; a code of another form matches nothing', async () => {
    const entries = async (query: string) =>
      ((await get(`/unpaid-time?scope=all&${query}`)).body.data as Body[]).map(
        (i) => i.timeEntryId as string,
      );
    expect(await entries('currency=EUR')).toEqual([ids.entry2]);
    expect(await entries('currency=eur')).toEqual([ids.entry2]);
    for (const other of ['USD', 'EUS', 'FUR', 'EURO', 'E1R'])
      expect(await entries(`currency=${other}`)).toEqual([]);
  });

  it('keys currencies in SQL as currencyKey does: one key per three-capital code, -1 for other text', async () => {
    const duck = await h.readModel.connect();
    try {
      const reader = await duck.runAndReadAll(`
        WITH letter AS (SELECT chr(65 + CAST(i AS INTEGER)) AS l FROM range(26) t(i)),
        codes AS (
          SELECT a.l || b.l || c.l AS code FROM letter a, letter b, letter c
          UNION ALL
          SELECT * FROM (VALUES ('EURO'), ('eur'), ('E1R'), ('EU'), (''), ('ÉUR'), ('EUR '), ('@UR'))
        )
        SELECT code, CAST(currency_key(code) AS INTEGER) AS key FROM codes`);
      const rows = reader.getRowObjectsJS() as { code: string; key: number }[];
      expect(rows).toHaveLength(26 ** 3 + 8);
      const sqlKeys = new Map(rows.map((r) => [r.code, r.key]));
      for (const [code, key] of sqlKeys) expect(key, code).toBe(currencyKey(code) ?? -1);
      const keys = rows.filter((r) => r.key >= 0).map((r) => r.key);
      expect(new Set(keys).size).toBe(26 ** 3);
      expect(Math.max(...keys)).toBe(26 ** 3 - 1);
    } finally {
      duck.closeSync();
    }
  });

  it('hides drafts from Studio, answers 402 for status=DRAFT there, and keeps payees Agency-only', async () => {
    const studio = await get('/bills?status=DRAFT', STUDIO_OWNER_TOKEN);
    expect(studio.status).toBe(402);
    expect(studio.body.error).toMatchObject({ requiredPlan: 'agency', feature: 'draft_bills' });
    expect((await get('/bills', STUDIO_OWNER_TOKEN)).status).toBe(200);
    expect((await get('/payees', STUDIO_OWNER_TOKEN)).status).toBe(402);
    expect((await get('/unpaid-time', STUDIO_OWNER_TOKEN)).status).toBe(402);
    expect((await get('/bills', TOKENS.manager)).status).toBe(403);
  });
});
