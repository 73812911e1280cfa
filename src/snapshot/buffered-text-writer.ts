import { once } from 'node:events';
import type { Writable } from 'node:stream';

const CHUNK_BYTES = 1 << 20;

/**
 * Encodes output text straight into 1 MiB buffers and writes each full buffer to the
 * stream. Encoding piece by piece avoids building long concatenated strings, which V8 would
 * have to flatten before writing.
 *
 * Backpressure: once `write()` returned false, nothing more is written before 'drain'. The
 * generator meanwhile fills the next buffer, so generating overlaps with the stream's I/O,
 * and at most one buffer waits here. An error of the stream while waiting rejects.
 *
 * `push` is synchronous so the hot loops stay cheap; callers check `full` and await
 * `flush()` only then. Text of one record may span several pushes.
 */
export class BufferedTextWriter {
  private buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  private readonly pending: Buffer[] = [];
  /** Settles on the stream's 'drain' (to null) or 'error' (to the error); null when not waiting. */
  private drain: Promise<Error | null> | null = null;

  constructor(private readonly out: Writable) {}

  /** True once a chunk is ready to be written: time to `await flush()`. */
  get full(): boolean {
    return this.pending.length > 0;
  }

  push(text: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 code unit.
    if (this.used + text.length * 3 > CHUNK_BYTES) {
      this.seal();
      if (text.length * 3 > CHUNK_BYTES) {
        this.pending.push(Buffer.from(text, 'utf8'));
        return;
      }
    }
    this.used += this.buffer.write(text, this.used, 'utf8');
  }

  /** Pushes text and flushes when a chunk is ready. */
  async write(text: string): Promise<void> {
    this.push(text);
    if (this.full) await this.flush();
  }

  /** Writes everything pushed so far (after the stream drained, if it asked to wait). */
  async flush(): Promise<void> {
    this.seal();
    if (this.pending.length === 0) return;
    await this.drained();
    let ready = true;
    for (const chunk of this.pending.splice(0)) ready = this.out.write(chunk);
    if (!ready) {
      this.drain = once(this.out, 'drain').then(
        () => null,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
    }
  }

  /** Writes everything and waits until the stream has taken it (does not end the stream). */
  async close(): Promise<void> {
    await this.flush();
    await this.drained();
  }

  private async drained(): Promise<void> {
    if (this.drain === null) return;
    const failure = await this.drain;
    this.drain = null;
    if (failure !== null) throw failure;
  }

  /** Moves the filled part of the current buffer to `pending` and starts a new buffer. */
  private seal(): void {
    if (this.used === 0) return;
    this.pending.push(this.buffer.subarray(0, this.used));
    this.buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    this.used = 0;
  }
}

/** Ends a stream and waits until everything written is out (rejects on a write error). */
export function endStream(out: Writable): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
}
