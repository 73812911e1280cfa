import type { FastifyInstance } from 'fastify';
import { DERIVED_TABLES, READ_MODEL_PARTS } from '../../src/cli/derived-tables.ts';
import { buildApp } from '../../src/http/app.ts';
import { openReadModel, type ReadModel } from '../../src/readmodel/read-model.ts';
import { ReadModelStatus } from '../../src/readmodel/read-model-status.ts';
import { SyncService } from '../../src/sync/sync-service.ts';
import type { Harness } from './harness.ts';

/** An API node of a scale-out test: its own read model, its sync, its app (docs/scale-out.md). */
export interface ApiNode {
  name: string;
  readModel: ReadModel;
  status: ReadModelStatus;
  sync: SyncService;
  app: FastifyInstance;
  /** Stops it: its app, its sync, its read model (once). */
  stop(): Promise<void>;
}

/**
 * A node named `name` following the store of `h` (its database), caught up with it: a read
 * model of its own in memory, a sync through a replication slot of its own, an app that
 * answers from them and writes to the store.
 */
export async function startApiNode(
  h: Harness,
  name: string,
  options: { answerCacheChars?: number; publication?: string } = {},
): Promise<ApiNode> {
  const url = (h.pool.options as { connectionString: string }).connectionString;
  const readModel = await openReadModel(':memory:', READ_MODEL_PARTS);
  const status = new ReadModelStatus();
  const sync = new SyncService({
    pool: h.pool,
    url,
    readModel,
    derived: DERIVED_TABLES,
    status,
    nodeName: name,
    ...(options.publication === undefined ? {} : { publication: options.publication }),
  });
  const app = await buildApp({
    db: h.db,
    readModel,
    status,
    tokenEnv: 'test',
    tokenIdentities: h.tokenIdentities,
    sync,
    nodeName: name,
    validateResponses: true,
    ...(options.answerCacheChars === undefined
      ? {}
      : { answerCacheChars: options.answerCacheChars }),
  });
  await sync.start();
  await sync.waitForStore();
  let stopped = false;
  return {
    name,
    readModel,
    status,
    sync,
    app,
    async stop() {
      if (stopped) return;
      stopped = true;
      // A test that takes the node away may have closed its app already.
      await app.close().catch(() => undefined);
      await sync.stop();
      readModel.close();
    },
  };
}
