/**
 * The longest row DuckDB's reader takes: 32 MiB, where its default is 2 MB (a longer note
 * failed the sync). The reader needs a buffer at least this large and cuts files into
 * buffers for its threads: with 128 MiB buffers a 128 MB slice parsed about 40% slower, so
 * the limit stays at DuckDB's default buffer size. A longer row fails its batch, and the
 * failure is contained and reported like any other (docs/sync.md).
 */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

/** The smallest buffer asked for: DuckDB's reader is as fast with it on a file of a few rows. */
const MIN_BUFFER_BYTES = 64 * 1024;

/**
 * The reader's buffer (and longest row) for a file of `fileBytes`: the whole file when it is
 * smaller than MAX_LINE_BYTES, since no row of a file is longer than the file. DuckDB allocates
 * the buffer whole at every read_csv, whatever the file holds: at 32 MiB for each change file
 * of a sync batch, a server taking 50 writes a second asked the allocator for about 1 GB a
 * second (docs/performance.md, "Where the time and the memory went").
 */
export function csvBufferBytes(fileBytes: number): number {
  return Math.min(MAX_LINE_BYTES, Math.max(MIN_BUFFER_BYTES, fileBytes + 1));
}

/** read_csv's `max_line_size` and `buffer_size` options for a file of `fileBytes`. */
export function csvBufferOptions(fileBytes: number): string {
  const buffer = csvBufferBytes(fileBytes);
  return `max_line_size = ${buffer}, buffer_size = ${buffer}`;
}
