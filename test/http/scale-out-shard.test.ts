import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShardPublication } from '../../src/sync/replication/shard-publication.ts';
import { readModelTables } from '../../src/sync/full-sync.ts';
import { DERIVED_TABLES } from '../../src/cli/derived-tables.ts';
import { apiRequest, type Body } from '../support/api-request.ts';
import { startApiNode, type ApiNode } from '../support/api-node.ts';
import { dropIdleSlots } from '../support/databases.ts';
import {
  generatedWorkspace,
  smallWorkspaceOptions,
  type GeneratedWorkspace,
} from '../support/generated-workspaces.ts';
import { createHarness, type Harness } from '../support/harness.ts';

// The building block of sharding (docs/scale-out.md, "Sharding"): a node that follows a
// publication filtered to one workspace holds that workspace's rows only, loaded and streamed,
// and answers its reports as a node that follows every row does.

describe('a node of a shard: a publication filtered to one workspace', () => {
  let h: Harness;
  let mine: GeneratedWorkspace;
  let other: GeneratedWorkspace;
  let full: ApiNode;
  let shard: ApiNode;

  beforeAll(async () => {
    h = await createHarness();
    mine = await generatedWorkspace(h.pool, smallWorkspaceOptions(3));
    other = await generatedWorkspace(h.pool, smallWorkspaceOptions(4));
    await createShardPublication(h.pool, 'ledgerline_shard_one', [mine.id]);
    full = await startApiNode(h, 'full_node');
    shard = await startApiNode(h, 'shard_node', { publication: 'ledgerline_shard_one' });
  });
  afterAll(async () => {
    await shard?.stop();
    await full?.stop();
    await dropIdleSlots(h.pool);
    await h.close();
  });

  /** Per table with workspace rows: the workspaces the read model holds rows of. */
  const workspacesHeld = async (node: ApiNode) => {
    const duck = await node.readModel.connect();
    try {
      const held: Record<string, string[]> = {};
      for (const table of (await readModelTables(duck, DERIVED_TABLES)).keys()) {
        const column = table === 'workspaces' ? 'id' : 'workspace_id';
        const rows = await duck.runAndReadAll(
          `SELECT DISTINCT CAST(${column} AS VARCHAR) FROM ${table} ORDER BY 1`,
        );
        held[table] = rows.getRows().map((r) => String(r[0]));
      }
      return held;
    } finally {
      duck.closeSync();
    }
  };

  const write = async (node: ApiNode, ws: GeneratedWorkspace, name: string) => {
    const res = await apiRequest(node.app, {
      method: 'POST',
      path: '/clients',
      token: ws.ownerToken,
      body: { name },
    });
    expect(res.status).toBe(201);
    return res.headers['x-data-position'] as string;
  };

  it('refuses a shard publication it cannot make, with one line saying why', async () => {
    const make = (name: string, ids: string[]) => createShardPublication(h.pool, name, ids);
    await expect(make('ledgerline_shard_one', [mine.id])).rejects.toThrow(
      "Publication ledgerline_shard_one exists: a shard's rows are fixed",
    );
    await expect(make('ledgerline_read_model', [mine.id])).rejects.toThrow(
      'and not ledgerline_read_model',
    );
    await expect(make('Shard-2', [mine.id])).rejects.toThrow('lower-case letters');
    await expect(make('shard_two', ['not-a-uuid'])).rejects.toThrow(
      'Not a workspace id: not-a-uuid',
    );
    await expect(make('shard_two', [])).rejects.toThrow('Name at least one workspace');
  });

  it("holds the workspace's rows only, from its load and from the stream", async () => {
    // Writes to both workspaces after the load: the shard streams its own only.
    await write(full, other, 'Other workspace, after the load');
    const position = await write(full, mine, 'My workspace, after the load, "q", \\ 🧾');
    expect(await shard.sync.waitFor(position, 10_000)).toBe(true);

    const held = await workspacesHeld(shard);
    const everything = await workspacesHeld(full);
    for (const [table, workspaces] of Object.entries(everything)) {
      // Every table the full node holds rows of both in, the shard holds of one.
      expect(held[table], table).toEqual(workspaces.filter((id) => id === mine.id));
    }
    expect(everything.time_entries).toEqual([mine.id, other.id].sort());

    const list = await apiRequest(shard.app, {
      method: 'GET',
      path: `/clients?search=${encodeURIComponent('My workspace, after the load')}`,
      token: mine.ownerToken,
      headers: { 'x-data-position': position },
    });
    expect((list.body.data as Body[]).map((c) => String(c.name))).toEqual([
      'My workspace, after the load, "q", \\ 🧾',
    ]);
  });

  it("answers the workspace's reports as a node of every row does", async () => {
    const position = await write(full, mine, 'Before the reports');
    const routes = [
      '/team-payouts/summary',
      '/team-payouts/unpaid-time?scope=all',
      '/team-payouts/profitability?from=2020-01-01&to=2030-12-31',
      '/team-payouts/bills?limit=100',
      '/team-payouts/payees?limit=100',
      '/projects?limit=100',
      '/invoices?limit=100',
      '/clients?limit=100',
    ];
    for (const route of routes) {
      const ask = (node: ApiNode) =>
        apiRequest(node.app, {
          method: 'GET',
          path: route,
          token: mine.ownerToken,
          headers: { 'x-data-position': position },
        });
      const [fromShard, fromFull] = [await ask(shard), await ask(full)];
      expect(fromShard.status, route).toBe(200);
      expect(fromShard.body, route).toEqual(fromFull.body);
      expect(JSON.stringify(fromFull.body).length, route).toBeGreaterThan(200);
    }
  });
});
