import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveExportRequest, runExport } from '../../src/exports/export-run.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import {
  DRAFT_BILL_ID,
  ids,
  smallSnapshotWithDraftBill,
  STUDIO_OWNER_TOKEN,
  tinySnapshot,
  TOKENS,
} from '../support/small-snapshot.ts';

describe('GET /api/v1/exports/{report}', () => {
  let h: Harness;
  let out: string;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshotWithDraftBill());
    await h.importObject(tinySnapshot(7, 'studio', STUDIO_OWNER_TOKEN));
    await h.sync();
    out = await mkdtemp(path.join(tmpdir(), 'll-exports-http-'));
  });
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
    await h.close();
  });

  const get = (url: string, token = TOKENS.owner) =>
    h.app.inject({
      method: 'GET',
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${token}` },
    });

  it('streams the Owner the same bytes as the command line, with a filename', async () => {
    const res = await get('/exports/invoices?format=csv&from=2026-10-01&to=2026-10-31');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="invoices-${ids.workspace}-2026-10-01-2026-10-31.csv"`,
    );
    expect(res.headers['x-export-rows']).toBe('1');
    expect(res.headers['x-data-as-of']).toBeDefined();
    expect(res.body.split('\n')[0]).toBe(
      'id,orgId,clientId,number,billToName,notes,currency,status,paymentStatus,subtotal,discountAmount,total,amountPaid,taxRate,issueDate,dueDate,sentAt,paidAt,createdAt,updatedAt,deletedAt',
    );
    expect(res.body).toContain(',INV-0001,');
    expect(res.body).toContain(',180.00,18.00,192.78,100.00,19,2026-10-31,2026-11-30,');

    const duck = await h.readModel.connect();
    const request = await resolveExportRequest(duck, {
      report: 'invoices',
      workspaceId: ids.workspace,
      format: 'csv',
      from: '2026-10-01',
      to: '2026-10-31',
    }).finally(() => duck.closeSync());
    const { folder } = await runExport(h.readModel, request, { outDir: out });
    expect(res.rawPayload.equals(await readFile(path.join(folder, 'invoices.csv')))).toBe(true);
    expect(res.headers['x-export-sha256']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('serves Parquet and NDJSON with their media types; an open end is "all"', async () => {
    const parquet = await get('/exports/payments?format=parquet', TOKENS.admin);
    expect(parquet.statusCode).toBe(200);
    expect(parquet.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(parquet.rawPayload.subarray(0, 4).toString()).toBe('PAR1');
    expect(parquet.headers['content-disposition']).toBe(
      `attachment; filename="payments-${ids.workspace}-all-all.parquet"`,
    );
    const ndjson = await get('/exports/bill-lines?format=ndjson&from=2026-10-01');
    expect(ndjson.statusCode).toBe(200);
    expect(ndjson.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = ndjson.body.trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { amount: string }).amount)).toEqual([
      '67.50',
      '-5.00',
    ]);
  });

  it('answers 403 forbidden_scope to a Member and a Manager, in the error envelope', async () => {
    for (const token of [TOKENS.member, TOKENS.manager]) {
      const res = await get('/exports/invoices?format=csv', token);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'forbidden_scope' } });
      expect(res.json<{ error: { requestId: string } }>().error.requestId).toBe(
        res.headers['x-request-id'],
      );
    }
    // A write-only token lacks the read scope.
    expect((await get('/exports/invoices?format=csv', TOKENS.writeOnly)).statusCode).toBe(403);
  });

  it('follows the plan rules of the data: Agency for unpaid time and profitability, no drafts below it', async () => {
    for (const report of ['unpaid-time', 'profitability-members', 'profitability-projects']) {
      const res = await get(`/exports/${report}?format=csv`, STUDIO_OWNER_TOKEN);
      expect(res.statusCode, report).toBe(402);
      expect(res.json()).toMatchObject({
        error: { code: 'forbidden_plan', requiredPlan: 'agency', feature: 'team_payouts' },
      });
    }
    const studioBills = await get('/exports/bills?format=csv', STUDIO_OWNER_TOKEN);
    expect(studioBills.statusCode).toBe(200);
    expect(studioBills.headers['x-export-rows']).toBe('0');
    // The Agency workspace sees its draft; the same report is Studio-safe by leaving drafts out.
    const agencyBills = await get('/exports/bills?format=csv');
    expect(agencyBills.body).toContain(DRAFT_BILL_ID);
    expect(agencyBills.headers['x-export-rows']).toBe('2');
  });

  it('is strict about its query, and names what is wrong', async () => {
    const unknown = await get('/exports/invoices?format=csv&sort=id');
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toMatchObject({
      error: { code: 'invalid_query', fields: { sort: 'is not a parameter of this endpoint' } },
    });
    const repeated = await get('/exports/invoices?format=csv&format=ndjson');
    expect(repeated.statusCode).toBe(422);
    expect(repeated.json()).toMatchObject({
      error: { code: 'invalid_query', fields: { format: 'is given more than once' } },
    });
    const badFormat = await get('/exports/invoices?format=xlsx');
    expect(badFormat.statusCode).toBe(422);
    expect(badFormat.json()).toMatchObject({
      error: { code: 'validation_failed', fields: { format: expect.any(String) } },
    });
    const noFormat = await get('/exports/invoices');
    expect(noFormat.statusCode).toBe(422);
    const badDate = await get('/exports/invoices?format=csv&from=2026-13-01');
    expect(badDate.json()).toMatchObject({
      error: { code: 'validation_failed', fields: { from: expect.any(String) } },
    });
    const backwards = await get('/exports/invoices?format=csv&from=2026-10-02&to=2026-10-01');
    expect(backwards.json()).toMatchObject({
      error: { code: 'validation_failed', fields: { to: 'must not be before from' } },
    });
    const unknownReport = await get('/exports/ledger?format=csv');
    expect(unknownReport.statusCode).toBe(404);
    expect(unknownReport.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});
