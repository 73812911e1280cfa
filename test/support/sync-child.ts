// Run by test/sync/sync-crash.test.ts as its own process: catches a file read model up with the
// store, with LEDGERLINE_CRASH_AT making it die on the way. Args: <database url> <duckdb file>.
import { openReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { createPool } from '../../src/store/database.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';

const [url, file] = process.argv.slice(2) as [string, string];
const pool = createPool(url);
const readModel = await openReadModel(file, READ_MODEL_PARTS);
const sync = new SyncService({
  pool,
  url,
  readModel,
  derived: DERIVED_TABLES,
  status: new ReadModelStatus(),
  flushRows: 2,
});
await sync.catchUp();
readModel.close();
await pool.end();
