// Run by test/webhooks/webhooks-crash.test.ts as its own process: a node's webhook producer and sender
// (private targets allowed, claims of 1 s), with LEDGERLINE_CRASH_AT making it die on the way.
// Runs until killed. Args: <database url>.
import { createPool } from '../../src/store/database.ts';
import { startWebhookNode } from './webhook-node.ts';

const [url] = process.argv.slice(2) as [string];
const pool = createPool(url);
const node = startWebhookNode(pool, {
  node: `child_${process.pid}`,
  allowPrivate: true,
  pollMs: 50,
  claimMs: 1000,
  retryScheduleMs: [100, 100, 100, 100, 100],
});
process.once('SIGTERM', () => {
  void node.stop().then(async () => {
    await pool.end();
    process.exit(0);
  });
});
