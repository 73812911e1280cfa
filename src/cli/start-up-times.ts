/**
 * The phases of a server's start, each as the seconds since the process began at which it
 * began and ended (process.uptime(): node's own start and the loading of modules come
 * first), for the line `serve` prints once it follows the store: where a slow start went
 * (docs/sync.md, "Start-up"). Phases may overlap.
 */
export class StartUpTimes {
  private readonly phases: { name: string; from: number; to: number }[] = [];

  /** Records a phase that began at `from` (process.uptime()) and ends now. */
  record(name: string, from: number): void {
    this.phases.push({ name, from, to: process.uptime() });
  }

  /** Runs `work` as the phase `name`. */
  async time<T>(name: string, work: () => Promise<T>): Promise<T> {
    const from = process.uptime();
    try {
      return await work();
    } finally {
      this.record(name, from);
    }
  }

  /** "node and modules 0.00-2.10, store 2.10-2.90, …", in the order the phases began. */
  toString(): string {
    return [...this.phases]
      .sort((a, b) => a.from - b.from)
      .map((p) => `${p.name} ${p.from.toFixed(2)}-${p.to.toFixed(2)}`)
      .join(', ');
  }
}
