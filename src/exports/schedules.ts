import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import type pg from 'pg';
import path from 'node:path';
import { z } from 'zod';
import { isoDate } from '../value-schemas.ts';
import type { ReadModel } from '../readmodel/read-model.ts';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import { CronError, latestBetween, nextAfter, parseCron, type Cron } from './cron.ts';
import { compactTime, resolveExportRequest, runExport } from './export-run.ts';
import { EXPORT_REPORT_NAMES, findExportReport } from './export-reports.ts';
import { EXPORT_FORMATS } from './export-writer.ts';
import { MANIFEST_FILE, readManifest, type JournalPosition } from './manifest.ts';
import { claimSchedule, ensureScheduleState, type ScheduleState } from './schedule-state.ts';

/** A schedules file that cannot be used: one line naming the schedule and field. */
export class ScheduleConfigError extends Error {}

/** Ranges relative to the scheduled time (its UTC date). */
export const RELATIVE_RANGES = ['all', 'previous-day', 'previous-month', 'current-month'] as const;

const scheduleSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be letters, digits, - or _ (up to 64)'),
    workspaceId: z.uuid({ error: 'must be a UUID' }).transform((v) => v.toLowerCase()),
    report: z.enum(EXPORT_REPORT_NAMES as [string, ...string[]], {
      error: `must be one of ${EXPORT_REPORT_NAMES.join(', ')}`,
    }),
    format: z.enum(EXPORT_FORMATS, { error: `must be one of ${EXPORT_FORMATS.join(', ')}` }),
    cron: z.string(),
    out: z.string().min(1),
    mode: z.enum(['full', 'incremental']).default('full'),
    range: z.enum(RELATIVE_RANGES).optional(),
    from: isoDate.optional(),
    to: isoDate.optional(),
  })
  .strict();

export interface Schedule {
  id: string;
  workspaceId: string;
  report: string;
  format: (typeof EXPORT_FORMATS)[number];
  cron: Cron;
  /** Absolute: the folder of this schedule's runs. */
  out: string;
  mode: 'full' | 'incremental';
  range: (typeof RELATIVE_RANGES)[number] | { from?: string; to?: string };
}

/**
 * Parses a schedules file (a JSON array, see docs/exports.md): every schedule is checked at
 * start, so a typo is a ScheduleConfigError before the server listens, never a failed run at
 * night. `out` is relative to the file's folder.
 */
export async function loadSchedules(file: string): Promise<Schedule[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ScheduleConfigError(
      `EXPORT_SCHEDULES ${file}: ${error instanceof SyntaxError ? 'is not JSON' : 'cannot be read'}`,
    );
  }
  return parseSchedules(json, path.dirname(path.resolve(file)), file);
}

export function parseSchedules(json: unknown, baseDir: string, label = 'schedules'): Schedule[] {
  const fail = (where: string, message: string) =>
    new ScheduleConfigError(`EXPORT_SCHEDULES ${label}: ${where} ${message}`);
  if (!Array.isArray(json)) throw fail('the document', 'must be an array of schedules');
  const seen = new Set<string>();
  return json.map((item: unknown, index): Schedule => {
    const parsed = scheduleSchema.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw fail(`[${index}].${issue.path.join('.') || 'schedule'}`, issue.message);
    }
    const s = parsed.data;
    const where = (field: string) => `[${index}] (${s.id}).${field}`;
    if (seen.has(s.id)) throw fail(where('id'), 'is used twice');
    seen.add(s.id);
    let cron: Cron;
    try {
      cron = parseCron(s.cron);
    } catch (error) {
      throw fail(where('cron'), error instanceof CronError ? error.message : String(error));
    }
    if (s.mode === 'incremental' && !findExportReport(s.report)?.journal)
      throw fail(
        where('mode'),
        `incremental is for the row reports (invoices, time-entries, bills, bill-lines, payments, allocations), not ${s.report}`,
      );
    if (s.range !== undefined && (s.from !== undefined || s.to !== undefined))
      throw fail(where('range'), 'and from/to cannot both be given');
    if (s.from !== undefined && s.to !== undefined && s.from > s.to)
      throw fail(where('from'), 'must not be after to');
    return {
      id: s.id,
      workspaceId: s.workspaceId,
      report: s.report,
      format: s.format,
      cron,
      out: path.resolve(baseDir, s.out),
      mode: s.mode,
      range:
        s.range ??
        (s.from !== undefined || s.to !== undefined
          ? { ...(s.from ? { from: s.from } : {}), ...(s.to ? { to: s.to } : {}) }
          : 'all'),
    };
  });
}

