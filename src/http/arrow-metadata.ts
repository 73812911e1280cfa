// The schema metadata of an Arrow answer (docs/api.md, "Arrow answers"), apart from the code
// that writes the stream (arrow-table.ts), which loads apache-arrow: the OpenAPI document
// names them without loading it.

/** Schema metadata: the answer without its rows, as JSON text. */
export const META_KEY = 'ledgerline.meta';
/** Schema metadata: where the rows were in the answer (`data`, `data.members`). */
export const ROWS_KEY = 'ledgerline.rows';
