import type { Me } from '../api.ts';

/** What a view is drawn with. */
export interface ViewContext {
  me: Me;
  /** Where the view draws. */
  main: HTMLElement;
  /** Reports an answer's X-Data-As-Of. */
  seen: (dataAsOf: string | null) => void;
  /** Whether this drawing is still the latest (a newer one started: stop drawing). */
  current: () => boolean;
  /** Shows an error of a part of the view, or signs out on a revoked token. */
  failed: (error: unknown) => void;
}