/** The from/to of a run scheduled at `at` (UTC dates). */
export function rangeAt(schedule: Schedule, at: Date): { from?: string; to?: string } {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d));
  const [y, m, d] = [at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()];
  switch (schedule.range) {
    case 'all':
      return {};
    case 'previous-day':
      return { from: day(utc(y, m, d - 1)), to: day(utc(y, m, d - 1)) };
    case 'previous-month':
      return { from: day(utc(y, m - 1, 1)), to: day(utc(y, m, 0)) };
    case 'current-month':
      return { from: day(utc(y, m, 1)), to: day(utc(y, m + 1, 0)) };
    default:
      return schedule.range;
  }
}

/**
 * The state file of a schedule run before the state moved into the store
 * (`<out>/.schedule-<id>.json`): read once, when the store has no state for the schedule, so an
 * upgraded server neither runs a time again nor loses its incremental position.
 */
const legacyState = z.object({
  since: z.string(),
  lastScheduledAt: z.string().nullable(),
  lastRunFolder: z.string().nullable(),
  lastPosition: z.object({ loadId: z.string(), changeNo: z.int() }).nullable(),
});

async function readLegacyState(s: Schedule): Promise<ScheduleState | undefined> {
  try {
    const file = legacyState.parse(
      JSON.parse(await readFile(path.join(s.out, `.schedule-${s.id}.json`), 'utf8')),
    );
    return {
      since: new Date(file.since),
      lastScheduledAt: file.lastScheduledAt === null ? null : new Date(file.lastScheduledAt),
      lastRunFolder: file.lastRunFolder,
      lastPosition: file.lastPosition,
      lastNode: null,
    };
  } catch {
    return undefined;
  }
}

export interface SchedulerOptions {
  readModel: ReadModel;
  /** The store, which keeps every schedule's state and lock (src/exports/schedule-state.ts). */
  pool: pg.Pool;
  /** This node's name (NODE_NAME, else the host's): the node that ran a schedule runs it next. */
  node: string;
  /**
   * How long after a due time the node that ran the schedule last has it to itself, and how
   * long a node waits before it looks again at a schedule another process holds (60 s).
   */
  handOverMs?: number;
  /** Runs wait for the read model's first sync (none when absent: ready). */
  status?: ReadModelStatus;
  schedules: Schedule[];
  now?: () => Date;
  log?: (line: string) => void;
}

/**
 * Runs the export schedules inside the server. Each schedule has a timer to its next time; a
 * due time is run once across every node of the store; a schedule never runs twice at once
 * (in this process: one run per schedule at a time; across processes and nodes: an advisory
 * lock in the store, under which its state there is read and written); and at start, a time
 * that passed while every node was down is run once (the latest one, not once per missed
 * time). Each run is a folder `<id>-<scheduled time>` made whole by a rename.
 *
 * The node that ran a schedule last runs its next time, so that an incremental schedule goes
 * on from its own read model's journal (another node's journal has another load id, and would
 * export everything again); any other node takes the time over `handOverMs` after it was due,
 * and a node that finds the lock held looks again that much later, so a run lost with its node
 * is run by another.
 */
