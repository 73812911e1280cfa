import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { newWebhookSecret, ROTATED_SECRET_MS } from '../../webhooks/secret.ts';
import type { WebhookCreateInput, WebhookUpdateInput } from './webhook.input.ts';
import type { WebhookEndpointRow } from './webhook.record.ts';

type Db = Kysely<Database> | Transaction<Database>;

export async function insertWebhook(
  db: Db,
  workspaceId: string,
  input: WebhookCreateInput & { url: string },
): Promise<WebhookEndpointRow> {
  return db
    .insertInto('webhook_endpoints')
    .values({
      id: randomUUID(),
      workspace_id: workspaceId,
      url: input.url,
      events: input.events ?? null,
      description: input.description ?? null,
      secret: newWebhookSecret(),
      previous_secret: null,
      previous_secret_until: null,
      failing_since: null,
      disabled_reason: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findWebhook(
  db: Db,
  workspaceId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<WebhookEndpointRow | undefined> {
  let query = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** A page of the workspace's endpoints, oldest first, after the (created_at, id) of `after`. */
export async function listWebhooks(
  db: Db,
  workspaceId: string,
  limit: number,
  after: { createdAt: string; id: string } | undefined,
): Promise<(WebhookEndpointRow & { created_key: string })[]> {
  let query = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    // The creation time to the microsecond, for the cursor (a Date keeps milliseconds).
    .select(sql<string>`created_at::text`.as('created_key'))
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit + 1);
  if (after)
    query = query.where(
      sql<boolean>`(created_at, id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)`,
    );
  return query.execute();
}

/**
 * Changes an endpoint. Enabling it again clears its failing state: its next event is sent as
 * to a new endpoint.
 */
export async function updateWebhook(
  db: Db,
  id: string,
  input: WebhookUpdateInput,
): Promise<WebhookEndpointRow> {
  return db
    .updateTable('webhook_endpoints')
    .set({
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.events === undefined ? {} : { events: input.events }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.enabled === undefined
        ? {}
        : input.enabled
          ? { enabled: true, failing_since: null, disabled_reason: null }
          : { enabled: false }),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A new secret; the old one still signs beside it for ROTATED_SECRET_MS. */
export async function rotateWebhookSecret(db: Db, id: string): Promise<WebhookEndpointRow> {
  return db
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      previous_secret: eb.ref('secret'),
      previous_secret_until: sql<Date>`now() + ${`${ROTATED_SECRET_MS} milliseconds`}::interval`,
      secret: newWebhookSecret(),
      updated_at: sql<Date>`now()`,
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteWebhook(db: Db, id: string): Promise<void> {
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
}

/** The endpoint's latest attempts, newest first, before the attempt id `before`. */
export async function listAttempts(
  db: Db,
  endpointId: string,
  limit: number,
  before: string | undefined,
) {
  let query = db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('id', 'desc')
    .limit(limit + 1);
  if (before !== undefined) query = query.where('id', '<', before);
  return query.execute();
}

/**
 * Queues every event of the endpoint's workspace since `since` that the endpoint subscribes
 * to for sending again, with its original id; answers how many.
 */
export async function replayWebhook(
  db: Db,
  endpoint: WebhookEndpointRow,
  since: string,
): Promise<number> {
  const result = await sql<{ n: number }>`
    WITH chosen AS (
      SELECT e.id, e.record_id, e.commit_lsn FROM webhook_events e
      WHERE e.workspace_id = ${endpoint.workspace_id} AND e.occurred_at >= ${since}::timestamptz
        AND (${endpoint.events}::text[] IS NULL OR e.type = ANY(${endpoint.events}::text[]))
    ), queued AS (
      INSERT INTO webhook_deliveries (endpoint_id, event_id, record_id)
      SELECT ${endpoint.id}::uuid, id, record_id FROM chosen ORDER BY commit_lsn, id
      ON CONFLICT (endpoint_id, event_id) DO UPDATE
        SET state = 'pending', attempts = 0, next_attempt_at = now(), claimed_until = NULL,
            claimed_by = NULL, finished_at = NULL
      RETURNING 1
    )
    SELECT count(*)::int AS n FROM queued`.execute(db);
  return result.rows[0]!.n;
}
