/**
 * Lets the sync's batches go first: while one is being written, reads of the read model that
 * have not started wait for its commit (at most `maxHoldMs`), and the reads already running
 * finish. On two cores the reads running beside a batch took most of the CPU, and a batch that
 * took 200 ms alone took 600 with four readers looping (docs/sync.md, "Reads do not starve the
 * sync"). A read held here starts on the newer data.
 */
export class ReadGate {
  private held: (() => void)[] = [];
  private closed = false;

  constructor(private readonly maxHoldMs = 250) {}

  /** The sync: a batch is being written; reads not started wait. */
  close(): void {
    this.closed = true;
  }

  /** The sync: the batch committed (or was abandoned); held reads start. */
  open(): void {
    this.closed = false;
    for (const release of this.held.splice(0)) release();
  }

  /** A read: resolves at once while no batch is being written, else at its end or the bound. */
  async pass(): Promise<void> {
    if (!this.closed) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.held.push(resolve);
      timer = setTimeout(resolve, this.maxHoldMs);
    });
    clearTimeout(timer);
  }
}
