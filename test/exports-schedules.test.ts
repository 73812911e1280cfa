import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, readManifest, verifyManifest } from '../src/exports/manifest.ts';
import {
  ExportScheduler,
  loadSchedules,
  parseSchedules,
  rangeAt,
  type Schedule,
} from '../src/exports/schedules.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { ids, smallSnapshot } from './support/small-snapshot.ts';

const schedule = (fields: Record<string, unknown>) => ({
  id: 'inv',
  workspaceId: ids.workspace,
  report: 'invoices',
  format: 'csv',
  cron: '0 * * * *',
  out: 'runs',
  ...fields,
});

describe('export schedules file', () => {
  it('reads schedules, with out relative to the file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'll-schedules-'));
    const file = path.join(dir, 'exports.json');
    await writeFile(
      file,
      JSON.stringify([
        schedule({ range: 'previous-month' }),
        schedule({ id: 'te', report: 'time-entries', mode: 'incremental', format: 'parquet' }),
      ]),
    );
    const [inv, te] = await loadSchedules(file);
    expect(inv).toMatchObject({ id: 'inv', out: path.join(dir, 'runs'), mode: 'full' });
    expect(rangeAt(inv!, new Date('2026-03-01T02:00:00Z'))).toEqual({
      from: '2026-02-01',
      to: '2026-02-28',
    });
    expect(te).toMatchObject({ mode: 'incremental', format: 'parquet' });
    await rm(dir, { recursive: true });
  });

  it('refuses a bad schedule with one line naming it and the field', () => {
    const cases: [unknown, string][] = [
      [{}, 'must be an array'],
      [[schedule({ cron: '61 * * * *' })], '[0] (inv).cron minute: 61 is outside 0-59'],
      [[schedule({ report: 'ledger' })], '[0].report must be one of'],
      [[schedule({ format: 'xlsx' })], '[0].format must be one of'],
      [[schedule({ workspaceId: 'x' })], '[0].workspaceId must be a UUID'],
      [[schedule({ colour: 'red' })], '[0].schedule'],
      [[schedule({}), schedule({})], '[1] (inv).id is used twice'],
      [
        [schedule({ report: 'unpaid-time', mode: 'incremental' })],
        '(inv).mode incremental is for the row reports',
      ],
      [[schedule({ range: 'all', from: '2026-01-01' })], 'cannot both be given'],
      [[schedule({ from: '2026-02-01', to: '2026-01-01' })], 'must not be after to'],
    ];
    for (const [json, message] of cases) {
      expect(() => parseSchedules(json, '/tmp'), message).toThrow(message);
    }
  });
});

describe('export scheduler', () => {
  let h: Harness;
  let out: string;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(smallSnapshot());
    await h.sync();
    out = await mkdtemp(path.join(tmpdir(), 'll-schedules-run-'));
  });
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
    await h.close();
  });

  let clock = new Date('2026-11-21T10:30:00Z');
  const scheduler = (schedules: Schedule[]) =>
    new ExportScheduler({ readModel: h.readModel, schedules, now: () => clock });
  const folders = async (dir: string) => (await readdir(dir)).filter((n) => !n.startsWith('.'));

  it('runs a time missed while down once at start, across restarts, never half-written', async () => {
    const dir = path.join(out, 'restart');
    const schedules = parseSchedules([schedule({ out: dir })], out);

    clock = new Date('2026-11-21T10:30:00Z');
    const first = scheduler(schedules);
    await first.start();
    await first.stop();
    // Nothing was due since the schedule became known.
    expect(await folders(dir)).toEqual([]);

    // Down from 10:30 to 12:30: 11:00 and 12:00 were missed; the latest is run, once.
    clock = new Date('2026-11-21T12:30:00Z');
    const second = scheduler(schedules);
    await second.start();
    await second.stop();
    expect(await folders(dir)).toEqual(['inv-20261121T120000Z']);
    const manifestPath = path.join(dir, 'inv-20261121T120000Z', MANIFEST_FILE);
    expect(await verifyManifest(manifestPath)).toEqual([]);
    expect((await readManifest(manifestPath)).parameters.schedule).toBe('inv');

    // Restarting again at the same time owes nothing.
    const third = scheduler(schedules);
    await third.start();
    await third.stop();
    expect(await folders(dir)).toEqual(['inv-20261121T120000Z']);
    expect((await readdir(dir)).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    const state = JSON.parse(await readFile(path.join(dir, '.schedule-inv.json'), 'utf8')) as {
      lastScheduledAt: string;
    };
    expect(state.lastScheduledAt).toBe('2026-11-21T12:00:00.000Z');
  });

  it('never runs one schedule twice at once: in the process, and under another lock holder', async () => {
    const dir = path.join(out, 'guard');
    const schedules = parseSchedules([schedule({ id: 'g', out: dir })], out);
    clock = new Date('2026-11-21T12:30:00Z');
    const runner = scheduler(schedules);
    await runner.start();

    clock = new Date('2026-11-21T13:30:00Z');
    await Promise.all([runner.runDue(), runner.runDue(), runner.runDue()]);
    expect(await folders(dir)).toEqual(['g-20261121T130000Z']);

    // A live process holds the lock (the test's parent process): the run waits for it.
    clock = new Date('2026-11-21T14:30:00Z');
    const lock = path.join(dir, '.schedule-g.lock');
    await writeFile(lock, JSON.stringify({ pid: process.ppid, host: hostname() }));
    await runner.runDue();
    expect(await folders(dir)).toEqual(['g-20261121T130000Z']);
    // A lock of a process that died is taken over; a crashed run's temporary folder removed.
    await writeFile(lock, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname() }));
    await mkdir(path.join(dir, '.tmp-g-20261121T140000Z-dead'));
    await runner.runDue();
    await runner.stop();
    expect(await folders(dir)).toEqual(['g-20261121T130000Z', 'g-20261121T140000Z']);
    expect(
      (await readdir(dir)).filter((n) => n.startsWith('.tmp-') || n.endsWith('.lock')),
    ).toEqual([]);
  });

  it('an incremental schedule after a reload of the read model exports everything, and says so', async () => {
    const dir = path.join(out, 'reload');
    const schedules = parseSchedules([schedule({ id: 'r', out: dir, mode: 'incremental' })], out);
    clock = new Date('2026-11-21T12:30:00Z');
    const runner = scheduler(schedules);
    await runner.start();
    clock = new Date('2026-11-21T13:00:00Z');
    await runner.runDue();
    // This harness loads the read model afresh on every sync: a new journal.
    await h.sync();
    clock = new Date('2026-11-21T14:00:00Z');
    await runner.runDue();
    await runner.stop();
    const manifest = (name: string) => readManifest(path.join(dir, name, MANIFEST_FILE));
    expect((await manifest('r-20261121T130000Z')).mode).toBe('full (first incremental run)');
    const reloaded = await manifest('r-20261121T140000Z');
    expect(reloaded.mode).toBe('full (read model reloaded)');
    expect(reloaded.rows).toBe(1);
    expect(reloaded.files.map((f) => f.name)).toEqual(['invoices.csv']);
  });
});
