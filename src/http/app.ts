import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { ReadModel } from '../readmodel/read-model.ts';
import type { ReadModelStatus } from '../readmodel/read-model-status.ts';
import { registerClientRoutes } from '../api/clients/client.route.ts';
import { registerExpenseRoutes } from '../api/expenses/expense.route.ts';
import { registerExportRoutes } from '../exports/export.route.ts';
import { registerTaskRoutes } from '../api/tasks/task.route.ts';
import { registerInvoiceRoutes } from '../api/invoices/invoice.route.ts';
import { registerProjectRoutes } from '../api/projects/project.route.ts';
import { registerTimeEntryRoutes } from '../api/time-entries/time-entry.route.ts';
import { registerPayoutSummaryRoute } from '../reports/payout-summary/payout-summary.route.ts';
import { registerProfitabilityRoute } from '../reports/profitability/profitability.route.ts';
import { registerTeamPayoutRoutes } from '../reports/team-payouts/team-payouts.route.ts';
import { loadServerSecret } from '../store/server-secret.ts';
import { CursorCodec } from '../api/list/cursor.ts';
import { answerClientError, answerFrameworkError, MAX_PARAM_LENGTH } from './client-errors.ts';
import type { Database, TokenEnv } from '../store/schema.ts';
import { authenticate } from './auth.ts';
import { TokenUseRecorder } from '../tokens/token.repository.ts';
import type { TokenIdentityCache } from '../tokens/token-identity-cache.ts';
import { ConnectionPool } from '../readmodel/connection-pool.ts';
import { RecordCache } from '../readmodel/record-cache.ts';
import { registerJsonBodyParser } from './json-body.ts';
import { registerOpenApiRoutes } from './openapi.ts';
import { readModelBehind, readModelUnavailable } from '../api/errors.ts';
import { registerErrorHandling } from './error-handler.ts';
import type { RouteContext } from '../api/route-context.ts';
import { registerHealthRoutes } from './health.route.ts';
import { registerMeRoute } from './me.route.ts';
import { registerMetrics } from './metrics.ts';
import { registerRateLimit, type RateLimitOptions } from './rate-limit.ts';
import type { SyncService } from '../sync/sync-service.ts';

export interface AppDependencies {
  db: Kysely<Database>;
  readModel: ReadModel;
  status: ReadModelStatus;
  tokenEnv: TokenEnv;
  logLevel?: string;
  /** The running sync, for /healthz and /metrics (absent in tests that sync by hand). */
  sync?: SyncService;
  /** Per-token request rate (decisions 3); unset fields take DEFAULT_RATE_LIMIT. */
  rateLimit?: Partial<RateLimitOptions>;
  /** Rows kept per list in the record cache (RECORD_CACHE_ROWS; default 50,000). */
  recordCacheRows?: number;
  /** Token identities kept in memory; without it every request reads its token from the store. */
  tokenIdentities?: TokenIdentityCache;
  /**
   * The read model's connections (tests and benchmarks may pass their own); the app makes them
   * when absent, and closes them either way.
   */
  connections?: ConnectionPool;
}

export const API_PREFIX = '/api/v1';
/** The API's own description is public. */
const PUBLIC_PATHS = new Set([`${API_PREFIX}/openapi.json`, `${API_PREFIX}/docs`]);

/** Builds the HTTP API. `server.ts` listens; tests call `app.inject()`. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: deps.logLevel ?? 'silent' },
    bodyLimit: 1024 * 1024,
    genReqId: () => randomUUID(),
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  });
  registerErrorHandling(app, await registerRateLimit(app, deps.rateLimit));
  registerJsonBodyParser(app);

  const tokenUses = new TokenUseRecorder(deps.db);
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('X-Request-Id', request.id);
    if (request.url.startsWith(`${API_PREFIX}/`) && !PUBLIC_PATHS.has(request.url.split('?')[0]!)) {
      request.caller = await authenticate(
        deps.db,
        deps.tokenEnv,
        request,
        tokenUses,
        deps.tokenIdentities,
      );
    }
  });
  app.addHook('onSend', async (request, reply) => {
    if (request.method === 'GET' && deps.status.dataAsOf) {
      void reply.header('X-Data-As-Of', deps.status.dataAsOf.toISOString());
    }
  });

  const connections = deps.connections ?? new ConnectionPool(deps.readModel);
  app.addHook('onClose', async () => connections.close());
  const context: RouteContext = {
    db: deps.db,
    cursors: new CursorCodec(await loadServerSecret(deps.db, 'list-cursors')),
    records: new RecordCache(deps.status, deps.recordCacheRows),
    async read(read) {
      if (!deps.status.ready) throw readModelUnavailable();
      return connections.use(read);
    },
    async readModelCaughtUp() {
      if (deps.sync && !(await deps.sync.waitForStore())) throw readModelBehind();
    },
  };
  registerHealthRoutes(app, { db: deps.db, status: deps.status, sync: deps.sync });
  registerMetrics(app, { db: deps.db, status: deps.status, sync: deps.sync });
  registerOpenApiRoutes(app);
  await app.register(
    async (api) => {
      registerMeRoute(api, context);
      registerPayoutSummaryRoute(api, context);
      registerProfitabilityRoute(api, context);
      registerTeamPayoutRoutes(api, context);
      registerClientRoutes(api, context);
      registerProjectRoutes(api, context);
      registerInvoiceRoutes(api, context);
      registerTimeEntryRoutes(api, context);
      registerTaskRoutes(api, context);
      registerExpenseRoutes(api, context);
      registerExportRoutes(api, context);
    },
    { prefix: API_PREFIX },
  );
  return app;
}
