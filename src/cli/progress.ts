import { Presets, SingleBar } from 'cli-progress';
import { info, progressLine } from './output.ts';

/** How a long command job (import, sync, export) says how far it is. */
export interface Progress {
  /** `done` of `total` (when known) units; `detail` follows the figures (a table name). */
  update(done: number, total?: number, detail?: string): void;
  /** Ends the bar (the plain lines need no end). */
  stop(): void;
}

/**
 * On a terminal, one bar redrawn in place with rate and ETA (cli-progress); otherwise (a log
 * file, CI, a pipe) a plain line per update (`progressLine`), which a log keeps readable.
 * Without a total there is no bar: the count and its rate; `percent`: the updates are percents
 * (DuckDB's estimate of a COPY), so the bar shows no count or rate.
 */
export function startProgress(
  label: string,
  { tty = process.stderr.isTTY, percent = false }: { tty?: boolean; percent?: boolean } = {},
): Progress {
  const started = Date.now();
  if (!tty) {
    return {
      update: (done, total, detail) =>
        info(`${progressLine(label, done, started, total)}${detail ? `, ${detail}` : ''}`),
      stop: () => undefined,
    };
  }
  let bar: SingleBar | undefined;
  return {
    update(done, total, detail = '') {
      const rate = Math.round(done / Math.max((Date.now() - started) / 1000, 0.001));
      const payload = { detail, rate: rate.toLocaleString('en-US') };
      if (!bar) {
        const figures = percent
          ? '[{bar}] {percentage}% | ETA {eta_formatted}'
          : total
            ? '[{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {eta_formatted}'
            : '{value} | {rate}/s';
        bar = new SingleBar(
          {
            stream: process.stderr,
            format: `${label} ${figures} {detail}`,
            formatValue: (value, _options, type) =>
              type === 'value' || type === 'total' ? value.toLocaleString('en-US') : String(value),
            hideCursor: true,
            etaBuffer: 20,
          },
          Presets.shades_classic,
        );
        bar.start(total ?? 0, done, payload);
        return;
      }
      if (total !== undefined) bar.setTotal(total);
      bar.update(done, payload);
    },
    stop() {
      bar?.stop();
    },
  };
}
