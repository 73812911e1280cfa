import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeEntryRowToRecord } from '../../src/api/time-entries/time-entry.record.ts';
import { resolveExportRequest, runExport } from '../../src/exports/export-run.ts';
import { EXPORT_REPORTS, type ExportReport } from '../../src/exports/export-reports.ts';
import { EXPORT_FORMATS, type ExportFormat } from '../../src/exports/export-writer.ts';
import { Money } from '../../src/money/money.ts';
import { readExportFile } from '../support/export-files.ts';
import { generatedWorkspace, type GeneratedWorkspace } from '../support/generated-workspaces.ts';
import { createHarness, type Harness } from '../support/harness.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
type Body = Record<string, any>;

const LONG = 240_000;
// Partly covered months at both ends: the export computes their days as the API does.
const FROM = '2025-05-10';
const TO = '2026-11-20';

/**
 * Every report in every format, read back from the file, equals what the API answers for the
 * same workspace: same rows (by key), and every column the API record has, value for value.
 * Text formats must carry the API's exact strings (money at the currency's scale, ISO UTC
 * timestamps); Parquet its typed values (DECIMAL, TIMESTAMPTZ), compared as numbers and instants.
 */
describe('exports equal the API', () => {
  let h: Harness;
  let ws: GeneratedWorkspace;
  let out: string;
  beforeAll(async () => {
    h = await createHarness();
    ws = await generatedWorkspace(h.pool, { seed: 5, timeEntries: 700, members: 6, clients: 4 });
    await h.sync();
    out = await mkdtemp(path.join(tmpdir(), 'll-exports-'));
  }, LONG);
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
    await h.close();
  });

  const get = async (url: string): Promise<Body> => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${ws.ownerToken}` },
    });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    return res.json<Body>();
  };
  const all = async (url: string): Promise<Body[]> => {
    const records: Body[] = [];
    let cursor: string | null = null;
    do {
      const sep = url.includes('?') ? '&' : '?';
      const body = await get(
        `${url}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      records.push(...(body.data as Body[]));
      cursor = body.pagination.nextCursor as string | null;
    } while (cursor);
    return records;
  };

  /** The API's records of each report, keyed as the export's rows are. */
  async function apiRecords(report: string): Promise<Map<string, Body>> {
    const keyed = (records: Body[], key: (r: Body) => string) =>
      new Map(records.map((r) => [key(r), r]));
    const id = (r: Body) => r.id as string;
    switch (report) {
      case 'invoices':
        return keyed(await all('/invoices?sort=id'), id);
      case 'time-entries': {
        // The API has no list of time entries: its records are made by timeEntryRowToRecord,
        // the function PATCH /time-entries answers with, from the store's rows.
        const rows = await h.pool.query(
          'SELECT * FROM time_entries WHERE workspace_id = $1 AND deleted_at IS NULL',
          [ws.id],
        );
        return keyed(rows.rows.map(timeEntryRowToRecord), id);
      }
      case 'bills':
        return keyed(await all('/team-payouts/bills?sort=id'), id);
      case 'bill-lines':
        return keyed(
          (await all('/team-payouts/bills?sort=id')).flatMap((b) =>
            (b.lines as Body[]).map((l) => ({
              ...l,
              billId: b.id,
              billNumber: b.number,
              currency: b.currency,
            })),
          ),
          id,
        );
      case 'payments':
        return keyed(await all('/team-payouts/payments?sort=id'), id);
      case 'allocations':
        return keyed(
          (await all('/team-payouts/payments?sort=id')).flatMap((p) =>
            (p.allocations as Body[]).map((a) => ({
              ...a,
              paymentId: p.id,
              paidDate: p.paidDate,
              paymentStatus: p.status,
            })),
          ),
          (a) => `${a.paymentId}/${a.billId}`,
        );
      case 'unpaid-time':
        return keyed(await all('/team-payouts/unpaid-time?scope=all&sort=id'), id);
      case 'profitability-members':
      case 'profitability-projects': {
        const { data } = await get(`/team-payouts/profitability?from=${FROM}&to=${TO}&perPage=100`);
        const members = data.members as Body[];
        const withBase = (r: Body) => ({ ...r, baseCurrency: data.baseCurrency });
        return report === 'profitability-members'
          ? keyed(members.map(withBase), (m) => m.userId as string)
          : keyed(
              members.flatMap((m) => (m.projects as Body[]).map(withBase)),
              (p) => `${p.userId}/${p.projectId}`,
            );
      }
      default:
        throw new Error(report);
    }
  }

  const keyOf = (report: string, row: Record<string, string | null>) =>
    report === 'allocations'
      ? `${row.paymentId}/${row.billId}`
      : report === 'profitability-members'
        ? row.userId!
        : report === 'profitability-projects'
          ? `${row.userId}/${row.projectId}`
          : row.id!;

  const DECIMAL_KINDS = new Set(['money', 'rate', 'decimal', 'fixed']);

  /** The API's value as the file's text must spell it. */
  function expected(report: ExportReport, column: string, value: unknown, format: ExportFormat) {
    const kind = report.columns.find((c) => c.name === column)!.kind;
    if (value === null || value === undefined) return null;
    if (kind === 'names') return (value as string[]).join(';');
    if (format === 'parquet' && kind === 'timestamp') return String(Date.parse(value as string));
    if (format === 'parquet' && DECIMAL_KINDS.has(kind))
      return new Money(value as string).toFixed();
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new Error(`${column} is not a plain value`);
  }

  const actual = (report: ExportReport, column: string, value: string | null, format: string) => {
    const kind = report.columns.find((c) => c.name === column)!.kind;
    if (value !== null && format === 'parquet' && DECIMAL_KINDS.has(kind))
      return new Money(value).toFixed();
    return value;
  };

  for (const report of EXPORT_REPORTS) {
    for (const format of EXPORT_FORMATS) {
      it(
        `${report.name} as ${format}`,
        async () => {
          const duck = await h.readModel.connect();
          const request = await resolveExportRequest(duck, {
            report: report.name,
            workspaceId: ws.id,
            format,
            ...(report.name.startsWith('profitability') ? { from: FROM, to: TO } : {}),
          }).finally(() => duck.closeSync());
          const { folder, manifest } = await runExport(h.readModel, request, { outDir: out });
          const file = path.join(folder, manifest.files[0]!.name);
          const rows = await readExportFile(file, format, report);
          const api = await apiRecords(report.name);
          expect(rows.length).toBe(api.size);
          expect(manifest.rows).toBe(api.size);
          expect(rows.length, 'the workspace has rows of every report').toBeGreaterThan(0);
          let compared = 0;
          for (const row of rows) {
            const record = api.get(keyOf(report.name, row));
            expect(record, `${report.name} ${keyOf(report.name, row)}`).toBeDefined();
            for (const column of report.columns) {
              if (!(column.name in record!)) continue;
              expect(
                actual(report, column.name, row[column.name] ?? null, format),
                `${report.name} ${keyOf(report.name, row)} ${column.name}`,
              ).toBe(expected(report, column.name, record![column.name], format));
              compared++;
            }
          }
          expect(compared).toBeGreaterThan(rows.length);
        },
        LONG,
      );
    }
  }
});
