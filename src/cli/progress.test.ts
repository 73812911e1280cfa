import { afterEach, describe, expect, it, vi } from 'vitest';
import { startProgress } from './progress.ts';

describe('progress of a long job without a terminal', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes one plain line per update: count, total, rate, ETA and the detail', () => {
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const progress = startProgress('sync: rows', { tty: false });
    progress.update(1_500, 6_000, 'table 1/3 clients');
    progress.update(2_000);
    progress.stop();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^sync: rows: 1,500 \/ 6,000 \([\d,]+\/s, ETA \d+ s\), table 1\/3 clients\n$/,
    );
    expect(lines[1]).toMatch(/^sync: rows: 2,000 \([\d,]+\/s\)\n$/);
  });
});
