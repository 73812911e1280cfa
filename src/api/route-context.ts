import type { DuckDBConnection } from '@duckdb/node-api';
import type { Kysely } from 'kysely';
import type { RecordCache } from '../readmodel/record-cache.ts';
import type { Database } from '../store/schema.ts';
import type { CursorCodec } from './list/cursor.ts';

/**
 * What routes get: the stores, and a way to run a read against the read model. The app builds
 * it (src/http/app.ts); it is declared in the kit so that no route plugin imports the app.
 */
export interface RouteContext {
  db: Kysely<Database>;
  /** Runs `read` on a read-model connection; 503 until the first sync has finished. */
  read<T>(read: (connection: DuckDBConnection) => Promise<T>): Promise<T>;
  /** Signs and checks list cursors with the store's shared secret. */
  cursors: CursorCodec;
  /** Rows of list pages kept between requests, current with the read model's commits. */
  records: RecordCache;
  /** Whether webhooks may target private addresses (WEBHOOK_ALLOW_PRIVATE; docs/webhooks.md). */
  webhookAllowPrivate: boolean;
}
