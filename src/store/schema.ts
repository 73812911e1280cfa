import type { Selectable } from 'kysely';
import type { DB } from './generated/store-tables.ts';

// The store's tables as Kysely reaches them: the types kysely-codegen writes from the migrated
// catalog (src/store/generated/store-tables.ts, written by `npm run generate` and checked by
// `npm run check`), with the text columns whose CHECK names their values narrowed to them. A
// column is declared once, in its migration (sql/postgres/). NUMERIC arrives and leaves as
// decimal text, DATE as 'YYYY-MM-DD' text (src/store/database.ts). Bulk paths (import, export,
// sync) use COPY and cursors.

export type Plan = 'free' | 'solo' | 'studio' | 'agency';
export type Role = 'MEMBER' | 'MANAGER' | 'ADMIN' | 'OWNER';
export type Scope = 'read' | 'write';
export type TokenEnv = 'live' | 'test';

/** `T` with the columns of `R` typed as `R` says. */
type Narrowed<T, R> = Omit<T, keyof R> & R;

export type WorkspaceTable = Narrowed<DB['workspaces'], { plan: Plan }>;
export type MemberTable = Narrowed<DB['members'], { role: Role }>;
export type ApiTokenTable = Narrowed<DB['api_tokens'], { env: TokenEnv; scopes: Scope[] }>;
/** A webhook endpoint of a workspace (sql/postgres/0013_webhooks.sql, docs/webhooks.md). */
export type WebhookEndpointTable = DB['webhook_endpoints'];

export type Database = Narrowed<
  DB,
  { workspaces: WorkspaceTable; members: MemberTable; api_tokens: ApiTokenTable }
>;

export type WorkspaceRow = Selectable<WorkspaceTable>;
export type ApiTokenRow = Selectable<ApiTokenTable>;
