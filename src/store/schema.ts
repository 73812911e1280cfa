import type { ColumnType, Generated, Selectable } from 'kysely';
import type { RecordTables } from './record-tables.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

export type Plan = 'free' | 'solo' | 'studio' | 'agency';
export type Role = 'MEMBER' | 'MANAGER' | 'ADMIN' | 'OWNER';
export type Scope = 'read' | 'write';
export type TokenEnv = 'live' | 'test';

export interface WorkspaceTable {
  id: string;
  name: string;
  plan: Plan;
  base_currency: string;
  timezone: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface UserTable {
  workspace_id: string;
  id: string;
  name: string;
  email: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface MemberTable {
  workspace_id: string;
  user_id: string;
  role: Role;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface ApiTokenTable {
  prefix: string;
  workspace_id: string;
  user_id: string;
  env: TokenEnv;
  secret_sha256: Buffer;
  scopes: Scope[];
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

/**
 * A create's response kept for replay (docs/contract.md, "Idempotency"; src/api/idempotency.ts).
 * The response columns are NULL only inside the transaction that claimed the key.
 */
export interface IdempotencyKeyTable {
  workspace_id: string;
  token_prefix: string;
  key: string;
  method: string;
  path: string;
  body_sha256: Buffer;
  response_status: number | null;
  response_body: Buffer | null;
  created_at: Timestamp;
}

export interface SchemaMigrationTable {
  version: string;
  sha256: string;
  applied_at: Generated<Date>;
}

/** A webhook endpoint of a workspace (sql/postgres/0013_webhooks.sql, docs/webhooks.md). */
export interface WebhookEndpointTable {
  id: string;
  workspace_id: string;
  url: string;
  /** null: every event type. */
  events: string[] | null;
  description: string | null;
  enabled: Generated<boolean>;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: NullableTimestamp;
  failing_since: NullableTimestamp;
  disabled_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A delivery attempt of an event to an endpoint, as its log keeps it. */
export interface WebhookAttemptTable {
  id: Generated<string>;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempted_at: Timestamp;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** Tables reached through Kysely. Bulk paths (import, export, sync) use COPY and cursors. */
export interface Database extends RecordTables {
  workspaces: WorkspaceTable;
  users: UserTable;
  members: MemberTable;
  api_tokens: ApiTokenTable;
  idempotency_keys: IdempotencyKeyTable;
  schema_migrations: SchemaMigrationTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_attempts: WebhookAttemptTable;
}

export type WorkspaceRow = Selectable<WorkspaceTable>;
export type ApiTokenRow = Selectable<ApiTokenTable>;
