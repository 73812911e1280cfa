// Started as a child process by test/store/embedded-store.test.ts: starts the embedded store,
// writes a row, prints READY and waits to be killed.
import pg from 'pg';
import { startEmbeddedStore } from '../../src/store/embedded-postgres.ts';

const store = await startEmbeddedStore({ dataDir: process.argv[2]! });
const client = new pg.Client({ connectionString: store.url });
await client.connect();
await client.query('CREATE TABLE IF NOT EXISTS survivors (note text)');
await client.query("INSERT INTO survivors VALUES ('committed before the crash')");
await client.end();
process.stdout.write('READY\n');
setInterval(() => undefined, 1000);