export class ExportScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** A look again sooner than the next scheduled time: a handed-over or a locked schedule. */
  private readonly retries = new Map<string, Date>();
  private readonly handOverMs: number;
  private readonly running = new Map<string, Promise<void>>();
  private stopped = true;
  private readonly now: () => Date;
  private readonly log: (line: string) => void;

  constructor(private readonly options: SchedulerOptions) {
    this.now = options.now ?? (() => new Date());
    this.log = options.log ?? (() => undefined);
    this.handOverMs = options.handOverMs ?? 60_000;
  }

  /** Catches up on missed times (awaited) and arms every schedule's timer. */
  async start(): Promise<void> {
    this.stopped = false;
    for (const schedule of this.options.schedules) {
      await mkdir(schedule.out, { recursive: true });
      await ensureScheduleState(
        this.options.pool,
        schedule.id,
        (await readLegacyState(schedule)) ?? {
          since: this.now(),
          lastScheduledAt: null,
          lastRunFolder: null,
          lastPosition: null,
          lastNode: null,
        },
      );
    }
    await Promise.all(this.options.schedules.map((s) => this.tick(s)));
  }

  /** Clears the timers and waits for runs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running.values()]);
  }

  /** Runs what is due for every schedule now (the timers call this per schedule). */
  async runDue(): Promise<void> {
    await Promise.all(this.options.schedules.map((s) => this.tick(s)));
  }

  /** Runs the latest due time of `schedule` if one is owed, then arms its timer. */
  private async tick(schedule: Schedule): Promise<void> {
    const current = this.running.get(schedule.id);
    if (current) return current;
    const run = this.runOwed(schedule)
      .catch((error: unknown) =>
        this.log(
          `export schedule ${schedule.id}: failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      )
      .finally(() => {
        this.running.delete(schedule.id);
        this.arm(schedule);
      });
    this.running.set(schedule.id, run);
    return run;
  }

  private arm(schedule: Schedule): void {
    if (this.stopped) return;
    clearTimeout(this.timers.get(schedule.id));
    const retry = this.retries.get(schedule.id);
    this.retries.delete(schedule.id);
    const scheduled = nextAfter(schedule.cron, this.now());
    const next = retry && retry < scheduled ? retry : scheduled;
    // setTimeout holds at most 2^31-1 ms: a far time is approached in steps.
    const delay = Math.min(Math.max(next.getTime() - this.now().getTime(), 0), 2 ** 31 - 1);
    const timer = setTimeout(() => void this.tick(schedule), delay);
    timer.unref();
    this.timers.set(schedule.id, timer);
  }

  private async runOwed(schedule: Schedule): Promise<void> {
    if (this.options.status && !this.options.status.ready) return;
    const claim = await claimSchedule(this.options.pool, schedule.id);
    if (!claim) {
      this.log(`export schedule ${schedule.id}: another process runs it; looking again later`);
      this.lookAgain(schedule, this.now().getTime() + this.handOverMs);
      return;
    }
    try {
      // Read under the lock: another node may have run it meanwhile.
      const state = await claim.read();
      if (!state) return;
      const due = latestBetween(schedule.cron, state.lastScheduledAt ?? state.since, this.now());
      if (!due) return;
      const handOver = due.getTime() + this.handOverMs;
      if (
        state.lastNode !== null &&
        state.lastNode !== this.options.node &&
        this.now().getTime() < handOver
      ) {
        // The time is its last runner's first; this node takes it only if that one does not.
        this.lookAgain(schedule, handOver);
        return;
      }
      await this.removeLeftovers(schedule);
      const runName = `${schedule.id}-${compactTime(due)}`;
      const folder = path.join(schedule.out, runName);
      let position: JournalPosition | null;
      if (await exists(path.join(folder, MANIFEST_FILE))) {
        // Written before a crash that lost the state: the run is done.
        position = (await readManifest(path.join(folder, MANIFEST_FILE))).position;
      } else {
        position = await this.run(schedule, due, runName, state.lastPosition);
      }
      await claim.write({
        ...state,
        lastScheduledAt: due,
        lastRunFolder: runName,
        lastPosition: position,
        lastNode: this.options.node,
      });
    } finally {
      await claim.release();
    }
  }

  /** Arms the schedule's timer for `at` too, when that comes before its next time. */
  private lookAgain(schedule: Schedule, at: number): void {
    const when = new Date(at);
    const earlier = this.retries.get(schedule.id);
    if (!earlier || when < earlier) this.retries.set(schedule.id, when);
  }

  private async run(
    schedule: Schedule,
    due: Date,
    runName: string,
    since: JournalPosition | null,
  ): Promise<JournalPosition | null> {
    const started = Date.now();
    this.log(`export schedule ${schedule.id}: run for ${due.toISOString()}`);
    const connection = await this.options.readModel.connect();
    try {
      const request = await resolveExportRequest(
        connection,
        {
          report: schedule.report,
          workspaceId: schedule.workspaceId,
          format: schedule.format,
          ...rangeAt(schedule, due),
        },
        due,
      );
      connection.closeSync();
      const { folder, manifest } = await runExport(this.options.readModel, request, {
        outDir: schedule.out,
        runName,
        mode: schedule.mode,
        since,
        schedule: schedule.id,
        now: this.now(),
        log: (line) => this.log(`export schedule ${schedule.id}: ${line}`),
      });
      this.log(
        `export schedule ${schedule.id}: ${folder} (${manifest.mode}, ${manifest.rows.toLocaleString('en-US')} rows, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
      return manifest.position;
    } finally {
      connection.closeSync();
    }
  }

  /** Temporary folders of this schedule's runs that a crash left behind (under its lock). */
  private async removeLeftovers(schedule: Schedule): Promise<void> {
    for (const name of await readdir(schedule.out)) {
      if (name.startsWith(`.tmp-${schedule.id}-`))
        await rm(path.join(schedule.out, name), { recursive: true, force: true });
    }
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
