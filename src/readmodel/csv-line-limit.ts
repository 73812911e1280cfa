/**
 * The longest row DuckDB's reader takes: 32 MiB, where its default is 2 MB (a longer note
 * failed the sync). The reader needs a buffer at least this large and cuts files into
 * buffers for its threads: with 128 MiB buffers a 128 MB slice parsed about 40% slower, so
 * the limit stays at DuckDB's default buffer size. A longer row fails its batch, and the
 * failure is contained and reported like any other (docs/sync.md).
 */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;
