// Run by test/webhooks/webhooks-crash.test.ts as its own process: a node's webhook producer and sender
// (private targets allowed, claims of 1 s), with LEDGERLINE_CRASH_AT making it die on the way.
// Runs until killed. Args: <database url>.
import { WEBHOOK_RECORDS } from '../../src/cli/webhook-records.ts';
import { createPool } from '../../src/store/database.ts';
import { WebhookProducer } from '../../src/webhooks/producer.ts';
import { WebhookSender } from '../../src/webhooks/sender.ts';

const [url] = process.argv.slice(2) as [string];
const pool = createPool(url);
const sender = new WebhookSender({
  pool,
  node: `child_${process.pid}`,
  allowPrivate: true,
  pollMs: 50,
  claimMs: 1000,
  retryScheduleMs: [100, 100, 100, 100, 100],
});
const producer = new WebhookProducer({
  pool,
  url,
  sources: WEBHOOK_RECORDS,
  retryMs: 200,
  onProduced: () => sender.nudge(),
});
sender.start();
producer.start();
process.once('SIGTERM', () => {
  void Promise.all([producer.stop(), sender.stop()]).then(async () => {
    await pool.end();
    process.exit(0);
  });
});
