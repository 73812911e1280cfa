import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportSnapshot } from '../../src/snapshot/export.ts';
import { apiRequest, type Body } from '../support/api-request.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';
import {
  dropWebhookSlots,
  startReceiver,
  startWebhookNode,
  type Received,
  type Receiver,
  type WebhookNode,
} from '../support/webhook-node.ts';
import { until } from '../support/webhook-testbed.ts';

// An import's events (docs/webhooks.md, "Imports"): an import that replaces a workspace
// deletes and inserts every row in one transaction, large enough here to go through the
// producer's spill; it tells of what it changed, and nothing of what it wrote again as it was.
// The workspace's endpoints outlive it.

describe('webhook events of an import that replaces a workspace', () => {
  let h: Harness;
  let receiver: Receiver;
  let dir: string;
  let node: WebhookNode;
  const received: Received[] = [];

  beforeAll(async () => {
    h = await createHarness({ live: true, webhookAllowPrivate: true });
    await h.importObject(smallSnapshot());
    await h.sync();
    dir = await mkdtemp(path.join(tmpdir(), 'll-webhook-import-'));
    receiver = await startReceiver(() => 204, received);
    node = startWebhookNode(
      h.pool,
      { node: 'import', allowPrivate: true, pollMs: 50 },
      // The small workspace's import is some 40 changes: most of them go through the spill.
      { spillAt: 4 },
    );
    await until(async () => node.producer.metrics.producing);
  });
  afterAll(async () => {
    await node?.stop();
    receiver?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    if (h) {
      await dropWebhookSlots(h.pool);
      await h.close();
    }
  });

  it('tells of each record it changed, once, and keeps the endpoints', async () => {
    const made = await apiRequest(h.app, {
      token: TOKENS.owner,
      method: 'POST',
      path: '/webhooks',
      body: {
        url: `${receiver.base}/import`,
        description: 'Warehouse, "nightly" \\ 🧾',
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const { id: endpointId, secret } = made.body.data as { id: string; secret: string };

    // The workspace as it is, exported, then changed: a client renamed, one added, an entry's
    // note changed, the other entry gone.
    const exported = path.join(dir, 'workspace.json');
    await exportSnapshot(h.pool, ids.workspace, exported);
    const snapshot = JSON.parse(await readFile(exported, 'utf8')) as Record<string, Body[]>;
    const renamed = 'Globex, "imported" \\ 🧾\nsecond line';
    const added = 'e1000000-0000-4000-8000-000000000001';
    snapshot.clients![0]!.name = renamed;
    snapshot.clients!.push({ ...snapshot.clients![0]!, id: added, name: 'Added by import' });
    const entries = snapshot.timeEntries!;
    entries.find((e) => e.id === ids.entry1)!.note = 'Changed by import';
    snapshot.timeEntries = entries.filter((e) => e.id !== ids.entry2);
    const spilledBefore = node.producer.metrics.spilled;
    await h.importObject(snapshot, { replace: true });

    const verified = () =>
      received.map((r) => {
        const event = new Webhook(secret).verify(r.body, r.headers) as {
          type: string;
          data: Body;
        };
        return { id: r.headers['webhook-id']!, type: event.type, data: event.data };
      });
    await until(async () => verified().length >= 4);
    // Nothing more comes of it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = verified();
    expect(events.map((e) => `${e.type} ${String(e.data.id)}`).sort()).toEqual(
      [
        `client.created ${added}`,
        `client.updated ${ids.client}`,
        `time_entry.deleted ${ids.entry2}`,
        `time_entry.updated ${ids.entry1}`,
      ].sort(),
    );
    expect(events.find((e) => e.type === 'client.updated')!.data.name).toBe(renamed);
    expect(events.find((e) => e.type === 'time_entry.updated')!.data.note).toBe(
      'Changed by import',
    );
    expect(new Set(events.map((e) => e.id)).size).toBe(4);
    expect(node.producer.metrics.spilled).toBeGreaterThan(spilledBefore);

    // The endpoint outlived the replace, with its delivery log.
    const endpoint = await apiRequest(h.app, {
      token: TOKENS.owner,
      method: 'GET',
      path: `/webhooks/${endpointId}`,
    });
    expect(endpoint.status).toBe(200);
    expect((endpoint.body.data as Body).description).toBe('Warehouse, "nightly" \\ 🧾');
    const log = await apiRequest(h.app, {
      token: TOKENS.owner,
      method: 'GET',
      path: `/webhooks/${endpointId}/deliveries`,
    });
    expect((log.body.data as Body[]).map((a) => a.statusCode as number)).toEqual([
      204, 204, 204, 204,
    ]);

    // The same snapshot again: every row written as it was, nothing to tell.
    received.length = 0;
    await h.importObject(snapshot, { replace: true });
    await h.pool.query("UPDATE clients SET name = 'After the second import' WHERE id = $1", [
      ids.client,
    ]);
    await until(async () => verified().length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(verified().map((e) => e.type)).toEqual(['client.updated']);
  });
});
