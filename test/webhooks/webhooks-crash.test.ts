import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/store/database.ts';
import type { FaultPoint } from '../../src/sync/fault-points.ts';
import { newWebhookSecret } from '../../src/webhooks/secret.ts';
import { producerSlotName } from '../../src/webhooks/producer.ts';
import { createTestDatabase } from '../support/databases.ts';
import { importObject } from '../support/import-object.ts';
import { ids, smallSnapshot } from '../support/small-snapshot.ts';

// kill -9 of a node while it produces events and while it delivers one (docs/webhooks.md,
// "Nothing lost on a crash"): after a restart every event is delivered at least once, with the
// webhook-id it was first sent with.

interface Received {
  id: string;
  body: { type: string; data: { id: string; name: string } };
}

/** A node's producer and sender in a process of its own (test/support/webhook-child.ts). */
function node(url: string, crashAt?: FaultPoint): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'test/support/webhook-child.ts', url], {
    env: { ...process.env, LEDGERLINE_CRASH_AT: crashAt ?? '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const exited = (child: ChildProcess) =>
  new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );

describe('webhooks across a kill -9', () => {
  let receiver: http.Server;
  let base: string;
  const received: Received[] = [];
  const secret = newWebhookSecret();

  beforeAll(async () => {
    receiver = http.createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        const event = new Webhook(secret).verify(body, request.headers as Record<string, string>);
        received.push({
          id: request.headers['webhook-id'] as string,
          body: event as Received['body'],
        });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(() => receiver?.close());

  it.each<FaultPoint>(['webhooks:before-outbox', 'webhooks:before-ack', 'webhooks:mid-delivery'])(
    'delivers every event at least once with its first webhook-id after a crash at %s',
    async (crashAt) => {
      const database = await createTestDatabase();
      const pool = createPool(database.url);
      try {
        await importObject(pool, smallSnapshot());
        await pool.query(
          `INSERT INTO webhook_endpoints (id, workspace_id, url, secret) VALUES ($1, $2, $3, $4)`,
          [randomUUID(), ids.workspace, `${base}/${crashAt}`, secret],
        );
        // Events start at the slot: made before the writes.
        await pool.query("SELECT pg_create_logical_replication_slot($1, 'pgoutput')", [
          await producerSlotName(pool),
        ]);
        const names = [1, 2, 3].map((i) => `Crash ${crashAt} ${i}, "q" 🧾`);
        for (const name of names)
          await pool.query('INSERT INTO clients (id, workspace_id, name) VALUES ($1, $2, $3)', [
            randomUUID(),
            ids.workspace,
            name,
          ]);
        const mine = () => received.filter((r) => names.includes(r.body.data.name));

        // The first node dies at the fault point, with SIGKILL.
        expect(await exited(node(database.url, crashAt))).toBe('SIGKILL');
        const before = mine().map((r) => [r.body.data.name, r.id]);

        // A node started after it delivers everything.
        const second = node(database.url);
        const deadline = Date.now() + 30_000;
        // After a crash mid-delivery, until the attempt in hand then is sent again too.
        const expected = names.length + (crashAt === 'webhooks:mid-delivery' ? before.length : 0);
        while (
          new Set(mine().map((r) => r.body.data.name)).size < names.length ||
          mine().length < expected
        ) {
          if (Date.now() > deadline) throw new Error(`delivered: ${JSON.stringify(mine())}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        second.kill('SIGTERM');
        await exited(second);

        const byName = new Map<string, Set<string>>();
        for (const r of mine())
          byName.set(r.body.data.name, (byName.get(r.body.data.name) ?? new Set()).add(r.id));
        for (const name of names) {
          // One id per record's event, however many times it was sent.
          expect(byName.get(name)?.size, name).toBe(1);
          expect(mine().find((r) => r.body.data.name === name)!.body.type).toBe('client.created');
        }
        for (const [name, id] of before) expect(byName.get(name!)).toEqual(new Set([id]));
        if (crashAt === 'webhooks:mid-delivery') {
          // The attempts in hand when the node died were received, none recorded, and each is
          // sent again.
          expect(before.length).toBeGreaterThanOrEqual(1);
          expect(mine().length).toBeGreaterThanOrEqual(names.length + before.length);
        }
      } finally {
        await pool
          .query('SELECT pg_drop_replication_slot($1)', [await producerSlotName(pool)])
          .catch(() => undefined);
        await pool.end();
        await database.drop();
      }
    },
  );
});
