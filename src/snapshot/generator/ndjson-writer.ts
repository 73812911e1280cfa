import { once } from 'node:events';
import type { Writable } from 'node:stream';

const CHUNK_CHARS = 1 << 18;

/**
 * Collects output text into chunks of about 256 KiB before writing them to the stream, and
 * honours backpressure: when the stream's buffer is full, `flush` waits for 'drain' (and
 * rejects if the stream errors meanwhile).
 *
 * `push` is synchronous so the hot loops stay cheap; callers check `full` and await
 * `flush()` only then. Text of one record may span several pushes.
 */
export class NdjsonWriter {
  private chunk = '';

  constructor(private readonly out: Writable) {}

  get full(): boolean {
    return this.chunk.length >= CHUNK_CHARS;
  }

  push(text: string): void {
    this.chunk += text;
  }

  /** Pushes text and flushes when the chunk is full. */
  async write(text: string): Promise<void> {
    this.chunk += text;
    if (this.full) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.chunk === '') return;
    const ready = this.out.write(this.chunk);
    this.chunk = '';
    if (!ready) await once(this.out, 'drain');
  }
}
