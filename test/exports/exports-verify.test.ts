import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { resolveExportRequest, runExport } from '../../src/exports/export-run.ts';
import { MANIFEST_FILE, readManifest, verifyManifest } from '../../src/exports/manifest.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';

describe('export manifests and verify', () => {
  let h: Harness;
  let out: string;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    await h.sync();
    out = await mkdtemp(path.join(tmpdir(), 'll-exports-verify-'));
  });
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
    await h.close();
  });
  afterEach(() => vi.restoreAllMocks());

  /** A fresh run folder of `report` in `format`, copied so each test can break its own. */
  const run = async (report: string, format: string) => {
    const duck = await h.readModel.connect();
    const request = await resolveExportRequest(duck, {
      report,
      workspaceId: ids.workspace,
      format,
    }).finally(() => duck.closeSync());
    const { folder, manifest } = await runExport(h.readModel, request, { outDir: out });
    return { folder, manifest, file: path.join(folder, manifest.files[0]!.name) };
  };

  it('states rows, money sums per currency, SHA-256, data-as-of and parameters', async () => {
    const { folder, manifest } = await run('invoices', 'csv');
    expect(path.basename(folder)).toMatch(/^invoices-\d{8}T\d{6}Z-[0-9a-f]{8}$/);
    expect(manifest).toMatchObject({
      formatVersion: 1,
      report: 'invoices',
      workspaceId: ids.workspace,
      parameters: { report: 'invoices', format: 'csv', from: null, to: null, mode: 'full' },
      mode: 'full',
      dataAsOf: h.status.dataAsOf!.toISOString(),
      rows: 1,
    });
    expect(manifest.files[0]).toMatchObject({
      name: 'invoices.csv',
      role: 'rows',
      rows: 1,
      money: {
        subtotal: { USD: '180.00' },
        discountAmount: { USD: '18.00' },
        total: { USD: '192.78' },
        amountPaid: { USD: '100.00' },
      },
    });
    expect(await readManifest(path.join(folder, MANIFEST_FILE))).toEqual(manifest);
  });

  it('passes on fresh runs of every format', async () => {
    for (const [report, format] of [
      ['invoices', 'csv'],
      ['payments', 'parquet'],
      ['bill-lines', 'ndjson'],
      ['allocations', 'csv'],
    ] as const) {
      const { folder } = await run(report, format);
      expect(await verifyManifest(path.join(folder, MANIFEST_FILE)), report).toEqual([]);
    }
  });

  it('names a changed byte in a data file: its hash and the money sum it changed', async () => {
    const { folder, file } = await run('invoices', 'csv');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(',192.78,', ',192.79,'));
    expect(await verifyManifest(path.join(folder, MANIFEST_FILE))).toEqual([
      'invoices.csv: sha256 differs',
      'invoices.csv: total USD: manifest 192.78, file 192.79',
    ]);
  });

  it('names a changed byte in a Parquet file', async () => {
    const { folder, file } = await run('payments', 'parquet');
    const bytes = await readFile(file);
    const middle = Math.floor(bytes.length / 2);
    bytes.writeUInt8(bytes.readUInt8(middle) ^ 0x01, middle);
    await writeFile(file, bytes);
    const differences = await verifyManifest(path.join(folder, MANIFEST_FILE));
    expect(differences[0]).toBe('payments.parquet: sha256 differs');
  });

  it('names an edited manifest sum, a lost row and a missing file', async () => {
    const { folder, file } = await run('bill-lines', 'ndjson');
    const manifestPath = path.join(folder, MANIFEST_FILE);
    const manifest = await readManifest(manifestPath);
    manifest.files[0]!.money.amount = { EUR: '67.51' };
    await writeFile(manifestPath, JSON.stringify(manifest));
    expect(await verifyManifest(manifestPath)).toEqual([
      'bill-lines.ndjson: amount EUR: manifest 67.51, file 67.50',
    ]);

    const copy = `${folder}-copy`;
    await cp(folder, copy, { recursive: true });
    await writeFile(path.join(copy, path.basename(file)), '');
    const lost = await verifyManifest(path.join(copy, MANIFEST_FILE));
    expect(lost).toContain('bill-lines.ndjson: rows: manifest 1, file 0');
    await rm(path.join(copy, path.basename(file)));
    expect(await verifyManifest(path.join(copy, MANIFEST_FILE))).toContain(
      'bill-lines.ndjson: missing',
    );
  });

  it('`verify` exits 0 when all matches and 1 naming each difference, without a stack trace', async () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      stdout.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      stderr.push(String(chunk));
      return true;
    });
    const { folder, file } = await run('invoices', 'csv');
    const manifestPath = path.join(folder, MANIFEST_FILE);
    expect(await runCli(['verify', manifestPath])).toBe(0);
    await writeFile(file, (await readFile(file, 'utf8')).replace(',100.00,', ',100.01,'));
    expect(await runCli(['verify', manifestPath])).toBe(1);
    expect(stdout.join('')).toContain('invoices.csv: amountPaid USD: manifest 100.00, file 100.01');
    expect(stderr.join('')).toContain('2 differences');
    expect(await runCli(['verify', path.join(out, 'nothing.json')])).toBe(1);
    expect(stderr.join('')).toContain('Cannot read');
    expect(stderr.join('')).not.toMatch(/\n\s+at /);
  });

  it('`export-report` refuses bad input with one line and exit code 1', async () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      stderr.push(String(chunk));
      return true;
    });
    const base = ['--workspace', ids.workspace, '--format', 'csv', '--out', out];
    const cases: [string[], string][] = [
      [['export-report', 'ledger', ...base], 'Unknown report ledger'],
      [
        [
          'export-report',
          'invoices',
          '--workspace',
          ids.workspace,
          '--format',
          'xlsx',
          '--out',
          out,
        ],
        'Unknown format xlsx',
      ],
      [['export-report', 'invoices', ...base, '--from', '2026-02-30'], 'from must be a date'],
      [
        ['export-report', 'invoices', ...base, '--from', '2026-03-02', '--to', '2026-03-01'],
        'from must not be after to',
      ],
      [
        ['export-report', 'invoices', '--workspace', 'nope', '--format', 'csv', '--out', out],
        'nope is not a workspace id',
      ],
      [['export-report', 'invoices', '--workspace', ids.workspace, '--format', 'csv'], '--out'],
    ];
    for (const [args, message] of cases) {
      stderr.length = 0;
      expect(await runCli(args), args.join(' ')).toBe(1);
      expect(stderr.join(''), args.join(' ')).toContain(message);
      expect(stderr.join('')).not.toMatch(/\n\s+at /);
    }
  });
});
