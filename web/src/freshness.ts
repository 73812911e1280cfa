import { get } from './api.ts';

/** How often the page asks whether the data changed. */
const POLL_MS = 5_000;

/**
 * Follows X-Data-As-Of, the moment of the store the read model shows: every answer the views
 * read reports it (`seen`), and between them a light GET /me asks for it every few seconds.
 * When it moves past what the view on screen was drawn from, the view is drawn again.
 */
export class Freshness {
  private latest: string | null = null;
  private drawnFrom: string | null = null;
  private timer: number | undefined;
  private listener: (() => void) | undefined;

  constructor(private readonly show: (dataAsOf: string | null) => void) {}

  /** An answer's X-Data-As-Of, as a view reads it. */
  seen(dataAsOf: string | null): void {
    if (dataAsOf === null) return;
    if (this.latest === null || dataAsOf > this.latest) this.latest = dataAsOf;
    this.drawnFrom = this.latest;
    this.show(this.latest);
  }

  onChange(listener: () => void): void {
    this.listener = listener;
  }

  start(): void {
    this.stop();
    this.timer = window.setInterval(() => void this.poll(), POLL_MS);
  }

  stop(): void {
    if (this.timer !== undefined) window.clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (document.hidden) return;
    try {
      const { dataAsOf } = await get('/me');
      if (dataAsOf !== null && this.drawnFrom !== null && dataAsOf > this.drawnFrom) {
        this.latest = dataAsOf;
        this.drawnFrom = dataAsOf;
        this.show(dataAsOf);
        this.listener?.();
      }
    } catch {
      // A failed poll changes nothing on screen; the next view drawn reports its own error.
    }
  }
}
