import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * What one share of a flush cost: DuckDB statements run, wall time in ms, and the CPU time the
 * process spent meanwhile, all its threads (DuckDB's and JavaScript's), in ms: on a machine
 * shared with other work, wall time also counts the waits for a core, CPU time does not.
 */
export interface FlushCost {
  statements: number;
  ms: number;
  cpuMs: number;
}

/**
 * What one ChangeBatch.flush cost, by share: `load` (the change files read into temporary
 * tables, and the ids noted for the read model's status), `apply` (the copied tables' DELETE
 * and INSERT), then each derived part by its name (its beforeApply, afterApply and finish
 * together), and `total`, the whole flush. The BEGIN, the sync position and the COMMIT around
 * it are the sync's, not the flush's.
 */
export interface FlushProfile {
  total: FlushCost;
  parts: Record<string, FlushCost>;
}

/** Statement-running methods of a DuckDB connection: each call counts as one statement. */
const STATEMENT_METHODS = new Set<string | symbol>([
  'run',
  'runAndRead',
  'runAndReadAll',
  'runAndReadUntil',
  'stream',
  'streamAndRead',
  'streamAndReadAll',
  'streamAndReadUntil',
  'start',
  'startThenRead',
  'startThenReadAll',
  'startThenReadUntil',
  'startStream',
  'startStreamThenRead',
  'startStreamThenReadAll',
  'startStreamThenReadUntil',
]);

/**
 * Records a FlushProfile while a flush runs: the flush runs each share through `time`, with the
 * connection `connection` hands out, which counts every statement run through it against the
 * share running at that moment (a flush runs one share at a time).
 */
export class FlushProfiler {
  private readonly started = performance.now();
  private readonly startedCpu = process.cpuUsage();
  private readonly parts: Record<string, FlushCost> = {};
  private current: FlushCost | undefined;
  private statements = 0;
  /** The connection to hand the shares: `duck`, counting the statements run through it. */
  readonly connection: DuckDBConnection;

  constructor(duck: DuckDBConnection) {
    this.connection = new Proxy(duck, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        const method = value as (...args: unknown[]) => unknown;
        if (!STATEMENT_METHODS.has(property)) return method.bind(target);
        return (...args: unknown[]) => {
          this.statements++;
          if (this.current) this.current.statements++;
          return method.apply(target, args);
        };
      },
    });
  }

  /** Runs `work`, a share named `part`, adding its statements and time to the part's. */
  async time<T>(part: string, work: () => Promise<T>): Promise<T> {
    const cost = (this.parts[part] ??= { statements: 0, ms: 0, cpuMs: 0 });
    this.current = cost;
    const start = performance.now();
    const cpu = process.cpuUsage();
    try {
      return await work();
    } finally {
      cost.ms += performance.now() - start;
      cost.cpuMs += cpuMs(process.cpuUsage(cpu));
      this.current = undefined;
    }
  }

  /** The profile so far. */
  profile(): FlushProfile {
    return {
      total: {
        statements: this.statements,
        ms: performance.now() - this.started,
        cpuMs: cpuMs(process.cpuUsage(this.startedCpu)),
      },
      parts: Object.fromEntries(
        Object.entries(this.parts).map(([name, cost]) => [name, { ...cost }]),
      ),
    };
  }
}

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
