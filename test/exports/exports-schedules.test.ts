import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_FILE, readManifest, verifyManifest } from '../../src/exports/manifest.ts';
import {
  ExportScheduler,
  loadSchedules,
  parseSchedules,
  rangeAt,
  type Schedule,
} from '../../src/exports/schedules.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';

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
  const scheduler = (schedules: Schedule[], node = 'node_a') =>
    new ExportScheduler({
      readModel: h.readModel,
      pool: h.pool,
      node,
      schedules,
      now: () => clock,
    });
  const stateOf = async (id: string) =>
    (
      await h.pool.query<{ last_scheduled_at: Date | null; last_node: string | null }>(
        'SELECT last_scheduled_at, last_node FROM export_schedule_state WHERE schedule_id = $1',
        [id],
      )
    ).rows[0];
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
    expect(await stateOf('inv')).toEqual({
      last_scheduled_at: new Date('2026-11-21T12:00:00Z'),
      last_node: 'node_a',
    });
  });

  it('never runs one schedule twice at once: in the process, and while another holds its lock', async () => {
    const dir = path.join(out, 'guard');
    const schedules = parseSchedules([schedule({ id: 'g', out: dir })], out);
    clock = new Date('2026-11-21T12:30:00Z');
    const runner = scheduler(schedules);
    await runner.start();

    clock = new Date('2026-11-21T13:30:00Z');
    await Promise.all([runner.runDue(), runner.runDue(), runner.runDue()]);
    expect(await folders(dir)).toEqual(['g-20261121T130000Z']);

    // Another process holds the schedule's lock in the store: the run waits for it.
    clock = new Date('2026-11-21T14:30:00Z');
    const holder = await h.pool.connect();
    await holder.query("SELECT pg_advisory_lock(x'4c4c4553'::int, hashtext('g'))");
    const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!
      .pid;
    await runner.runDue();
    expect(await folders(dir)).toEqual(['g-20261121T130000Z']);
    // That process dies (its connection ends, and its lock with it) and left a temporary
    // folder: the schedule runs, and the folder is removed.
    holder.release(new Error('killed'));
    while (
      (await h.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount !== 0
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    await mkdir(path.join(dir, '.tmp-g-20261121T140000Z-dead'));
    await runner.runDue();
    await runner.stop();
    expect(await folders(dir)).toEqual(['g-20261121T130000Z', 'g-20261121T140000Z']);
    expect((await readdir(dir)).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('runs a due time once across two nodes that share no folder, on the node that ran it last', async () => {
    const dirA = path.join(out, 'node-a');
    const dirB = path.join(out, 'node-b');
    const a = scheduler(parseSchedules([schedule({ id: 'n', out: dirA })], out), 'node_a');
    const b = scheduler(parseSchedules([schedule({ id: 'n', out: dirB })], out), 'node_b');
    clock = new Date('2026-11-21T12:30:00Z');
    await Promise.all([a.start(), b.start()]);
    const runs = async () => [...(await folders(dirA)), ...(await folders(dirB))].sort();

    // Both nodes find 13:00 due at once: one of them runs it.
    clock = new Date('2026-11-21T13:30:00Z');
    await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
    expect(await runs()).toEqual(['n-20261121T130000Z']);
    const first = (await stateOf('n'))!.last_node!;
    const [ran, other] = first === 'node_a' ? [a, b] : [b, a];

    // 14:00 is the last runner's: the other node leaves it for a minute after it was due.
    clock = new Date('2026-11-21T14:00:30Z');
    await other.runDue();
    expect(await runs()).toEqual(['n-20261121T130000Z']);
    await ran.runDue();
    expect(await runs()).toEqual(['n-20261121T130000Z', 'n-20261121T140000Z']);
    expect((await stateOf('n'))!.last_node).toBe(first);

    // The last runner is gone at 15:00: the other node takes the time over after that minute.
    await ran.stop();
    clock = new Date('2026-11-21T15:00:30Z');
    await other.runDue();
    expect(await runs()).toHaveLength(2);
    clock = new Date('2026-11-21T15:01:01Z');
    await other.runDue();
    await other.stop();
    expect(await runs()).toEqual([
      'n-20261121T130000Z',
      'n-20261121T140000Z',
      'n-20261121T150000Z',
    ]);
    expect((await stateOf('n'))!.last_node).not.toBe(first);
  });

  it('takes over the state file of a schedule from before the state moved into the store', async () => {
    const dir = path.join(out, 'legacy');
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, '.schedule-old.json'),
      JSON.stringify({
        since: '2026-11-01T00:00:00.000Z',
        lastScheduledAt: '2026-11-21T12:00:00.000Z',
        lastRunFolder: 'old-20261121T120000Z',
        lastPosition: null,
      }),
    );
    clock = new Date('2026-11-21T12:30:00Z');
    const runner = scheduler(parseSchedules([schedule({ id: 'old', out: dir })], out));
    await runner.start();
    await runner.stop();
    // 12:00 was run before: nothing is owed.
    expect(await folders(dir)).toEqual([]);
    expect((await stateOf('old'))!.last_scheduled_at).toEqual(new Date('2026-11-21T12:00:00Z'));
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
